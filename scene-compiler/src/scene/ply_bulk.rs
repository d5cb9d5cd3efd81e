//! Binary little-endian PLY payloads read in bulk: the layout that `scene-gen mesh`,
//! Blender and most scanners write (a `vertex` element of `float` properties, then a
//! `face` element of one `list uchar int` or `list uchar uint` of vertex indices, every
//! face a triangle), read straight into the positions, normals and triangles on every
//! core, without the crate's per-element property calls and per-face vectors. At 5M
//! triangles that took the crate 0.9 s of one core on the 2-core dev machine.
//!
//! The header is the crate's (`mesh_file::read_ply` reads it); any other layout, a
//! payload shorter than its header says, or a face that is not a triangle gives `None`
//! and the crate reads the file, so errors and results stay the crate's. The result
//! is the crate path's, bit for bit (a test holds them together).
//!
//! Not here: checking the geometry (`mesh_file::check`, which both paths go through).

use std::fs::File;

use glam::Vec3;
use ply_rs_bw::ply::{ElementDef, Encoding, Header, PropertyType, ScalarType};
use rayon::prelude::*;

/// Vertices or faces per task: a few hundred KB of the file each.
pub(super) const PER_TASK: usize = 1 << 15;
/// Bytes of a triangle in the face element: a `uchar` count of 3, three 4-byte indices.
const FACE_BYTES: usize = 13;

/// A model's geometry read in bulk: normals one per position, or none.
pub(super) struct Bulk {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

/// Where a `vertex` element's values are, in 4-byte floats from the start of a vertex.
struct VertexLayout {
    floats: usize,
    position: [usize; 3],
    normal: Option<[usize; 3]>,
}

/// The file's geometry when its payload has the layout this reads, else `None` (the
/// crate reads it). `header` is the crate's reading of the header that ends at byte
/// `header_len` of `file`, which is `file_len` bytes long.
pub(super) fn read(
    file: &File,
    file_len: u64,
    header_len: u64,
    header: &Header,
) -> Result<Option<Bulk>, String> {
    let Some((vertex, face, signed)) = layout(header) else { return Ok(None) };
    // Counts from the header are held against the file's length before anything is
    // allocated for them: a hostile header cannot ask for more memory than the file has.
    let vertex_bytes = vertex.count.checked_mul(4 * vertex.layout.floats);
    let face_bytes = face.checked_mul(FACE_BYTES);
    let fits = vertex_bytes.zip(face_bytes).and_then(|(v, f)| v.checked_add(f)).and_then(|n| {
        let n = u64::try_from(n).ok()?;
        (header_len.checked_add(n)? <= file_len).then_some(())
    });
    if fits.is_none() {
        return Ok(None);
    }
    let (positions, normals) = read_vertices(file, header_len, &vertex)?;
    let faces_at = header_len + (vertex.count * 4 * vertex.layout.floats) as u64;
    let Some(triangles) = read_triangles(file, faces_at, face, signed)? else { return Ok(None) };
    Ok(Some(Bulk { positions, normals, triangles }))
}

/// The `vertex` element: how many, and where its values are.
struct Vertices {
    count: usize,
    layout: VertexLayout,
}

/// The vertex element, the face count and whether indices are signed, when the file
/// is binary little endian with exactly a `vertex` element of `float` properties
/// (with `x`, `y`, `z`) and then a `face` element of one `list uchar int|uint` of
/// `vertex_indices` (or `vertex_index`).
fn layout(header: &Header) -> Option<(Vertices, usize, bool)> {
    if header.encoding != Encoding::BinaryLittleEndian || header.elements.len() != 2 {
        return None;
    }
    let (vertex, face) = (&header.elements[0], &header.elements[1]);
    if vertex.name != "vertex" || face.name != "face" {
        return None;
    }
    let layout = vertex_layout(vertex)?;
    let signed = match face.properties.values().map(|p| (p.name.as_str(), &p.data_type)).collect::<Vec<_>>()[..]
    {
        [("vertex_indices" | "vertex_index", PropertyType::List(ScalarType::UChar, index))] => match index {
            ScalarType::Int => true,
            ScalarType::UInt => false,
            _ => return None,
        },
        _ => return None,
    };
    Some((Vertices { count: vertex.count, layout }, face.count, signed))
}

/// Where `x y z` and `nx ny nz` (all three, else no normals, as the crate path has it)
/// are among a vertex's floats, when every property is a `float`.
fn vertex_layout(vertex: &ElementDef) -> Option<VertexLayout> {
    let properties = &vertex.properties;
    if !properties.values().all(|p| p.data_type == PropertyType::Scalar(ScalarType::Float)) {
        return None;
    }
    let at = |name: &str| properties.get_index_of(name);
    let position = [at("x")?, at("y")?, at("z")?];
    let normal = [at("nx"), at("ny"), at("nz")];
    let normal = normal.iter().all(Option::is_some).then(|| normal.map(|i| i.unwrap_or_default()));
    Some(VertexLayout { floats: properties.len(), position, normal })
}

/// Reads the vertex payload at `at`: positions, and normals when the layout has them.
fn read_vertices(file: &File, at: u64, vertices: &Vertices) -> Result<(Vec<Vec3>, Vec<Vec3>), String> {
    let layout = &vertices.layout;
    let stride = 4 * layout.floats;
    let mut positions = vec![Vec3::ZERO; vertices.count];
    let mut normals = vec![Vec3::ZERO; if layout.normal.is_some() { vertices.count } else { 0 }];
    // A task per piece of the payload: without normals, its normals' part is empty.
    let normal_parts = normals.chunks_mut(PER_TASK).map(Some).chain(std::iter::repeat_with(|| None));
    let parts: Vec<(&mut [Vec3], Option<&mut [Vec3]>)> =
        positions.chunks_mut(PER_TASK).zip(normal_parts).collect();
    parts.into_par_iter().enumerate().try_for_each(|(task, (positions, normals))| {
        let bytes = read_at(file, at + (task * PER_TASK * stride) as u64, positions.len() * stride)?;
        let float =
            |v: &[u8], i: usize| f32::from_le_bytes([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]]);
        let vec3 = |v: &[u8], [x, y, z]: [usize; 3]| Vec3::new(float(v, x), float(v, y), float(v, z));
        for (p, v) in positions.iter_mut().zip(bytes.chunks_exact(stride)) {
            *p = vec3(v, layout.position);
        }
        if let (Some(normals), Some(axes)) = (normals, layout.normal) {
            for (n, v) in normals.iter_mut().zip(bytes.chunks_exact(stride)) {
                *n = vec3(v, axes);
            }
        }
        Ok::<(), String>(())
    })?;
    Ok((positions, normals))
}

/// Reads `count` faces at `at` as triangles, or `None` when one of them is not a
/// triangle (the crate path triangulates it, or says why it cannot). A negative index
/// becomes `u32::MAX`, as on the crate path, so the range check names it.
fn read_triangles(file: &File, at: u64, count: usize, signed: bool) -> Result<Option<Vec<[u32; 3]>>, String> {
    let mut triangles = vec![[0u32; 3]; count];
    let all_triangles = triangles.par_chunks_mut(PER_TASK).enumerate().try_fold(
        || true,
        |all, (task, triangles)| {
            let bytes =
                read_at(file, at + (task * PER_TASK * FACE_BYTES) as u64, triangles.len() * FACE_BYTES)?;
            let index = |b: &[u8]| {
                let bits = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                if signed && (bits as i32) < 0 { u32::MAX } else { bits }
            };
            let mut these = true;
            for (t, face) in triangles.iter_mut().zip(bytes.chunks_exact(FACE_BYTES)) {
                these &= face[0] == 3;
                *t = [index(&face[1..5]), index(&face[5..9]), index(&face[9..13])];
            }
            Ok::<bool, String>(all && these)
        },
    );
    let all_triangles = all_triangles.try_reduce(|| true, |a, b| Ok(a && b))?;
    Ok(all_triangles.then_some(triangles))
}

/// `len` bytes of `file` from `offset`.
pub(super) fn read_at(file: &File, offset: u64, len: usize) -> Result<Vec<u8>, String> {
    let mut bytes = vec![0u8; len];
    crate::files::read_exact_at(file, offset, &mut bytes)
        .map_err(|e| format!("cannot read the payload: {e}"))?;
    Ok(bytes)
}
