//! The sphere: its type, its bounds, its blob record ([`SphereRecord`]) and its RON form
//! ([`SphereFile`], its checks and text).
//! CUDA twin of its intersection: kernels/shape_sphere.cuh; CPU: the renderer's
//! `backend/cpu/shapes/sphere.rs`.

use glam::Vec3;
use serde::Deserialize;
use smol_str::SmolStr;

use super::Shape;
use crate::blob::layout::{PrimKind, SphereRecord};
use crate::bvh::Aabb;
use crate::limits;
use crate::scene::list::{Checker, ListItem, Lowering, V3, ValuePath, material_name, v3};
use crate::scene::{Material, Scene};

/// A sphere; `material` indexes [`Scene::materials`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
    pub material: u32,
}

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

    fn record_bounds(record: &SphereRecord) -> Aabb {
        let [x, y, z, r] = record.center_radius;
        Aabb::of_sphere(Vec3::new(x, y, z), r)
    }

    fn check_record(record: &SphereRecord) -> Result<(), &'static str> {
        let [x, y, z, r] = record.center_radius;
        crate::ranges::sphere_problem(Vec3::new(x, y, z), r).map_or(Ok(()), Err)
    }

    fn surface_area(record: &SphereRecord) -> f64 {
        let r = f64::from(record.center_radius[3]);
        4.0 * std::f64::consts::PI * r * r
    }
}

/// `(center: (x, y, z), radius: r, material: "name")`.
#[derive(Debug, Deserialize)]
#[serde(rename = "Sphere", deny_unknown_fields)]
pub(crate) struct SphereFile {
    pub center: V3,
    pub radius: f32,
    pub material: SmolStr,
}

impl ListItem for Sphere {
    type File = SphereFile;

    fn lower(c: &mut Checker, path: &ValuePath, items: &[SphereFile], file: &Lowering) -> Vec<Sphere> {
        c.count(path, "spheres", items.len(), limits::MAX_SPHERES);
        c.each(items, |c, i, s| {
            let center_ok = geometry(c, path, i, s.center, s.radius);
            let material = c.material(&|| path.index(i).field("material"), &s.material, file.materials)?;
            center_ok.then(|| Sphere { center: Vec3::from_array(s.center), radius: s.radius, material })
        })
    }

    fn check_model(c: &mut Checker, path: &ValuePath, items: &[Sphere], scene: &Scene) {
        c.count(path, "spheres", items.len(), limits::MAX_SPHERES);
        for (i, s) in items.iter().enumerate() {
            geometry(c, path, i, s.center.to_array(), s.radius);
            c.material_index(&|| path.index(i).field("material"), s.material, scene.materials.len());
        }
    }

    fn primitives(items: &[Sphere]) -> usize {
        items.len()
    }

    /// Every sphere written is one, whether or not it passed its checks.
    fn primitives_written(written: &[SphereFile], _: &[Sphere]) -> Option<usize> {
        Some(written.len())
    }

    /// One sphere per line.
    fn write(out: &mut String, s: &Sphere, materials: &[Material]) {
        use std::fmt::Write;
        let name = material_name(s.material, materials);
        let _ =
            writeln!(out, "        (center: {}, radius: {:?}, material: {name}),", v3(s.center), s.radius);
    }

    #[cfg(test)]
    fn examples(_: &std::path::Path) -> Vec<Sphere> {
        vec![Sphere { center: Vec3::new(0.0, 1.0, 0.0), radius: 1.0, material: 3 }]
    }

    #[cfg(test)]
    fn wrong(self) -> Sphere {
        Sphere { center: Vec3::NAN, radius: f32::NAN, material: 9 }
    }
}

/// Sphere `i`'s center and radius; true when the center is usable.
fn geometry(c: &mut Checker, path: &ValuePath, i: usize, center: V3, radius: f32) -> bool {
    let field = |name: &'static str| move || path.index(i).field(name);
    let center_ok = c.coordinate3(center, "sphere `center`", &field("center"));
    let radius_ok = c.check(radius, "sphere `radius`", &field("radius"), |r| r > 0.0, "positive").is_none()
        && radius.is_finite();
    if center_ok
        && radius_ok
        && crate::ranges::sphere_problem(glam::Vec3::from_array(center), radius).is_some()
    {
        c.report(&field("radius"), "the sphere reaches past 1e9 from the origin", "out of range")
            .set_hint("coordinates beyond 1e9 lose all precision in 32-bit floats; scale the scene down");
    }
    center_ok
}
