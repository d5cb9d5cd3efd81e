//! The axis-aligned box: its type, its bounds, its blob record ([`BoxRecord`]) and its RON form
//! ([`BoxFile`], its checks and text).
//! CUDA twin of its intersection: kernels/shape_box.cuh; CPU: the renderer's
//! `backend/cpu/shapes/cuboid.rs`.

use glam::Vec3;
use serde::Deserialize;
use smol_str::SmolStr;

use super::Shape;
use crate::blob::layout::{BoxRecord, PrimKind};
use crate::bvh::Aabb;
use crate::limits;
use crate::scene::list::{Checker, ListItem, Lowering, V3, ValuePath, material_name, v3};
use crate::scene::{Material, Scene};

/// An axis-aligned box (`boxes: [(min: ..., max: ..., material: ...)]`); `min < max`
/// on every axis. Not `Box`, which Rust already means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    pub min: Vec3,
    pub max: Vec3,
    pub material: u32,
}

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

    fn record_bounds(record: &BoxRecord) -> Aabb {
        Aabb { min: Vec3::from_slice(&record.min[..3]), max: Vec3::from_slice(&record.max[..3]) }
    }

    fn check_record(record: &BoxRecord) -> Result<(), &'static str> {
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

    fn surface_area(record: &BoxRecord) -> f64 {
        let [x, y, z] = [0, 1, 2].map(|a| f64::from(record.max[a]) - f64::from(record.min[a]));
        2.0 * (x * y + y * z + z * x)
    }
}

/// `(min: (x, y, z), max: (x, y, z), material: "name")`: an axis-aligned box.
#[derive(Debug, Deserialize)]
#[serde(rename = "Box", deny_unknown_fields)]
pub(crate) struct BoxFile {
    pub min: V3,
    pub max: V3,
    pub material: SmolStr,
}

impl ListItem for Cuboid {
    type File = BoxFile;

    fn lower(c: &mut Checker, path: &ValuePath, items: &[BoxFile], file: &Lowering) -> Vec<Cuboid> {
        c.count(path, "boxes", items.len(), limits::MAX_BOXES);
        c.each(items, |c, i, b| {
            let geometry_ok = geometry(c, path, i, b.min, b.max);
            let material = c.material(&|| path.index(i).field("material"), &b.material, file.materials)?;
            geometry_ok.then(|| Cuboid {
                min: Vec3::from_array(b.min),
                max: Vec3::from_array(b.max),
                material,
            })
        })
    }

    fn check_model(c: &mut Checker, path: &ValuePath, items: &[Cuboid], scene: &Scene) {
        c.count(path, "boxes", items.len(), limits::MAX_BOXES);
        for (i, b) in items.iter().enumerate() {
            geometry(c, path, i, b.min.to_array(), b.max.to_array());
            c.material_index(&|| path.index(i).field("material"), b.material, scene.materials.len());
        }
    }

    fn primitives(items: &[Cuboid]) -> usize {
        items.len()
    }

    /// Every box written is one, whether or not it passed its checks.
    fn primitives_written(written: &[BoxFile], _: &[Cuboid]) -> Option<usize> {
        Some(written.len())
    }

    /// One box per line.
    fn write(out: &mut String, b: &Cuboid, materials: &[Material]) {
        use std::fmt::Write;
        let name = material_name(b.material, materials);
        let _ = writeln!(out, "        (min: {}, max: {}, material: {name}),", v3(b.min), v3(b.max));
    }

    #[cfg(test)]
    fn examples(_: &std::path::Path) -> Vec<Cuboid> {
        vec![Cuboid { min: Vec3::splat(-1.0), max: Vec3::new(0.5, 0.25, 1e-3), material: 2 }]
    }

    #[cfg(test)]
    fn wrong(self) -> Cuboid {
        Cuboid { min: Vec3::NAN, max: Vec3::NAN, material: 9 }
    }
}

/// Box `i`'s corners: finite, and `min < max` on every axis (a flat box has no inside,
/// and the renderer's robust offsets assume one). True when usable.
fn geometry(c: &mut Checker, path: &ValuePath, i: usize, min: V3, max: V3) -> bool {
    let field = |name: &'static str| move || path.index(i).field(name);
    let finite =
        c.coordinate3(min, "box `min`", &field("min")) & c.coordinate3(max, "box `max`", &field("max"));
    if finite && !Vec3::from_array(min).cmplt(Vec3::from_array(max)).all() {
        let axes: Vec<&str> = ["x", "y", "z"]
            .into_iter()
            .enumerate()
            .filter(|&(a, _)| min[a] >= max[a])
            .map(|(_, n)| n)
            .collect();
        let message = format!("box `max` must be above `min` on every axis, not on {}", axes.join(", "));
        c.report(&field("max"), message, "not above `min`")
            .set_hint("a box has a thickness on every axis: make `max` larger than `min`");
        return false;
    }
    finite
}
