//! The axis-aligned box as the compiler sees it: its bounds and its blob record
//! ([`BoxRecord`]). The type is the scene's (`scene/model/mod.rs`). CUDA twin of its
//! intersection: kernels/shape_box.cuh; CPU: the renderer's `backend/cpu/shapes/cuboid.rs`.

use glam::Vec3;

use super::Shape;
use crate::bvh::Aabb;
use crate::records::layout::{BoxRecord, PrimKind, VertexRecord};
use crate::scene::{Cuboid, Scene};

impl Shape for Cuboid {
    const KIND: PrimKind = PrimKind::Box;
    type Record = BoxRecord;

    fn of(scene: &Scene) -> &[Cuboid] {
        &scene.boxes
    }

    fn of_mut(scene: &mut Scene) -> &mut Vec<Cuboid> {
        &mut scene.boxes
    }

    fn record(&self) -> BoxRecord {
        let (a, b) = (self.min, self.max);
        BoxRecord { min: [a.x, a.y, a.z, 0.0], max: [b.x, b.y, b.z, 0.0] }
    }

    fn material(&self) -> u32 {
        self.material
    }

    fn from_record(record: &BoxRecord, material: u32) -> Cuboid {
        Cuboid { min: Vec3::from_slice(&record.min[..3]), max: Vec3::from_slice(&record.max[..3]), material }
    }

    fn record_bounds(record: &BoxRecord, _: &[VertexRecord]) -> Aabb {
        Aabb { min: Vec3::from_slice(&record.min[..3]), max: Vec3::from_slice(&record.max[..3]) }
    }

    fn check_record(record: &BoxRecord, _: &[VertexRecord]) -> Result<(), &'static str> {
        let (min, max) = (Vec3::from_slice(&record.min[..3]), Vec3::from_slice(&record.max[..3]));
        if !(crate::ranges::coordinate_ok(min) && crate::ranges::coordinate_ok(max)) {
            Err("a corner is not finite or is past 1e9 from the origin")
        } else if !min.cmplt(max).all() {
            Err("min is not below max on every axis")
        } else if record.min[3] != 0.0 || record.max[3] != 0.0 {
            Err("unused lanes are not zero")
        } else {
            Ok(())
        }
    }

    fn surface_area(record: &BoxRecord, _: &[VertexRecord]) -> f64 {
        let [x, y, z] = [0, 1, 2].map(|a| f64::from(record.max[a]) - f64::from(record.min[a]));
        2.0 * (x * y + y * z + z * x)
    }
}
