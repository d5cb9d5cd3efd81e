//! Model files read into a [`MeshData`]: triangles in object space. OBJ through
//! `tobj`, PLY (ascii, binary little and big endian) through `ply-rs-bw`, glTF 2.0
//! (`.gltf` with its buffers, `.glb`, data URIs) through `gltf`, with what asset
//! pipelines such as gltfpack write (`KHR_mesh_quantization`: `gltf_primitive`;
//! `EXT_meshopt_compression` / `KHR_meshopt_compression`: `gltf_buffers`); polygons are
//! triangulated (OBJ, PLY as fans, glTF strips and fans as the spec says). The common
//! binary PLY layout is read in bulk (`ply_bulk`), the crate reading the header.
//!
//! What is read: positions, triangles, vertex normals (when every vertex has one),
//! texture coordinates and glTF tangents (OBJ: when every vertex has them; glTF: when
//! some primitive has them, the others' vertices given zeros), and the model's own
//! materials (glTF, OBJ's MTL) mapped to ours by `model_materials`, with a material
//! index per triangle.
//! A glTF file's node tree is walked twice: first to count, from the JSON alone, how
//! many nodes place each mesh (and the instances of `EXT_mesh_gpu_instancing`,
//! `gltf_instancing`), bounding triangles and instances before anything is read; then
//! to read. A mesh one node places is flattened with the node's world transform (a
//! mirroring one swaps each triangle's winding, so that the front face stays the file's);
//! a mesh several nodes place, or one with `EXT_mesh_gpu_instancing`, is read once in
//! its own space as a [`MeshData::instanced`] part with one placement per node and
//! instance.
//! Errors say what is wrong inside the file (which element, accessor or index); the
//! scene's validation puts them at the `file` value.
//!
//! Not here: placing a mesh in the world (`crate::meshes`, at compile time).

use std::cell::RefCell;
use std::io::{BufReader, Cursor, Seek};
use std::path::Path;

use glam::{Affine3A, Mat4, Vec2, Vec3, Vec4};
use ply_rs_bw::{parser, ply};
use rayon::prelude::*;

use super::model::{InstancedPart, MeshData, ModelMaterial};
use super::model_materials::{self, Dropped};
use super::{gltf_buffers, gltf_check, gltf_draco, gltf_instancing, gltf_primitive, obj_check, ply_bulk};
use crate::{files, find_first, limits, ranges};

/// Reads the model at `path`, by its extension, refusing a model of more than
/// `max_triangles` triangles (what the scene's meshes read before it left of the
/// format's limit; an instanced glTF mesh's count once) as soon as it is known to have
/// them: a glTF file's node tree is counted against it before anything is read.
pub fn read_within(path: &Path, max_triangles: usize) -> Result<MeshData, String> {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let mut g = match extension.as_deref() {
        Some("obj") => read_obj(path)?,
        Some("ply") => read_ply(path)?,
        Some("gltf" | "glb") => read_gltf(path, max_triangles)?,
        _ => return Err("unknown model format: use .obj, .ply, .gltf or .glb".into()),
    };
    let parts = std::mem::take(&mut g.parts);
    let stored = parts.iter().fold(g.triangles.len(), |n, p| n.saturating_add(p.geometry.triangles.len()));
    if stored > max_triangles {
        return Err(too_many_triangles(stored, max_triangles));
    }
    let instanced = parts
        .into_iter()
        .map(|p| {
            let geometry = model_data(path, p.geometry, true).map_err(|e| {
                format!("mesh {} (placed {} times, read once): {e}", p.mesh, p.placements.len())
            })?;
            Ok(InstancedPart { mesh: p.mesh, geometry, placements: p.placements })
        })
        .collect::<Result<Vec<_>, String>>()?;
    // A file whose every mesh is instanced has no triangles placed once.
    let mut data = model_data(path, g, instanced.is_empty())?;
    data.instanced = instanced;
    Ok(data)
}

/// `g` checked (`check`; without triangles only where `needs_triangles` is false), its
/// normals and tangents made unit, its texture coordinates kept when every vertex has
/// finite ones: the file's placed-once geometry, or one instanced part's.
fn model_data(path: &Path, g: Geometry, needs_triangles: bool) -> Result<MeshData, String> {
    check(&g.positions, &g.triangles, needs_triangles)?;
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
fn unit_normals(mut normals: Vec<Vec3>, vertices: usize) -> Result<Vec<Vec3>, String> {
    if normals.len() != vertices {
        return Ok(Vec::new());
    }
    // On all cores, the first bad one named: a 21M-triangle model has 10M normals.
    if let Some(i) = find_first::position(&normals, |n| n.try_normalize().is_none()) {
        return Err(format!("vertex {i} has a normal {} of no direction", normals[i]));
    }
    normals.par_iter_mut().for_each(|n| *n = n.normalize());
    Ok(normals)
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

/// What the compiler needs of every model: some triangles (unless `needs_triangles` is
/// false: a glTF file's placed-once geometry beside instanced meshes), within the
/// format's limits, indices in range, finite positions, and no triangle without area.
fn check(positions: &[Vec3], triangles: &[[u32; 3]], needs_triangles: bool) -> Result<(), String> {
    if needs_triangles && triangles.is_empty() {
        return Err("the model has no triangles".into());
    }
    if triangles.len() > limits::MAX_TRIANGLES {
        return Err(format!(
            "{} triangles, more than the format's {}",
            triangles.len(),
            limits::MAX_TRIANGLES
        ));
    }
    // On all cores, the first bad vertex and triangle named as a loop would: at 21M
    // triangles this was a quarter of a second of one core.
    if let Some(i) = find_first::position(positions, |p| !p.is_finite()) {
        return Err(format!("vertex {i} has a non-finite coordinate {}", positions[i]));
    }
    let problem = |tri: &[u32; 3]| {
        if let Some(&bad) = tri.iter().find(|&&i| i as usize >= positions.len()) {
            return Some(format!("names vertex {bad}, but the model has {}", positions.len()));
        }
        let [a, b, c] = tri.map(|i| positions[i as usize]);
        ((b - a).cross(c - a) == Vec3::ZERO).then(|| format!("(vertices {tri:?}) has no area"))
    };
    match find_first::problem(triangles, problem) {
        Some((t, problem)) => Err(format!("triangle {t} {problem}")),
        None => Ok(()),
    }
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
    /// A glTF file's instanced meshes (`read_gltf`); none for other formats.
    parts: Vec<Part>,
}

/// A glTF mesh that several nodes place, or `EXT_mesh_gpu_instancing` does: its
/// geometry read once in its own space (`triangle_materials` index the file's
/// materials; its own `materials` are empty), and one transform per placement.
struct Part {
    /// Its index in the file, for errors.
    mesh: usize,
    geometry: Geometry,
    placements: Vec<Affine3A>,
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
    let (file, len) = files::open_input(path, limits::MAX_INPUT_BYTES).map_err(|e| e.to_string())?;
    let mut reader = parser::Reader::new(BufReader::new(file));
    let header = parser::Parser::<PlyVertex>::new()
        .read_header(&mut reader)
        .map_err(|e| format!("not a PLY file: {e}"))?;
    super::ply_elements::check_counts(&header, len)?;
    let header_len = reader.get_mut().stream_position().map_err(|e| e.to_string())?;
    let no_materials = "a PLY file has no materials".to_string();
    if let Some(bulk) = ply_bulk::read(reader.get_ref().get_ref(), len, header_len, &header)? {
        let ply_bulk::Bulk { positions, normals, triangles } = bulk;
        return Ok(Geometry { positions, normals, triangles, no_materials, ..Geometry::default() });
    }
    let mut g = read_ply_payload(&mut reader, &header)?;
    g.no_materials = no_materials;
    Ok(g)
}

/// The payload after `header`, read by the crate element by element: any PLY layout.
fn read_ply_payload<R: std::io::BufRead>(
    reader: &mut parser::Reader<R>,
    header: &ply::Header,
) -> Result<Geometry, String> {
    let vertex_parser = parser::Parser::<PlyVertex>::new();
    let face_parser = parser::Parser::<PlyFace>::new();
    let mut g = Geometry::default();
    let mut faces = Vec::new();
    // Elements come in header order; others (edges, materials) are read and dropped.
    for element in header.elements.values() {
        let what = |e: ply_rs_bw::parser::ParseError| format!("element `{}`: {e}", element.name);
        match element.name.as_str() {
            "vertex" => {
                let vertices =
                    vertex_parser.read_payload_for_element(reader, element, header).map_err(what)?;
                if vertices.iter().all(|v| v.2 == 3) {
                    g.normals = vertices.iter().map(|v| v.1).collect();
                }
                g.positions = vertices.into_iter().map(|v| v.0).collect();
            }
            "face" => faces = face_parser.read_payload_for_element(reader, element, header).map_err(what)?,
            _ => {
                vertex_parser.read_payload_for_element(reader, element, header).map_err(what)?;
            }
        }
    }
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
    let mut uses = Uses::new(&document);
    for node in scene.nodes() {
        count_gltf(&node, &document, &mut uses, 0)?;
    }
    uses.within(&document, max_triangles)?;
    let buffers = gltf_buffers::load(&document, folder, blob)?;
    let lengths: Vec<usize> = buffers.iter().map(|b| b.0.len()).collect();
    let file = GltfFile { path, document: &document, buffers: &buffers, lengths: &lengths };
    // Every material of the document (primitives name them by index); glTF's default
    // material is appended when a primitive names none.
    let mut materials = FileMaterials::default();
    for material in document.materials() {
        materials.list.push(model_materials::gltf(&material, path, &buffers, &mut materials.dropped)?);
    }
    let mut walk = GltfWalk {
        file,
        uses,
        materials,
        flat: Gathering::default(),
        parts: Vec::new(),
        part_of_mesh: vec![None; document.meshes().len()],
    };
    for node in scene.nodes() {
        walk.node(&node, Mat4::IDENTITY, 0)?;
    }
    let mut g = walk.flat.finish();
    g.materials = walk.materials.list;
    g.dropped = walk.materials.dropped;
    // A mesh whose primitives make no triangles (all of them too short) places nothing.
    g.parts = walk
        .parts
        .into_iter()
        .map(|(mesh, gathering, placements)| Part { mesh, geometry: gathering.finish(), placements })
        .filter(|p| !p.geometry.triangles.is_empty())
        .collect();
    Ok(g)
}

/// One geometry being read from glTF primitives (the nodes' meshes placed once, or one
/// instanced mesh), with what its walk learns across them: whether every one had
/// normals, whether some had texture coordinates or tangents. A primitive without
/// texture coordinates or tangents in a geometry where others have them gets (0, 0) and
/// a zero tangent (its face's, `tangents::of_mesh`) at each vertex: gltfpack drops
/// TEXCOORD_0 and TANGENT from primitives whose material samples no texture, and
/// Blender exports meshes without UVs beside meshes with them.
struct Gathering {
    g: Geometry,
    every_normal: bool,
    some_uv: bool,
    some_tangent: bool,
}

impl Default for Gathering {
    fn default() -> Self {
        Gathering { g: Geometry::default(), every_normal: true, some_uv: false, some_tangent: false }
    }
}

impl Gathering {
    /// The geometry, without the normals, texture coordinates or tangents the walk
    /// found it cannot have.
    fn finish(mut self) -> Geometry {
        if !self.every_normal {
            self.g.normals.clear();
        }
        if !self.some_uv {
            self.g.uvs.clear();
        }
        if !self.some_tangent {
            self.g.tangents.clear();
        }
        self.g
    }
}

/// The file's materials as a walk collects them: the document's, then glTF's default
/// material (its index once a primitive without one needs it).
#[derive(Default)]
struct FileMaterials {
    list: Vec<ModelMaterial>,
    dropped: Dropped,
    default: Option<u32>,
}

/// What every node of a glTF walk reads from.
struct GltfFile<'a> {
    path: &'a Path,
    document: &'a gltf::Document,
    buffers: &'a [gltf::buffer::Data],
    /// The loaded buffers' lengths, for the accessor checks.
    lengths: &'a [usize],
}

/// The second walk of the node tree, which reads: meshes that one node places are
/// flattened into `flat` with the node's world transform; the others are read once
/// into `parts` (mesh index, geometry, placements), in the order the walk first meets
/// them, `part_of_mesh` saying where each went.
struct GltfWalk<'a> {
    file: GltfFile<'a>,
    uses: Uses,
    materials: FileMaterials,
    flat: Gathering,
    parts: Vec<(usize, Gathering, Vec<Affine3A>)>,
    part_of_mesh: Vec<Option<usize>>,
}

/// Deepest glTF node hierarchy read: deeper is a loop (a node that is its own
/// ancestor) or a hostile file, and would overflow the stack.
const MAX_GLTF_NODE_DEPTH: usize = 256;

fn too_deep(node: &gltf::Node<'_>, depth: usize) -> Result<(), String> {
    if depth >= MAX_GLTF_NODE_DEPTH {
        return Err(format!(
            "node {} is {depth} levels deep: the node graph loops or nests deeper than {MAX_GLTF_NODE_DEPTH}",
            node.index()
        ));
    }
    Ok(())
}

impl GltfWalk<'_> {
    /// Reads `node`'s mesh (under `parent`'s transform) and its children's.
    fn node(&mut self, node: &gltf::Node<'_>, parent: Mat4, depth: usize) -> Result<(), String> {
        too_deep(node, depth)?;
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            if self.uses.instanced(mesh.index()) {
                self.place(node, &mesh, world)?;
            } else {
                mesh_primitives(&mesh, world, &self.file, &mut self.flat, &mut self.materials)?;
            }
        }
        for child in node.children() {
            self.node(&child, world, depth + 1)?;
        }
        Ok(())
    }

    /// Adds `node`'s placements of its instanced `mesh` (`world`, times each
    /// `EXT_mesh_gpu_instancing` instance's transform), reading the mesh the first time.
    fn place(&mut self, node: &gltf::Node<'_>, mesh: &gltf::Mesh<'_>, world: Mat4) -> Result<(), String> {
        let part = match self.part_of_mesh[mesh.index()] {
            Some(part) => part,
            None => {
                let mut gathering = Gathering::default();
                mesh_primitives(mesh, Mat4::IDENTITY, &self.file, &mut gathering, &mut self.materials)?;
                self.parts.push((mesh.index(), gathering, Vec::new()));
                *self.part_of_mesh[mesh.index()].insert(self.parts.len() - 1)
            }
        };
        let placements = &mut self.parts[part].2;
        match gltf_instancing::of_node(node, self.file.document)? {
            None => placements.push(placement(world).map_err(|e| format!("node {}: {e}", node.index()))?),
            Some(instances) => {
                let transforms =
                    instances.transforms(self.file.document, self.file.buffers, self.file.lengths)?;
                for (i, t) in transforms.into_iter().enumerate() {
                    placements.push(placement(world * t).map_err(|e| {
                        format!("node {}'s {} instance {i}: {e}", node.index(), gltf_instancing::NAME)
                    })?);
                }
            }
        }
        Ok(())
    }
}

/// An instanced mesh's placement: finite, and invertible in f32 (the renderers take rays
/// into the mesh's space; `ranges::placement_invertible`).
fn placement(m: Mat4) -> Result<Affine3A, String> {
    let a = Affine3A::from_mat4(m);
    if !a.is_finite() {
        return Err(format!("its world transform {m} is not finite"));
    }
    if a.matrix3.determinant() == 0.0 || !a.inverse().is_finite() {
        return Err(format!("its world transform {m} flattens the mesh (it cannot be inverted)"));
    }
    if !ranges::placement_invertible(&a) {
        return Err(format!(
            "its world transform {m} stretches the mesh too unevenly for 32-bit floats to undo (the renderers take rays into the mesh's space)"
        ));
    }
    Ok(a)
}

/// Adds `mesh`'s primitives, placed by `world`, to `out`; their triangles' materials are
/// indices into the file's `materials` (glTF's default appended the first time a
/// primitive needs it).
fn mesh_primitives(
    mesh: &gltf::Mesh<'_>,
    world: Mat4,
    file: &GltfFile<'_>,
    out: &mut Gathering,
    materials: &mut FileMaterials,
) -> Result<(), String> {
    // Normals go through the inverse transpose, so a non-uniform scale keeps them normal;
    // tangents lie on the surface and turn with it (its linear part), their bitangent
    // sign flipped where the node mirrors (`tangents::to_world`). A mirroring transform
    // also turns each triangle's winding (glTF: the determinant's sign decides it), so
    // its vertices are swapped to keep the geometric normal on the side the file's front
    // face is.
    let linear = glam::Mat3::from_mat4(world);
    let normal_matrix = linear.inverse().transpose();
    let mirrors = linear.determinant() < 0.0;
    let g = &mut out.g;
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
            None => out.every_normal = false,
        }
        out.some_uv |= v.uvs.is_some();
        g.uvs.extend(v.uvs.unwrap_or_else(|| vec![Vec2::ZERO; count]));
        out.some_tangent |= v.tangents.is_some();
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
        let before = g.triangles.len();
        triangles(mode, &indices, first, &mut g.triangles).map_err(|e| format!("{}: {e}", at()))?;
        if mirrors {
            g.triangles[before..].iter_mut().for_each(|t| t.swap(1, 2));
        }
        let material = primitive.material();
        let slot = match (material.index(), materials.default) {
            (Some(i), _) => i as u32,
            (None, Some(default)) => default,
            (None, None) => {
                materials.list.push(model_materials::gltf(
                    &material,
                    file.path,
                    file.buffers,
                    &mut materials.dropped,
                )?);
                *materials.default.insert(materials.list.len() as u32 - 1)
            }
        };
        g.triangle_materials.resize(g.triangles.len(), slot);
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

/// How the scene's nodes place each glTF mesh (indexed by mesh), from a first walk of
/// the node tree ([`count_gltf`]; nothing is read): how many nodes place it, whether
/// one of them has `EXT_mesh_gpu_instancing`, and how many placements they make (a node
/// one, or its instances).
struct Uses {
    nodes: Vec<usize>,
    gpu: Vec<bool>,
    placements: Vec<usize>,
}

impl Uses {
    fn new(document: &gltf::Document) -> Self {
        let meshes = document.meshes().len();
        Uses { nodes: vec![0; meshes], gpu: vec![false; meshes], placements: vec![0; meshes] }
    }

    /// Whether `mesh` is read once and placed as instances (placed by several nodes, or
    /// by one with `EXT_mesh_gpu_instancing`), not flattened with its node's transform.
    fn instanced(&self, mesh: usize) -> bool {
        self.nodes[mesh] >= 2 || self.gpu[mesh]
    }

    /// The file's size from its accessors' counts alone, before anything is read: every
    /// mesh a node places counts its vertices and triangles once, however many nodes
    /// place it (an instanced one is stored once), refused past three vertices per
    /// triangle of `max_triangles`, or `max_triangles`; the instanced meshes' placements
    /// together at most [`limits::MAX_INSTANCES`].
    fn within(&self, document: &gltf::Document, max_triangles: usize) -> Result<(), String> {
        let placements = (0..self.nodes.len())
            .filter(|&m| self.instanced(m))
            .fold(0usize, |n, m| n.saturating_add(self.placements[m]));
        if placements > limits::MAX_INSTANCES {
            return Err(format!(
                "{placements} instances of meshes placed more than once (by several nodes or {}), more than the format's {}",
                gltf_instancing::NAME,
                limits::MAX_INSTANCES
            ));
        }
        let (mut vertices, mut made) = (0usize, 0usize);
        let placed = document.meshes().filter(|m| self.nodes[m.index()] > 0);
        for primitive in placed.flat_map(|m| m.primitives()) {
            let count = primitive.get(&gltf::Semantic::Positions).map_or(0, |a| a.count());
            let corners = primitive.indices().map_or(count, |a| a.count());
            vertices = vertices.saturating_add(count);
            made = made.saturating_add(match primitive.mode() {
                gltf::mesh::Mode::Triangles => corners / 3,
                _ => corners.saturating_sub(2),
            });
        }
        let max_vertices = max_triangles.saturating_mul(3);
        if vertices > max_vertices {
            return Err(format!(
                "{vertices} vertices, more than the {max_vertices} (three per triangle the format has room for) a model may have, counting each placed mesh once"
            ));
        }
        if made > max_triangles {
            return Err(too_many_triangles(made, max_triangles) + ", counting each placed mesh once");
        }
        Ok(())
    }
}

/// Adds to `uses` how the node tree under `node` places meshes, from the file's JSON
/// alone (an `EXT_mesh_gpu_instancing` node's accessors' count, not their data).
fn count_gltf(
    node: &gltf::Node<'_>,
    document: &gltf::Document,
    uses: &mut Uses,
    depth: usize,
) -> Result<(), String> {
    too_deep(node, depth)?;
    if let Some(mesh) = node.mesh() {
        let m = mesh.index();
        let instances = gltf_instancing::of_node(node, document)?;
        uses.nodes[m] += 1;
        uses.gpu[m] |= instances.is_some();
        uses.placements[m] = uses.placements[m].saturating_add(instances.map_or(1, |i| i.count()));
    }
    for child in node.children() {
        count_gltf(&child, document, uses, depth + 1)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Seek;

    use ply_rs_bw::parser;
    use serde_json::json;

    /// A binary little-endian PLY of `vertices` vertices with the float properties
    /// `properties` (values made up from the vertex and property numbers) and `faces`
    /// faces of `list uchar {index}` (`faces[i]` lists its vertices), after `extra`
    /// header lines.
    fn ply(properties: &[&str], vertices: usize, index: &str, faces: &[Vec<i64>], extra: &str) -> Vec<u8> {
        let mut out = format!("ply\nformat binary_little_endian 1.0\n{extra}element vertex {vertices}\n");
        for p in properties {
            out += &format!("property float {p}\n");
        }
        out += &format!(
            "element face {}\nproperty list uchar {index} vertex_indices\nend_header\n",
            faces.len()
        );
        let mut bytes = out.into_bytes();
        for v in 0..vertices {
            for p in 0..properties.len() {
                bytes.extend(((v * 7 + p) as f32 * 0.37 - 100.0).sin().to_le_bytes());
            }
        }
        for face in faces {
            bytes.push(face.len() as u8);
            for &i in face {
                bytes.extend((i as u32).to_le_bytes());
            }
        }
        bytes
    }

    /// `bytes` with the first `from` replaced by `to`.
    fn replaced(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
        let at = bytes.windows(from.len()).position(|w| w == from.as_bytes()).expect("found");
        [&bytes[..at], to.as_bytes(), &bytes[at + from.len()..]].concat()
    }

    /// `path` read by the crate alone (the path every other layout takes) and in bulk.
    fn both_ways(path: &std::path::Path) -> (super::Geometry, Option<super::ply_bulk::Bulk>) {
        let file = std::fs::File::open(path).expect("open");
        let len = file.metadata().expect("metadata").len();
        let mut reader = parser::Reader::new(std::io::BufReader::new(file));
        let header = parser::Parser::<super::PlyVertex>::new().read_header(&mut reader).expect("header");
        let at = reader.get_mut().stream_position().expect("position");
        let bulk = super::ply_bulk::read(reader.get_ref().get_ref(), len, at, &header).expect("bulk read");
        (super::read_ply_payload(&mut reader, &header).expect("crate read"), bulk)
    }

    fn bits(v: &[glam::Vec3]) -> Vec<[u32; 3]> {
        v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
    }

    /// The bulk reader gives what the crate gives, bit for bit, across many tasks'
    /// pieces: positions and normals among other properties in any order, signed
    /// indices (a negative one kept as `u32::MAX`) and unsigned ones; a face that is
    /// not a triangle leaves the file to the crate.
    #[test]
    fn bulk_ply_reads_as_the_crate_does() {
        let dir = tempfile::tempdir().expect("temp dir");
        let n = 100_003;
        let mut faces: Vec<Vec<i64>> =
            (0..n as i64).map(|i| vec![i, (i * 31 + 1) % n as i64, (i * 17 + 2) % n as i64]).collect();
        faces[5][1] = -3;
        let cases = [
            (vec!["nz", "x", "quality", "y", "nx", "z", "ny"], "int", true),
            (vec!["x", "y", "z", "nx", "ny"], "uint", false),
        ];
        for (properties, index, normals) in cases {
            let path = dir.path().join(format!("{index}.ply"));
            std::fs::write(&path, ply(&properties, n, index, &faces, "comment made by a test\n"))
                .expect("write");
            let (crate_read, bulk) = both_ways(&path);
            let bulk = bulk.expect("this layout is read in bulk");
            assert_eq!(bits(&bulk.positions), bits(&crate_read.positions), "{index}");
            assert_eq!(bits(&bulk.normals), bits(&crate_read.normals), "{index}");
            assert_eq!(bulk.normals.is_empty(), !normals);
            assert_eq!(bulk.triangles, crate_read.triangles, "{index}");
        }
        assert_eq!(super::read_ply(&dir.path().join("int.ply")).expect("read").triangles[5][1], u32::MAX);
        let mut with_quad = faces.clone();
        with_quad[n - 1] = vec![0, 1, 2, 3];
        let path = dir.path().join("quad.ply");
        std::fs::write(&path, ply(&["x", "y", "z"], n, "int", &with_quad, "")).expect("write");
        let (crate_read, bulk) = both_ways(&path);
        assert!(bulk.is_none(), "a quad is the crate's to triangulate");
        assert_eq!(crate_read.triangles.len(), n + 1);
        assert_eq!(super::read_ply(&path).expect("read").triangles, crate_read.triangles);
    }

    /// Truncated payloads and headers that claim more than the file holds are errors
    /// (the crate's), never a panic nor an allocation of what the header claims.
    #[test]
    fn truncated_or_hostile_binary_ply_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let faces = vec![vec![0, 1, 2]; 10];
        let whole = ply(&["x", "y", "z"], 3, "int", &faces, "");
        let path = dir.path().join("m.ply");
        // The payload is 3 * 12 + 10 * 13 bytes: cuts in a face, between two, in the vertices.
        for cut in [1, 13, 14, 150] {
            std::fs::write(&path, &whole[..whole.len() - cut]).expect("write");
            let error = super::read_ply(&path).err().expect("a truncated file is an error");
            assert!(error.contains("element `face`") || error.contains("element `vertex`"), "{error}");
        }
        std::fs::write(&path, replaced(&whole, "element vertex 3\n", "element vertex 4000000000\n"))
            .expect("write");
        let error = super::read_ply(&path).err().expect("a header that claims 4e9 vertices");
        assert!(error.contains("element `vertex`"), "{error}");
        let claims = replaced(&whole, "element face 10\n", "element face 18446744073709551615\n");
        std::fs::write(&path, claims).expect("write");
        assert!(super::read_ply(&path).is_err(), "a header that claims 2^64 - 1 faces");
    }

    /// A glTF of `meshes` meshes, each of the same 10 separate triangles, placed by
    /// `nodes` nodes (node i places mesh i % meshes), written into `dir`.
    fn write(dir: &std::path::Path, meshes: usize, nodes: usize) -> std::path::PathBuf {
        let positions: Vec<f32> = (0..10)
            .flat_map(|t| [t as f32, 0.0, 0.0, t as f32 + 1.0, 0.0, 0.0, t as f32, 1.0, 0.0])
            .collect();
        let bin: Vec<u8> = positions.iter().flat_map(|f| f.to_le_bytes()).collect();
        std::fs::write(dir.join("m.bin"), &bin).expect("write buffer");
        let mesh = json!({"primitives": [{"attributes": {"POSITION": 0}}]});
        let gltf = json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": (0..nodes).collect::<Vec<_>>()}],
            "nodes": (0..nodes).map(|i| json!({"mesh": i % meshes, "translation": [0, 0, i]})).collect::<Vec<_>>(),
            "meshes": vec![mesh; meshes],
            "buffers": [{"uri": "m.bin", "byteLength": bin.len()}],
            "bufferViews": [{"buffer": 0, "byteLength": bin.len()}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 30, "type": "VEC3",
                           "min": [0, 0, 0], "max": [10, 1, 0]}]
        });
        let path = dir.join("m.gltf");
        std::fs::write(&path, gltf.to_string()).expect("write glTF");
        path
    }

    /// A 10-triangle mesh placed by 1000 nodes is stored once: it fits a limit of 100
    /// triangles (each node's copy counted, it would be 10 000). Flattened meshes count
    /// each: 11 of them pass 100, before anything is read.
    #[test]
    fn an_instanced_mesh_counts_its_triangles_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = write(dir.path(), 1, 1000);
        let data = super::read_within(&path, 100).expect("10 triangles stored once fit 100");
        assert!(data.triangles.is_empty());
        assert_eq!(data.stored_triangles(), 10);
        assert_eq!(data.instanced[0].placements.len(), 1000);
        let refused = super::read_within(&path, 9).expect_err("10 triangles do not fit 9");
        assert!(refused.contains("30 vertices, more than the 27"), "{refused}");
        let path = write(dir.path(), 11, 11);
        let refused = super::read_within(&path, 100).expect_err("11 flattened meshes of 10 triangles");
        assert!(
            refused.contains("330 vertices") && refused.contains("counting each placed mesh once"),
            "{refused}"
        );
        assert!(super::read_within(&path, 110).expect("110 fit 110").instanced.is_empty());
    }
}
