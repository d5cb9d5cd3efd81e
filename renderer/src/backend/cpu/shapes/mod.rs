//! Primitive shapes on the CPU: the one place the CPU backend dispatches on a
//! primitive's kind (CUDA twin: kernels/shapes.cuh). Leaf links and hits carry a
//! primitive reference (kind and index within the kind, docs/blob-format.md); each
//! shape's intersection and normal live in its own file. Adding a shape adds a match
//! arm to each function here.

pub mod sphere;

use glam::Vec3A;
use scene_compiler::blob::layout::{PRIM_KIND_MASK, PrimKind, leaf_prims, prim_parts};

use self::sphere::{intersect_sphere, sphere_normal};
use super::scene::{CpuScene, Material};

/// Rays start this far from their origin, so a bounce does not hit its own surface.
pub const T_MIN: f32 = 0.001;

/// Tests the primitives of leaf link `leaf` against the ray; a closer hit shrinks
/// `t_closest` and sets `closest` to its primitive reference.
#[inline(always)]
pub fn intersect_leaf(
    scene: &CpuScene,
    leaf: u32,
    origin: Vec3A,
    dir: Vec3A,
    t_closest: &mut f32,
    closest: &mut Option<u32>,
) {
    let (first, count) = leaf_prims(leaf);
    let (kind, index) = prim_parts(first);
    let kind_bits = first & PRIM_KIND_MASK;
    match PrimKind::from_u32(kind) {
        Some(PrimKind::Sphere) => {
            for i in index..index + count {
                if let Some(t) = intersect_sphere(scene.spheres[i as usize], origin, dir, *t_closest) {
                    *t_closest = t;
                    *closest = Some(kind_bits | i);
                }
            }
        }
        // The blob loader refuses unknown kinds.
        None => {}
    }
}

/// The unit normal pointing out of primitive `prim` at `point` on its surface.
#[inline(always)]
pub fn outward_normal(scene: &CpuScene, prim: u32, point: Vec3A) -> Vec3A {
    let (kind, index) = prim_parts(prim);
    match PrimKind::from_u32(kind) {
        Some(PrimKind::Sphere) | None => sphere_normal(scene.spheres[index as usize], point),
    }
}

/// The material of primitive `prim`.
#[inline(always)]
pub fn material(scene: &CpuScene, prim: u32) -> &Material {
    let (kind, index) = prim_parts(prim);
    let slot = scene.kind_first[kind as usize] as usize + index as usize;
    &scene.materials[scene.prim_materials[slot] as usize]
}
