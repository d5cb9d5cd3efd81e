//! The instance as the compiler sees it: a placed copy of a bottom level, its bounds and
//! its blob record ([`InstanceRecord`]). The type is the scene's (`scene/model/mod.rs`);
//! instances come from meshes (`crate::meshes`) at compile time, and the writer fills
//! in each record's root link once the bottom levels' nodes are numbered
//! (`blob::write`). CUDA twin of its intersection: kernels/traverse.cuh; CPU: the
//! renderer's `backend/cpu/instances.rs`.

use glam::{Affine3A, Mat3A, Vec3, Vec3A};

use super::Shape;
use crate::bvh::Aabb;
use crate::records::layout::{InstanceRecord, NO_MATERIAL, PrimKind, VertexRecord};
use crate::scene::{Instance, Scene};

impl Shape for Instance {
    const KIND: PrimKind = PrimKind::Instance;
    type Record = InstanceRecord;

    fn of(scene: &Scene) -> &[Instance] {
        &scene.instances
    }

    fn of_mut(scene: &mut Scene) -> &mut Vec<Instance> {
        &mut scene.instances
    }

    /// With root link 0: the writer sets it.
    fn record(&self) -> InstanceRecord {
        let lane = |v: Vec3| [v.x, v.y, v.z, 0.0];
        InstanceRecord {
            world_to_object: rows(&self.to_world.inverse()),
            object_to_world: rows(&self.to_world),
            bounds_min: lane(self.bounds[0]),
            bounds_max: lane(self.bounds[1]),
            root: 0,
            reserved: [0; 3],
        }
    }

    fn material(&self) -> u32 {
        self.material.unwrap_or(NO_MATERIAL)
    }

    fn from_record(record: &InstanceRecord, material: u32) -> Instance {
        let xyz = |v: &[f32; 4]| Vec3::from_slice(&v[..3]);
        Instance {
            to_world: affine(&record.object_to_world),
            bottom_level: record.root,
            material: (material != NO_MATERIAL).then_some(material),
            bounds: [xyz(&record.bounds_min), xyz(&record.bounds_max)],
        }
    }

    /// Its record's box without the record: the same floats, without the inverse of its
    /// placement that the record holds (at 10^6 instances, 20 ms of the BVH stage of a
    /// moved instance's reload on the 2-core dev machine).
    fn bounds(&self, _: &[VertexRecord]) -> Aabb {
        Aabb { min: self.bounds[0], max: self.bounds[1] }
    }

    fn record_bounds(record: &InstanceRecord, _: &[VertexRecord]) -> Aabb {
        let xyz = |v: &[f32; 4]| Vec3::from_slice(&v[..3]);
        Aabb { min: xyz(&record.bounds_min), max: xyz(&record.bounds_max) }
    }

    fn check_record(record: &InstanceRecord, _: &[VertexRecord]) -> Result<(), &'static str> {
        let all = record.world_to_object.iter().chain(&record.object_to_world).flatten();
        let bounds = record.bounds_min.iter().chain(&record.bounds_max);
        if !all.chain(bounds.clone()).all(|x| x.is_finite()) {
            return Err("a matrix or bound is not finite");
        }
        if record.bounds_min[3] != 0.0 || record.bounds_max[3] != 0.0 || record.reserved != [0; 3] {
            return Err("unused lanes are not zero");
        }
        if (0..3).any(|a| record.bounds_min[a] > record.bounds_max[a]) {
            return Err("bounds_min exceeds bounds_max");
        }
        // The two maps must be each other's inverse (within float error), or a ray
        // taken into the mesh's space would come back somewhere else.
        if !crate::ranges::maps_undo_each_other(
            &affine(&record.object_to_world),
            &affine(&record.world_to_object),
        ) {
            return Err("object_to_world is not the inverse of world_to_object");
        }
        Ok(())
    }

    /// Not counted: instances are not lights (docs/path-tracing.md, "Instances").
    fn surface_area(_: &InstanceRecord, _: &[VertexRecord]) -> f64 {
        0.0
    }
}

/// The three rows of `m`'s 3x4 matrix.
fn rows(m: &Affine3A) -> [[f32; 4]; 3] {
    let (c, t) = (m.matrix3, m.translation);
    [0, 1, 2].map(|r| [c.x_axis[r], c.y_axis[r], c.z_axis[r], t[r]])
}

/// The affine map of three rows.
pub fn affine(rows: &[[f32; 4]; 3]) -> Affine3A {
    let col = |c: usize| Vec3A::new(rows[0][c], rows[1][c], rows[2][c]);
    Affine3A { matrix3: Mat3A::from_cols(col(0), col(1), col(2)), translation: col(3) }
}

/// The world box of `bounds` (a box in object space) placed by `to_world`: its eight
/// corners' box.
pub fn placed_bounds(bounds: &Aabb, to_world: &Affine3A) -> [Vec3; 2] {
    let mut out = [Vec3::INFINITY, Vec3::NEG_INFINITY];
    for corner in 0..8 {
        let pick = |a: usize, lo: f32, hi: f32| if corner >> a & 1 == 0 { lo } else { hi };
        let p = Vec3::new(
            pick(0, bounds.min.x, bounds.max.x),
            pick(1, bounds.min.y, bounds.max.y),
            pick(2, bounds.min.z, bounds.max.z),
        );
        let w = to_world.transform_point3(p);
        out = [out[0].min(w), out[1].max(w)];
    }
    out
}
