//! Primitive shapes on the CPU: the one place the CPU backend dispatches on a
//! primitive's kind (CUDA twin: kernels/shapes.cuh). Leaf links and hits carry a
//! primitive reference (kind and index within the kind, docs/blob-format.md); each
//! shape's intersection, surface and light sampling live in its own file. Adding a
//! shape adds its records to [`Shapes`] and a match arm to each function here.

pub mod cuboid;
pub mod sphere;

use glam::{Vec3A, Vec4};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{PRIM_KIND_MASK, PrimKind, leaf_prims, prim_parts};
use scene_compiler::scene::{Cuboid, Sphere};

use self::cuboid::{box_surface, intersect_box};
use self::sphere::{intersect_sphere, sphere_solid_angle_pdf, sphere_surface};
use super::scene::{CpuScene, Material};

/// Every kind's records in the form its intersection takes, in BVH leaf order.
#[derive(Clone, Debug)]
pub struct Shapes {
    /// center.xyz, radius.
    pub spheres: Vec<Vec4>,
    /// Each box's min and max corner.
    pub boxes: Vec<[Vec3A; 2]>,
}

impl Shapes {
    /// Copies the records of a validated blob.
    pub fn from_blob(blob: &BlobView<'_>) -> Shapes {
        let lanes = |v: [f32; 4]| Vec4::from_array(v);
        Shapes {
            spheres: blob.records::<Sphere>().iter().map(|s| lanes(s.center_radius)).collect(),
            boxes: blob
                .records::<Cuboid>()
                .iter()
                .map(|b| [Vec3A::from_vec4(lanes(b.min)), Vec3A::from_vec4(lanes(b.max))])
                .collect(),
        }
    }
}

/// A hit point on a surface (docs/path-tracing.md "Robust hits").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surface {
    /// On the surface, as exactly as f32 allows.
    pub point: Vec3A,
    /// A per-component bound of `point`'s floating-point error.
    pub error: Vec3A,
    /// The unit normal pointing out of the primitive.
    pub normal: Vec3A,
}

/// Where a ray leaving `surface` towards the side of `w` starts: off the surface
/// along the normal by the error bound, so it cannot start on the wrong side.
#[inline(always)]
pub fn offset_ray_origin(surface: &Surface, w: Vec3A) -> Vec3A {
    let n = surface.normal;
    let d = n.abs().dot(surface.error);
    let offset = if w.dot(n) < 0.0 { -d * n } else { d * n };
    surface.point + offset
}

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
                if let Some(t) = intersect_sphere(scene.shapes.spheres[i as usize], origin, dir, *t_closest) {
                    *t_closest = t;
                    *closest = Some(kind_bits | i);
                }
            }
        }
        Some(PrimKind::Box) => {
            for i in index..index + count {
                let [min, max] = scene.shapes.boxes[i as usize];
                if let Some(t) = intersect_box(min, max, origin, dir, *t_closest) {
                    *t_closest = t;
                    *closest = Some(kind_bits | i);
                }
            }
        }
        // The blob loader refuses unknown kinds.
        None => {}
    }
}

/// True when a primitive of leaf link `leaf` other than `skip` is hit in `(0, t_max)`.
#[inline(always)]
pub fn occludes_leaf(scene: &CpuScene, leaf: u32, origin: Vec3A, dir: Vec3A, t_max: f32, skip: u32) -> bool {
    let (first, count) = leaf_prims(leaf);
    let (kind, index) = prim_parts(first);
    let kind_bits = first & PRIM_KIND_MASK;
    match PrimKind::from_u32(kind) {
        Some(PrimKind::Sphere) => (index..index + count).any(|i| {
            kind_bits | i != skip
                && intersect_sphere(scene.shapes.spheres[i as usize], origin, dir, t_max).is_some()
        }),
        Some(PrimKind::Box) => (index..index + count).any(|i| {
            let [min, max] = scene.shapes.boxes[i as usize];
            kind_bits | i != skip && intersect_box(min, max, origin, dir, t_max).is_some()
        }),
        None => false,
    }
}

/// The hit of the ray `(origin, dir)` on primitive `prim` at distance `t`.
#[inline(always)]
pub fn surface(scene: &CpuScene, prim: u32, origin: Vec3A, dir: Vec3A, t: f32) -> Surface {
    let (kind, index) = prim_parts(prim);
    match PrimKind::from_u32(kind) {
        Some(PrimKind::Sphere) | None => sphere_surface(scene.shapes.spheres[index as usize], origin, dir, t),
        Some(PrimKind::Box) => {
            let [min, max] = scene.shapes.boxes[index as usize];
            box_surface(min, max, origin, dir, t)
        }
    }
}

/// The solid-angle density with which light sampling from `o` picks a direction
/// that reaches primitive `prim`, given that its light was picked.
#[inline(always)]
pub fn solid_angle_pdf(scene: &CpuScene, prim: u32, o: Vec3A) -> f32 {
    let (kind, index) = prim_parts(prim);
    match PrimKind::from_u32(kind) {
        Some(PrimKind::Sphere) | None => sphere_solid_angle_pdf(scene.shapes.spheres[index as usize], o),
        // Boxes are never lights (no light record points at one): nothing samples them.
        Some(PrimKind::Box) => 0.0,
    }
}

/// The slot of primitive `prim` in the per-primitive arrays.
#[inline(always)]
pub fn slot(scene: &CpuScene, prim: u32) -> usize {
    let (kind, index) = prim_parts(prim);
    scene.kind_first[kind as usize] as usize + index as usize
}

/// The material of primitive `prim`.
#[inline(always)]
pub fn material(scene: &CpuScene, prim: u32) -> &Material {
    &scene.materials[scene.prim_materials[slot(scene, prim)] as usize]
}
