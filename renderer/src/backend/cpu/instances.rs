//! Instances on the CPU (CUDA twin: kernels/instances.cuh): a placed copy of a bottom
//! level, the ray taken into its space to walk that tree, and the hit brought back to
//! the world (docs/path-tracing.md, "Instances").
//!
//! The ray's direction is not normalised in object space, so the distance `t` along it
//! is the same in both spaces and the closest hit compares across instances as it is.
//! The hit's point and its error bound come back through the object-to-world map as
//! pbrt-v4 transforms a point with its error (`Transform::operator()(Point3fi)`): the
//! map's own rounding, `gamma(3)` of each row's terms, plus the point's bound carried
//! through the map's magnitudes. Normals go through the inverse transpose, so a
//! non-uniform scale keeps them normal and a mirroring map keeps them pointing out.

use glam::{Affine3A, Mat3A, Vec3A};
use scene_compiler::blob::layout::{InstanceRecord, NO_MATERIAL};
use scene_compiler::shapes::affine;

use super::shapes::Surface;
use crate::backend::constants::gamma;

/// A hit's instance when it is on a primitive of the world's own tree.
pub const NO_INSTANCE: u32 = u32::MAX;

/// An instance, ready for traversal.
#[derive(Clone, Copy, Debug)]
pub struct CpuInstance {
    pub to_object: Affine3A,
    pub to_world: Affine3A,
    /// The inverse transpose of `to_world`'s linear part: normals to the world.
    pub normal_to_world: Mat3A,
    /// Its bottom level's root link.
    pub root: u32,
    /// The material that replaces its triangles' own.
    pub material: Option<u32>,
}

impl CpuInstance {
    pub fn from_record(record: &InstanceRecord, material: u32) -> CpuInstance {
        let to_object = affine(&record.world_to_object);
        CpuInstance {
            to_object,
            to_world: affine(&record.object_to_world),
            normal_to_world: to_object.matrix3.transpose(),
            root: record.root,
            material: (material != NO_MATERIAL).then_some(material),
        }
    }

    /// The ray in the instance's space (the same `t` reaches the same point).
    #[inline(always)]
    pub fn ray(&self, origin: Vec3A, dir: Vec3A) -> (Vec3A, Vec3A) {
        (self.to_object.transform_point3a(origin), self.to_object.transform_vector3a(dir))
    }

    /// `s`, a hit in the instance's space, in the world.
    pub fn surface_to_world(&self, s: &Surface) -> Surface {
        let m = &self.to_world;
        let cols = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis];
        let (p, e) = (s.point, s.error);
        // Per output axis: the magnitudes of the row's terms, and the row's magnitudes
        // times the input's error.
        let terms =
            (cols[0] * p.x).abs() + (cols[1] * p.y).abs() + (cols[2] * p.z).abs() + m.translation.abs();
        let carried = cols[0].abs() * e.x + cols[1].abs() * e.y + cols[2].abs() * e.z;
        let g3 = gamma(3);
        Surface {
            point: m.transform_point3a(p),
            error: terms * g3 + carried * (1.0 + g3),
            normal: (self.normal_to_world * s.normal).normalize(),
            shading: (self.normal_to_world * s.shading).normalize(),
        }
    }

    /// A direction on the surface (a tangent) in the world.
    #[inline(always)]
    pub fn dir_to_world(&self, v: Vec3A) -> Vec3A {
        self.to_world.transform_vector3a(v)
    }
}
