//! The triangle as the compiler sees it: its bounds and its blob record,
//! [`TriangleRecord`]. The type is the scene's (`scene/model/mod.rs`); triangles come from
//! meshes (`crate::meshes`) at compile time. CUDA twin of its intersection:
//! kernels/shape_triangle.cuh; CPU: the renderer's `backend/cpu/shapes/triangle.rs`.

use glam::Vec3;

use super::Shape;
use crate::bvh::Aabb;
use crate::records::layout::{PrimKind, TriangleRecord};
use crate::scene::{Scene, Triangle};

impl Shape for Triangle {
    const KIND: PrimKind = PrimKind::Triangle;
    type Record = TriangleRecord;

    fn of(scene: &Scene) -> &[Triangle] {
        &scene.triangles
    }

    fn of_mut(scene: &mut Scene) -> &mut Vec<Triangle> {
        &mut scene.triangles
    }

    fn record(&self) -> TriangleRecord {
        let lane = |v: Vec3| [v.x, v.y, v.z, 0.0];
        TriangleRecord { v0: lane(self.v[0]), v1: lane(self.v[1]), v2: lane(self.v[2]) }
    }

    fn material(&self) -> u32 {
        self.material
    }

    /// Without its normals, texture coordinates and tangents: they are in their own
    /// sections (`blob::write`), which a scene read back from a blob does not restore.
    fn from_record(record: &TriangleRecord, material: u32) -> Triangle {
        let xyz = |v: &[f32; 4]| Vec3::from_slice(&v[..3]);
        Triangle {
            v: [xyz(&record.v0), xyz(&record.v1), xyz(&record.v2)],
            material,
            normals: None,
            uvs: None,
            tangents: None,
        }
    }

    fn record_bounds(record: &TriangleRecord) -> Aabb {
        let [a, b, c] = [record.v0, record.v1, record.v2].map(|v| Vec3::from_slice(&v[..3]));
        Aabb { min: a.min(b).min(c), max: a.max(b).max(c) }
    }

    fn check_record(record: &TriangleRecord) -> Result<(), &'static str> {
        let vertices = [record.v0, record.v1, record.v2];
        if let Some(problem) = crate::ranges::triangle_problem(vertices.map(|v| Vec3::from_slice(&v[..3]))) {
            Err(problem)
        } else if vertices.iter().any(|v| v[3] != 0.0) {
            Err("unused lanes are not zero")
        } else {
            Ok(())
        }
    }

    fn surface_area(record: &TriangleRecord) -> f64 {
        let [a, b, c] = [record.v0, record.v1, record.v2].map(|v| Vec3::from_slice(&v[..3]).as_dvec3());
        0.5 * (b - a).cross(c - a).length()
    }
}
