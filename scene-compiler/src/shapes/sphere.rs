//! The sphere as the compiler sees it: its bounds and its blob record ([`SphereRecord`]).
//! The type is the scene's (`scene/model/mod.rs`). CUDA twin of its intersection:
//! kernels/shape_sphere.cuh; CPU: the renderer's `backend/cpu/shapes/sphere.rs`.

use glam::Vec3;

use super::Shape;
use crate::bvh::Aabb;
use crate::records::layout::{PrimKind, SphereRecord, VertexRecord};
use crate::scene::{Scene, Sphere};

impl Shape for Sphere {
    const KIND: PrimKind = PrimKind::Sphere;
    type Record = SphereRecord;

    fn of(scene: &Scene) -> &[Sphere] {
        &scene.spheres
    }

    fn of_mut(scene: &mut Scene) -> &mut Vec<Sphere> {
        &mut scene.spheres
    }

    fn record(&self) -> SphereRecord {
        let c = self.center;
        SphereRecord { center_radius: [c.x, c.y, c.z, self.radius] }
    }

    fn material(&self) -> u32 {
        self.material
    }

    fn from_record(record: &SphereRecord, material: u32) -> Sphere {
        let [x, y, z, radius] = record.center_radius;
        Sphere { center: Vec3::new(x, y, z), radius, material }
    }

    fn record_bounds(record: &SphereRecord, _: &[VertexRecord]) -> Aabb {
        let [x, y, z, r] = record.center_radius;
        Aabb::of_sphere(Vec3::new(x, y, z), r)
    }

    fn check_record(record: &SphereRecord, _: &[VertexRecord]) -> Result<(), &'static str> {
        let [x, y, z, r] = record.center_radius;
        crate::ranges::sphere_problem(Vec3::new(x, y, z), r).map_or(Ok(()), Err)
    }

    fn surface_area(record: &SphereRecord, _: &[VertexRecord]) -> f64 {
        let r = f64::from(record.center_radius[3]);
        4.0 * std::f64::consts::PI * r * r
    }
}
