//! The triangle as the compiler sees it: its bounds and its blob record,
//! [`TriangleRecord`], three indices into the vertices ([`VertexRecord`]). The type is
//! the scene's (`scene/model/mod.rs`); triangles come from meshes (`crate::meshes`) at
//! compile time. CUDA twin of its intersection: kernels/shape_triangle.cuh; CPU: the
//! renderer's `backend/cpu/shapes/triangle.rs`.

use glam::Vec3;

use super::Shape;
use crate::bvh::Aabb;
use crate::records::layout::{PrimKind, TriangleRecord, VertexRecord};
use crate::scene::{Scene, Triangle};

/// The corners a record names (its indices are in range).
fn corners(record: &TriangleRecord, vertices: &[VertexRecord]) -> [Vec3; 3] {
    record.v.map(|i| Vec3::from_array(vertices[i as usize].position))
}

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
        TriangleRecord { v: self.v }
    }

    fn material(&self) -> u32 {
        self.material
    }

    /// Without its tangents: they are in their own section (`blob::write`), which a
    /// scene read back from a blob does not restore.
    fn from_record(record: &TriangleRecord, material: u32) -> Triangle {
        Triangle { v: record.v, material, tangents: None }
    }

    fn record_bounds(record: &TriangleRecord, vertices: &[VertexRecord]) -> Aabb {
        let [a, b, c] = corners(record, vertices);
        Aabb { min: a.min(b).min(c), max: a.max(b).max(c) }
    }

    fn check_record(record: &TriangleRecord, vertices: &[VertexRecord]) -> Result<(), &'static str> {
        crate::ranges::triangle_problem(corners(record, vertices)).map_or(Ok(()), Err)
    }

    fn surface_area(record: &TriangleRecord, vertices: &[VertexRecord]) -> f64 {
        let [a, b, c] = corners(record, vertices).map(|v| v.as_dvec3());
        0.5 * (b - a).cross(c - a).length()
    }
}
