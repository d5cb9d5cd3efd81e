//! Vertex tangents for normal maps (docs/path-tracing.md, "Normal maps"): a mesh's own
//! (glTF `TANGENT`, read by `scene/mesh_file.rs`) or, for a mesh with texture
//! coordinates and none, MikkTSpace's (`bevy_mikktspace`, byte-identical to the C
//! reference that Blender bakes against), and the per-face tangent a triangle without
//! either gets. A tangent is glTF's: xyz unit, w the sign of the bitangent
//! `w · (n × t)`, which points up the image (towards decreasing v, ours and glTF's).
//!
//! Only meshes with a normal-mapped triangle pay for any of it (`crate::meshes` asks).
//!
//! Not here: placing them in the world (`crate::meshes`), the blob section
//! (`blob/write.rs`), using them (the renderer's `cpu/shapes/triangle.rs`,
//! kernels/shape_triangle.cuh).

use glam::{Affine3A, Vec2, Vec3, Vec4, Vec4Swizzles};

use crate::scene::MeshData;

/// Each triangle's three vertex tangents in the model's space: the file's when it has
/// them, else MikkTSpace's when it has texture coordinates, else none. A corner left
/// without one (a file's tangent of no direction, which `scene/mesh_file.rs` keeps as
/// zero; a degenerate face MikkTSpace cannot give one) gets its face's ([`face_tangent`]).
pub fn of_mesh(data: &MeshData) -> Option<Vec<[Vec4; 3]>> {
    let mut corners = if !data.tangents.is_empty() {
        data.triangles.iter().map(|t| t.map(|i| data.tangents[i as usize])).collect()
    } else if !data.uvs.is_empty() {
        mikktspace(data)
    } else {
        return None;
    };
    for (corners, t) in corners.iter_mut().zip(&data.triangles) {
        if corners.contains(&Vec4::ZERO) {
            let uvs = (!data.uvs.is_empty()).then(|| t.map(|i| data.uvs[i as usize]));
            let face = face_tangent(t.map(|i| data.positions[i as usize]), uvs);
            for c in corners.iter_mut().filter(|c| **c == Vec4::ZERO) {
                *c = face;
            }
        }
    }
    Some(corners)
}

/// MikkTSpace over every triangle of the model (as Blender computes them over a whole
/// mesh, whichever materials its faces have), with the file's normals (the face's
/// without them). MikkTSpace's bitangent follows its second texture coordinate up, as
/// Blender's v runs: it is given `1 - v`, so its sign is already ours. A corner it
/// leaves without a tangent (a degenerate face with no neighbour to borrow from) is zero.
///
/// # Panics
///
/// If the mesh has no texture coordinates.
pub fn mikktspace(data: &MeshData) -> Vec<[Vec4; 3]> {
    assert_eq!(data.uvs.len(), data.positions.len(), "MikkTSpace needs texture coordinates");
    let mut mesh = Mikk { data, out: vec![[Vec4::ZERO; 3]; data.triangles.len()] };
    // The crate declares no error yet; one would leave corners zero, as a degenerate face.
    let _ = bevy_mikktspace::generate_tangents(&mut mesh);
    mesh.out
}

/// The bevy_mikktspace interface over a mesh with texture coordinates.
struct Mikk<'a> {
    data: &'a MeshData,
    /// Per triangle, each corner's tangent (zero until MikkTSpace sets it).
    out: Vec<[Vec4; 3]>,
}

impl Mikk<'_> {
    fn vertex(&self, face: usize, vert: usize) -> usize {
        self.data.triangles[face][vert] as usize
    }
}

impl bevy_mikktspace::Geometry for Mikk<'_> {
    fn num_faces(&self) -> usize {
        self.data.triangles.len()
    }

    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }

    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        self.data.positions[self.vertex(face, vert)].to_array()
    }

    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        if self.data.normals.is_empty() {
            let [a, b, c] = self.data.triangles[face].map(|i| self.data.positions[i as usize]);
            (b - a).cross(c - a).normalize_or_zero().to_array()
        } else {
            self.data.normals[self.vertex(face, vert)].to_array()
        }
    }

    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        let uv = self.data.uvs[self.vertex(face, vert)];
        [uv.x, 1.0 - uv.y]
    }

    fn set_tangent(&mut self, tangent: Option<bevy_mikktspace::TangentSpace>, face: usize, vert: usize) {
        if let Some(t) = tangent.and_then(|t| MeshData::unit_tangent(Vec4::from_array(t.tangent_encoded()))) {
            self.out[face][vert] = t;
        }
    }
}

/// The tangent a triangle's texture coordinates give it as a whole (the renderers' frame
/// for a triangle without vertex tangents, `dpduv`): dP/du made orthogonal to the face,
/// w so that the bitangent points where v decreases; without coordinates (or with
/// degenerate ones) its barycentrics' (u along the first edge, v along the second).
pub fn face_tangent(v: [Vec3; 3], uvs: Option<[Vec2; 3]>) -> Vec4 {
    let (e1, e2) = (v[1] - v[0], v[2] - v[0]);
    let (mut dpdu, mut dpdv) = (e1, e2);
    if let Some([a, b, c]) = uvs {
        let (d1, d2) = (b - a, c - a);
        let det = d1.x * d2.y - d2.x * d1.y;
        if det.abs() >= 1e-20 && det.is_finite() {
            let inv = 1.0 / det;
            (dpdu, dpdv) = ((e1 * d2.y - e2 * d1.y) * inv, (e2 * d1.x - e1 * d2.x) * inv);
        }
    }
    let n = e1.cross(e2).normalize();
    let t = (dpdu - n * n.dot(dpdu)).try_normalize().unwrap_or_else(|| e1.normalize());
    let w = if n.cross(t).dot(dpdv) > 0.0 { -1.0 } else { 1.0 };
    t.extend(w)
}

/// Tangent `t` placed in the world by `to_world`: its xyz turned (and scaled, then made
/// unit again) by the linear part, as a direction on the surface (not the normals'
/// inverse transpose); w flipped when the transform mirrors, so the bitangent, made
/// from the transformed normal, stays where the image's up went.
/// `t` is unit: a transform that collapses it (a scale so small that it underflows)
/// leaves it as it was.
pub fn to_world(t: Vec4, to_world: &Affine3A) -> Vec4 {
    let w = if to_world.matrix3.determinant() < 0.0 { -t.w } else { t.w };
    MeshData::unit_tangent(to_world.transform_vector3(t.xyz()).extend(w)).unwrap_or(t)
}
