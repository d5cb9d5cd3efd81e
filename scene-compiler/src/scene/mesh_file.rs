//! Model files read into a [`MeshData`]: triangles in object space. OBJ through
//! `tobj`, PLY (ascii, binary little and big endian) through `ply-rs-bw`, glTF 2.0
//! (`.gltf` with its buffers, `.glb`, data URIs) through `gltf`, with what asset
//! pipelines such as gltfpack write (`KHR_mesh_quantization`: `gltf_primitive`;
//! `EXT_meshopt_compression` / `KHR_meshopt_compression`: `gltf_buffers`); polygons are
//! triangulated (OBJ, PLY as fans, glTF strips and fans as the spec says).
//!
//! What is read: positions, triangles, vertex normals (when every vertex has one),
//! texture coordinates and glTF tangents (OBJ: when every vertex has them; glTF: when
//! some primitive has them, the others' vertices given zeros), and the model's own
//! materials (glTF, OBJ's MTL) mapped to ours by `model_materials`, with a material
//! index per triangle.
//! Errors say what is wrong inside the file (which element, accessor or index); the
//! scene's validation puts them at the `file` value.
//!
//! Not here: placing a mesh in the world (`crate::meshes`, at compile time).

use std::cell::RefCell;
use std::io::{BufReader, Cursor};
use std::path::Path;

use glam::{Mat4, Vec2, Vec3, Vec4};
use ply_rs_bw::{parser, ply};

use super::model::{MeshData, ModelMaterial};
use super::model_materials::{self, Dropped};
use super::{gltf_buffers, gltf_check, gltf_draco, gltf_primitive, obj_check};
use crate::{files, limits};

/// Reads the model at `path`, by its extension, refusing a model of more than
/// `max_triangles` triangles (what the scene's meshes read before it left of the
/// format's limit) as soon as it is known to have them: a glTF file's node tree is
/// counted against it before anything is read.
pub fn read_within(path: &Path, max_triangles: usize) -> Result<MeshData, String> {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let g = match extension.as_deref() {
        Some("obj") => read_obj(path)?,
        Some("ply") => read_ply(path)?,
        Some("gltf" | "glb") => read_gltf(path, max_triangles)?,
        _ => return Err("unknown model format: use .obj, .ply, .gltf or .glb".into()),
    };
    if g.triangles.len() > max_triangles {
        return Err(too_many_triangles(g.triangles.len(), max_triangles));
    }
    check(&g.positions, &g.triangles)?;
    let normals = unit_normals(g.normals, g.positions.len())?;
    let uvs = if g.uvs.len() == g.positions.len() { g.uvs } else { Vec::new() };
    if let Some(i) = uvs.iter().position(|uv| !uv.is_finite()) {
        return Err(format!("vertex {i} has a non-finite texture coordinate {}", uvs[i]));
    }
    let tangents = unit_tangents(g.tangents, g.positions.len())?;
    Ok(MeshData {
        path: path.to_path_buf(),
        positions: g.positions,
        normals,
        uvs,
        tangents,
        triangles: g.triangles,
        materials: g.materials,
        triangle_materials: g.triangle_materials,
        dropped: g.dropped.into_iter().collect(),
        no_materials: g.no_materials,
        instanced: Vec::new(),
    })
}

/// The file's normals made unit length, when every vertex has one; none otherwise.
fn unit_normals(normals: Vec<Vec3>, vertices: usize) -> Result<Vec<Vec3>, String> {
    if normals.len() != vertices {
        return Ok(Vec::new());
    }
    normals
        .into_iter()
        .enumerate()
        .map(|(i, n)| n.try_normalize().ok_or_else(|| format!("vertex {i} has a normal {n} of no direction")))
        .collect()
}

/// The file's tangents with unit xyz and w +1 or -1 ([`MeshData::unit_tangent`]), when every
/// vertex has one; none otherwise. One of no direction is kept as zero: its triangles'
/// corners take their face's tangent (`tangents::of_mesh`), as MikkTSpace's degenerate
/// faces do.
fn unit_tangents(tangents: Vec<Vec4>, vertices: usize) -> Result<Vec<Vec4>, String> {
    if tangents.len() != vertices {
        return Ok(Vec::new());
    }
    tangents
        .into_iter()
        .enumerate()
        .map(|(i, t)| match t.is_finite() {
            true => Ok(MeshData::unit_tangent(t).unwrap_or(Vec4::ZERO)),
            false => Err(format!("vertex {i} has a non-finite tangent {t}")),
        })
        .collect()
}

fn too_many_triangles(n: usize, max: usize) -> String {
    if max == limits::MAX_TRIANGLES {
        format!("{n} triangles, more than the format's {max}")
    } else {
        format!("{n} triangles, more than the {max} the format has room for after the scene's other meshes")
    }
}

/// What the compiler needs of every model: some triangles, within the format's
/// limits, indices in range, finite positions, and no triangle without area.
fn check(positions: &[Vec3], triangles: &[[u32; 3]]) -> Result<(), String> {
    if triangles.is_empty() {
        return Err("the model has no triangles".into());
    }
    if triangles.len() > limits::MAX_TRIANGLES {
        return Err(format!(
            "{} triangles, more than the format's {}",
            triangles.len(),
            limits::MAX_TRIANGLES
        ));
    }
    if let Some(i) = positions.iter().position(|p| !p.is_finite()) {
        return Err(format!("vertex {i} has a non-finite coordinate {}", positions[i]));
    }
    for (t, tri) in triangles.iter().enumerate() {
        if let Some(&bad) = tri.iter().find(|&&i| i as usize >= positions.len()) {
            return Err(format!("triangle {t} names vertex {bad}, but the model has {}", positions.len()));
        }
        let [a, b, c] = tri.map(|i| positions[i as usize]);
        if (b - a).cross(c - a) == Vec3::ZERO {
            return Err(format!("triangle {t} (vertices {tri:?}) has no area"));
        }
    }
    Ok(())
}

/// What a reader returns: normals, uvs and tangents are one per position, or fewer
/// when the file has none; `triangle_materials` one per triangle when `materials` is not empty.
#[derive(Default)]
struct Geometry {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    tangents: Vec<Vec4>,
    triangles: Vec<[u32; 3]>,
    materials: Vec<ModelMaterial>,
    triangle_materials: Vec<u32>,
    dropped: Dropped,
    no_materials: String,
}

fn read_obj(path: &Path) -> Result<Geometry, String> {
    // One index per vertex: a position with several normals becomes several vertices
    // (at the same, bit-equal, position).
    let options = tobj::LoadOptions { triangulate: true, single_index: true, ..tobj::LoadOptions::default() };
    let folder = path.parent().unwrap_or(Path::new("."));
    let bytes = files::read(path).map_err(|e| e.to_string())?;
    obj_check::obj(&String::from_utf8_lossy(&bytes))?;
    // MTL files are read here, not by tobj, so that they are bounded and checked first;
    // the first one's problem is kept to say why the model has no materials.
    let mtl_problem = RefCell::new(None::<String>);
    let load_mtl = |name: &Path| -> tobj::MTLLoadResult {
        let checked = files::read(&folder.join(name)).map_err(|e| e.to_string()).and_then(|bytes| {
            obj_check::mtl(&String::from_utf8_lossy(&bytes))?;
            Ok(bytes)
        });
        match checked {
            Ok(bytes) => tobj::load_mtl_buf(&mut Cursor::new(&bytes[..])),
            Err(e) => {
                mtl_problem.borrow_mut().get_or_insert_with(|| format!("`{}`: {e}", name.display()));
                Err(tobj::LoadError::MaterialParseError)
            }
        }
    };
    let (models, materials) = tobj::load_obj_buf(&mut Cursor::new(&bytes[..]), &options, load_mtl)
        .map_err(|e| format!("not a readable OBJ file: {e}"))?;
    let mut g = Geometry::default();
    match materials {
        Ok(materials) if !materials.is_empty() => {
            for m in &materials {
                g.materials.push(model_materials::mtl(m, folder, &mut g.dropped)?);
            }
        }
        Ok(_) => g.no_materials = "the OBJ file names no MTL materials".into(),
        Err(e) => {
            let why = mtl_problem.into_inner().unwrap_or_else(|| e.to_string());
            g.no_materials = format!("its MTL file cannot be used ({why})");
        }
    }
    let mut every_normal = true;
    let mut every_uv = true;
    // Faces before any `usemtl` take a default grey, appended when some need it.
    let mut unnamed = None;
    for model in &models {
        let first = u32::try_from(g.positions.len()).map_err(|_| "too many vertices")?;
        let mesh = &model.mesh;
        g.positions.extend(mesh.positions.chunks_exact(3).map(Vec3::from_slice));
        every_normal &= mesh.normals.len() == mesh.positions.len();
        g.normals.extend(mesh.normals.chunks_exact(3).map(Vec3::from_slice));
        every_uv &= mesh.texcoords.len() / 2 == mesh.positions.len() / 3;
        // OBJ's v runs up the image; ours (as glTF's) runs down from its top row.
        g.uvs.extend(mesh.texcoords.chunks_exact(2).map(|t| Vec2::new(t[0], 1.0 - t[1])));
        let count = mesh.indices.len() / 3;
        g.triangles.extend(mesh.indices.chunks_exact(3).map(|t| [t[0] + first, t[1] + first, t[2] + first]));
        if !g.materials.is_empty() {
            let slot = match mesh.material_id {
                Some(id) if id < g.materials.len() => id as u32,
                Some(id) => {
                    return Err(format!("object `{}` uses material {id}, past the MTL's", model.name));
                }
                None => *unnamed.get_or_insert(g.materials.len() as u32),
            };
            g.triangle_materials.extend(std::iter::repeat_n(slot, count));
        }
    }
    if unnamed.is_some() {
        g.materials.push(model_materials::mtl(
            &tobj::Material { name: "default".into(), ..Default::default() },
            folder,
            &mut g.dropped,
        )?);
    }
    if !every_normal {
        g.normals.clear();
    }
    if !every_uv {
        g.uvs.clear();
    }
    Ok(g)
}

/// A PLY vertex: its position and normal (and how many of `nx ny nz` it had),
/// whatever the property types.
struct PlyVertex(Vec3, Vec3, u8);

impl ply::PropertyAccess for PlyVertex {
    fn new() -> Self {
        PlyVertex(Vec3::ZERO, Vec3::ZERO, 0)
    }
    fn set_property(&mut self, key: &str, property: ply::Property) -> ply::PropertyAccessResult {
        let (normal, axis) = match key {
            "x" => (false, 0),
            "y" => (false, 1),
            "z" => (false, 2),
            "nx" => (true, 0),
            "ny" => (true, 1),
            "nz" => (true, 2),
            _ => return ply::PropertyAccessResult::Ignored,
        };
        let value = match property {
            ply::Property::Float(v) => v,
            ply::Property::Double(v) => v as f32,
            ply::Property::Int(v) => v as f32,
            ply::Property::UInt(v) => v as f32,
            ply::Property::Short(v) => f32::from(v),
            ply::Property::UShort(v) => f32::from(v),
            ply::Property::Char(v) => f32::from(v),
            ply::Property::UChar(v) => f32::from(v),
            _ => return ply::PropertyAccessResult::Ignored,
        };
        if normal {
            self.1[axis] = value;
            self.2 += 1;
        } else {
            self.0[axis] = value;
        }
        ply::PropertyAccessResult::Set
    }
}

/// A PLY face: its vertex indices (`vertex_indices` or `vertex_index`); a negative
/// index is kept as `u32::MAX` so the range check names it.
struct PlyFace(Vec<u32>);

impl ply::PropertyAccess for PlyFace {
    fn new() -> Self {
        PlyFace(Vec::new())
    }
    fn set_property(&mut self, key: &str, property: ply::Property) -> ply::PropertyAccessResult {
        if key != "vertex_indices" && key != "vertex_index" {
            return ply::PropertyAccessResult::Ignored;
        }
        let signed = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
        self.0 = match property {
            ply::Property::ListInt(v) => v.into_iter().map(|i| signed(i.into())).collect(),
            ply::Property::ListUInt(v) => v,
            ply::Property::ListShort(v) => v.into_iter().map(|i| signed(i.into())).collect(),
            ply::Property::ListUShort(v) => v.into_iter().map(u32::from).collect(),
            ply::Property::ListChar(v) => v.into_iter().map(|i| signed(i.into())).collect(),
            ply::Property::ListUChar(v) => v.into_iter().map(u32::from).collect(),
            _ => return ply::PropertyAccessResult::Ignored,
        };
        ply::PropertyAccessResult::Set
    }
}

fn read_ply(path: &Path) -> Result<Geometry, String> {
    let (file, _) = files::open_input(path, limits::MAX_INPUT_BYTES).map_err(|e| e.to_string())?;
    let mut reader = parser::Reader::new(BufReader::new(file));
    let vertex_parser = parser::Parser::<PlyVertex>::new();
    let face_parser = parser::Parser::<PlyFace>::new();
    let header = vertex_parser.read_header(&mut reader).map_err(|e| format!("not a PLY file: {e}"))?;
    let mut g = Geometry::default();
    let mut faces = Vec::new();
    // Elements come in header order; others (edges, materials) are read and dropped.
    for element in header.elements.values() {
        let what = |e: ply_rs_bw::parser::ParseError| format!("element `{}`: {e}", element.name);
        match element.name.as_str() {
            "vertex" => {
                let vertices =
                    vertex_parser.read_payload_for_element(&mut reader, element, &header).map_err(what)?;
                if vertices.iter().all(|v| v.2 == 3) {
                    g.normals = vertices.iter().map(|v| v.1).collect();
                }
                g.positions = vertices.into_iter().map(|v| v.0).collect();
            }
            "face" => {
                faces = face_parser.read_payload_for_element(&mut reader, element, &header).map_err(what)?
            }
            _ => {
                vertex_parser.read_payload_for_element(&mut reader, element, &header).map_err(what)?;
            }
        }
    }
    g.no_materials = "a PLY file has no materials".into();
    g.triangles.reserve(faces.len());
    for (f, face) in faces.iter().enumerate() {
        if face.0.len() < 3 {
            return Err(format!("face {f} has {} vertices, fewer than 3", face.0.len()));
        }
        // A fan from the first vertex: convex polygons, as modelling tools write them.
        g.triangles.extend(face.0.windows(2).skip(1).map(|pair| [face.0[0], pair[0], pair[1]]));
    }
    Ok(g)
}

fn read_gltf(path: &Path, max_triangles: usize) -> Result<Geometry, String> {
    let bytes = files::read(path).map_err(|e| e.to_string())?;
    // The crate's validation is run by hand, after the checks it needs done before it.
    let gltf::Gltf { document, blob } =
        gltf::Gltf::from_slice_without_validation(&bytes).map_err(|e| format!("not a glTF 2.0 file: {e}"))?;
    let mut root = document.into_json();
    gltf_check::before_validation(&root)?;
    gltf_check::required_extensions(&mut root)?;
    gltf_draco::give_accessors_views(&mut root);
    let document = gltf::Document::from_json(root).map_err(|e| format!("not a valid glTF 2.0 file: {e}"))?;
    gltf_check::images(document.as_json())?;
    gltf_check::node_tree(document.as_json())?;
    let folder = path.parent().unwrap_or(Path::new("."));
    gltf_check::buffer_files(document.as_json(), folder)?;
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next())
        .ok_or("the file has no scene (no nodes to place)")?;
    let mut counts = [0, 0];
    for node in scene.nodes() {
        count_gltf(&node, max_triangles, &mut counts, 0)?;
    }
    let buffers = gltf_buffers::load(&document, folder, blob)?;
    let lengths: Vec<usize> = buffers.iter().map(|b| b.0.len()).collect();
    let mut g = Geometry::default();
    // Every material of the document (primitives name them by index); glTF's default
    // material is appended when a primitive names none.
    for material in document.materials() {
        g.materials.push(model_materials::gltf(&material, path, &buffers, &mut g.dropped)?);
    }
    let mut walk = Walk { every_normal: true, some_uv: false, some_tangent: false, default_material: None };
    let file = GltfFile { path, document: &document, buffers: &buffers, lengths: &lengths };
    for node in scene.nodes() {
        gltf_node(&node, Mat4::IDENTITY, &file, &mut g, &mut walk, 0)?;
    }
    if !walk.every_normal {
        g.normals.clear();
    }
    if !walk.some_uv {
        g.uvs.clear();
    }
    if !walk.some_tangent {
        g.tangents.clear();
    }
    Ok(g)
}

/// What a glTF walk learns across primitives: whether every one had normals, whether
/// some had texture coordinates or tangents, and the default material's index once one
/// needs it. A primitive without texture coordinates or tangents in a file where others
/// have them gets (0, 0) and a zero tangent (its face's, `tangents::of_mesh`) at each
/// vertex: gltfpack drops TEXCOORD_0 and TANGENT from primitives whose material samples
/// no texture, and Blender exports meshes without UVs beside meshes with them.
struct Walk {
    every_normal: bool,
    some_uv: bool,
    some_tangent: bool,
    default_material: Option<u32>,
}

/// What every node of a glTF walk reads from.
struct GltfFile<'a> {
    path: &'a Path,
    document: &'a gltf::Document,
    buffers: &'a [gltf::buffer::Data],
    /// The loaded buffers' lengths, for the accessor checks.
    lengths: &'a [usize],
}

/// Deepest glTF node hierarchy read: deeper is a loop (a node that is its own
/// ancestor) or a hostile file, and would overflow the stack.
const MAX_GLTF_NODE_DEPTH: usize = 256;

/// Adds `node`'s meshes (under `parent`'s transform) and its children's.
fn gltf_node(
    node: &gltf::Node<'_>,
    parent: Mat4,
    file: &GltfFile<'_>,
    g: &mut Geometry,
    walk: &mut Walk,
    depth: usize,
) -> Result<(), String> {
    if depth >= MAX_GLTF_NODE_DEPTH {
        return Err(format!(
            "node {} is {depth} levels deep: the node graph loops or nests deeper than {MAX_GLTF_NODE_DEPTH}",
            node.index()
        ));
    }
    let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
    // Normals go through the inverse transpose, so a non-uniform scale keeps them normal;
    // tangents lie on the surface and turn with it (its linear part), their bitangent
    // sign flipped where the node mirrors (`tangents::to_world`).
    let linear = glam::Mat3::from_mat4(world);
    let normal_matrix = linear.inverse().transpose();
    let mirrors = linear.determinant() < 0.0;
    if let Some(mesh) = node.mesh() {
        for primitive in mesh.primitives() {
            let at = || format!("mesh {} primitive {}", mesh.index(), primitive.index());
            let v = match primitive.extension_value(gltf_draco::NAME) {
                Some(draco) => gltf_draco::read(&primitive, draco, file.document, file.buffers),
                None => gltf_primitive::read(&primitive, file.document, file.buffers, file.lengths),
            }
            .map_err(|e| format!("{}: {e}", at()))?;
            let first = u32::try_from(g.positions.len()).map_err(|_| "too many vertices")?;
            let count = v.positions.len();
            g.positions.extend(v.positions.iter().map(|&p| world.transform_point3(p)));
            match v.normals {
                Some(normals) => g.normals.extend(normals.into_iter().map(|n| normal_matrix * n)),
                None => walk.every_normal = false,
            }
            walk.some_uv |= v.uvs.is_some();
            g.uvs.extend(v.uvs.unwrap_or_else(|| vec![Vec2::ZERO; count]));
            walk.some_tangent |= v.tangents.is_some();
            match v.tangents {
                Some(tangents) => g.tangents.extend(tangents.into_iter().map(|t| {
                    let xyz = linear * t.truncate();
                    xyz.extend(if mirrors { -t.w } else { t.w })
                })),
                None => g.tangents.extend(std::iter::repeat_n(Vec4::ZERO, count)),
            }
            let count = count as u32;
            let indices = v.indices.unwrap_or_else(|| (0..count).collect());
            if let Some(bad) = indices.iter().find(|&&i| i >= count) {
                return Err(format!("{}: index {bad} past its {count} vertices", at()));
            }
            let mode = if v.triangle_list { gltf::mesh::Mode::Triangles } else { primitive.mode() };
            triangles(mode, &indices, first, &mut g.triangles).map_err(|e| format!("{}: {e}", at()))?;
            let material = primitive.material();
            let slot = match (material.index(), walk.default_material) {
                (Some(i), _) => i as u32,
                (None, Some(default)) => default,
                (None, None) => {
                    g.materials.push(model_materials::gltf(
                        &material,
                        file.path,
                        file.buffers,
                        &mut g.dropped,
                    )?);
                    *walk.default_material.insert(g.materials.len() as u32 - 1)
                }
            };
            g.triangle_materials.resize(g.triangles.len(), slot);
        }
    }
    for child in node.children() {
        gltf_node(&child, world, file, g, walk, depth + 1)?;
    }
    Ok(())
}

/// A primitive's triangles by its mode, its indices shifted by `first`.
fn triangles(
    mode: gltf::mesh::Mode,
    indices: &[u32],
    first: u32,
    out: &mut Vec<[u32; 3]>,
) -> Result<(), String> {
    use gltf::mesh::Mode;
    let shift = |t: [u32; 3]| t.map(|i| i.saturating_add(first));
    match mode {
        Mode::Triangles => out.extend(indices.chunks_exact(3).map(|t| shift([t[0], t[1], t[2]]))),
        // Every other triangle of a strip is flipped back to keep the winding.
        Mode::TriangleStrip => out.extend(
            indices
                .windows(3)
                .enumerate()
                .map(|(i, t)| shift(if i % 2 == 0 { [t[0], t[1], t[2]] } else { [t[1], t[0], t[2]] })),
        ),
        Mode::TriangleFan => out.extend(indices.windows(2).skip(1).map(|p| shift([indices[0], p[0], p[1]]))),
        mode => return Err(format!("mode {mode:?} has no triangles")),
    }
    Ok(())
}

/// The vertices and triangles a walk of the node tree under `node` reads, added to
/// `counts`, from the accessors' counts alone (nothing is read): refused as soon as
/// they pass three vertices per triangle of `max_triangles`, or `max_triangles`. Every
/// node that places a mesh counts, so a tree that instances a mesh many times is
/// refused before memory is spent on it.
fn count_gltf(
    node: &gltf::Node<'_>,
    max_triangles: usize,
    counts: &mut [usize; 2],
    depth: usize,
) -> Result<(), String> {
    if depth >= MAX_GLTF_NODE_DEPTH {
        return Err(format!(
            "node {} is {depth} levels deep: the node graph loops or nests deeper than {MAX_GLTF_NODE_DEPTH}",
            node.index()
        ));
    }
    for primitive in node.mesh().iter().flat_map(|m| m.primitives()) {
        let vertices = primitive.get(&gltf::Semantic::Positions).map_or(0, |a| a.count());
        let corners = primitive.indices().map_or(vertices, |a| a.count());
        let made = match primitive.mode() {
            gltf::mesh::Mode::Triangles => corners / 3,
            _ => corners.saturating_sub(2),
        };
        counts[0] = counts[0].saturating_add(vertices);
        counts[1] = counts[1].saturating_add(made);
        let max_vertices = max_triangles.saturating_mul(3);
        if counts[0] > max_vertices {
            return Err(format!(
                "{} vertices, more than the {max_vertices} (three per triangle the format has room for) a model may have, counting every node that places a mesh",
                counts[0]
            ));
        }
        if counts[1] > max_triangles {
            return Err(
                too_many_triangles(counts[1], max_triangles) + ", counting every node that places a mesh"
            );
        }
    }
    for child in node.children() {
        count_gltf(&child, max_triangles, counts, depth + 1)?;
    }
    Ok(())
}
