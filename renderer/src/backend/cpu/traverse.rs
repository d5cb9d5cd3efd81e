//! Closest-hit queries: the iterative BVH traversal (docs/path-tracing.md,
//! "Intersection"), in the kernels' order; the primitives themselves are `shapes/`.

use glam::{Vec3A, Vec4, Vec4Swizzles};
use scene_compiler::blob::layout::{
    PRIM_KIND_MASK, PRIM_KIND_SHIFT, PrimKind, is_leaf, leaf_prims, prim_parts,
};
use scene_compiler::limits::MAX_BVH_DEPTH;

use super::instances::NO_INSTANCE;
pub use super::prims::Hit;
use super::prims::{intersect_leaf, occludes_leaf};
use super::scene::{ChildBoxes, CpuScene};
use crate::backend::constants::SLAB_MIN_DIR;

/// Whether leaf link `leaf` holds instances.
#[inline(always)]
fn holds_instances(leaf: u32) -> bool {
    leaf & PRIM_KIND_MASK == (PrimKind::Instance as u32) << PRIM_KIND_SHIFT
}

/// The instances of leaf link `leaf`, by index.
#[inline(always)]
fn instances_of(leaf: u32) -> std::ops::Range<usize> {
    let (first, count) = leaf_prims(leaf);
    let first = prim_parts(first).1 as usize;
    first..first + count as usize
}

/// The closest primitive hit in `(0, t_max)`: one "ray" in the Mrays/s count. A leaf of
/// instances walks each one's bottom level with the ray in its space
/// (`instances.rs`), on the same distance scale.
#[inline]
pub fn traverse(scene: &CpuScene, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<Hit> {
    let mut t_closest = t_max;
    let mut closest = None;
    walk(scene, scene.root, origin, dir, &mut t_closest, |leaf, t_closest| {
        if holds_instances(leaf) {
            for i in instances_of(leaf) {
                let instance = &scene.instances[i];
                let (o, d) = instance.ray(origin, dir);
                let mut hit = None;
                walk(scene, instance.root, o, d, t_closest, |leaf, t_closest| {
                    intersect_leaf(scene, leaf, o, d, t_closest, &mut hit, instance.material);
                    false
                });
                if let Some(prim) = hit {
                    closest = Some((prim, i as u32));
                }
            }
        } else {
            let mut hit = None;
            intersect_leaf(scene, leaf, origin, dir, t_closest, &mut hit, None);
            if let Some(prim) = hit {
                closest = Some((prim, NO_INSTANCE));
            }
        }
        false
    });
    closest.map(|(prim, instance)| Hit { t: t_closest, prim, instance })
}

/// True when a primitive other than `skip` lies on the ray in `(0, t_max)`: the
/// shadow-ray query, which stops at the first blocker (one "ray"). `skip` is a light of
/// the world's tree: instances are not lights, so none of theirs is skipped.
#[inline]
pub fn occluded(scene: &CpuScene, origin: Vec3A, dir: Vec3A, t_max: f32, skip: u32) -> bool {
    let mut t_max = t_max;
    walk(scene, scene.root, origin, dir, &mut t_max, |leaf, t_max| {
        if !holds_instances(leaf) {
            return occludes_leaf(scene, leaf, origin, dir, *t_max, skip, None);
        }
        instances_of(leaf).any(|i| {
            let instance = &scene.instances[i];
            let (o, d) = instance.ray(origin, dir);
            let mut t = *t_max;
            walk(scene, instance.root, o, d, &mut t, |leaf, t| {
                occludes_leaf(scene, leaf, o, d, *t, u32::MAX, instance.material)
            })
        })
    })
}

/// The BVH walk both queries share, from link `root` (the world's or a bottom
/// level's): every leaf whose box the ray meets before `t_max`
/// goes to `visit_leaf`, which may shrink `t_max` (a closer hit) or return true to stop
/// the walk (a blocker found); returns whether it was stopped.
///
/// Near child first with an explicit stack of `MAX_BVH_DEPTH` child links; the blob
/// loader refused deeper trees, so the stack cannot overflow. Unlike the kernels, the
/// stack does not keep entry distances to drop subtrees behind a closer hit: the same
/// hits either way, and here the bookkeeping cost more than it saved (RTIOW 640x360,
/// 2 cores: 14% slower as pairs, 10% as two arrays).
#[inline(always)]
fn walk(
    scene: &CpuScene,
    root: u32,
    origin: Vec3A,
    dir: Vec3A,
    t_max: &mut f32,
    mut visit_leaf: impl FnMut(u32, &mut f32) -> bool,
) -> bool {
    let slab_ray = SlabRay::new(origin, dir);
    let mut stack = [0u32; MAX_BVH_DEPTH as usize];
    let mut stack_len = 0;
    let mut node = root;
    loop {
        if is_leaf(node) {
            if visit_leaf(node, t_max) {
                return true;
            }
        } else {
            let (left, right) = scene.node_links[node as usize];
            match slab(&scene.child_boxes[node as usize], &slab_ray, *t_max) {
                (Some(tl), Some(tr)) => {
                    let (near, far) = if tl <= tr { (left, right) } else { (right, left) };
                    stack[stack_len] = far;
                    stack_len += 1;
                    node = near;
                    continue;
                }
                (Some(_), None) => {
                    node = left;
                    continue;
                }
                (None, Some(_)) => {
                    node = right;
                    continue;
                }
                (None, None) => {}
            }
        }
        if stack_len == 0 {
            return false;
        }
        stack_len -= 1;
        node = stack[stack_len];
    }
}

/// A ray prepared for slab tests: per axis, the inverse direction and `-origin * inv_dir`
/// broadcast to all four lanes.
struct SlabRay {
    inv_dir: [Vec4; 3],
    neg_origin_inv_dir: [Vec4; 3],
}

impl SlabRay {
    #[inline(always)]
    fn new(origin: Vec3A, dir: Vec3A) -> SlabRay {
        // Clamped: `0 · ∞` would make a NaN plane distance for an origin on a box's
        // plane, and SSE's max keeps NaNs, so the box would be missed by a ray that lies
        // in its closed slab (from the world origin along an axis plane, say). The
        // kernels clamp the same way (kernels/traverse.cuh `slab_dir`).
        let tiny = dir.abs().cmplt(Vec3A::splat(SLAB_MIN_DIR));
        let inv_dir = Vec3A::select(tiny, Vec3A::splat(SLAB_MIN_DIR).copysign(dir), dir).recip();
        let neg_origin_inv_dir = -origin * inv_dir;
        SlabRay {
            inv_dir: [0, 1, 2].map(|a| Vec4::splat(inv_dir[a])),
            neg_origin_inv_dir: [0, 1, 2].map(|a| Vec4::splat(neg_origin_inv_dir[a])),
        }
    }
}

/// Slab test of both children of a node: each one's entry distance, clamped to
/// `[0, t_max]`, when the ray meets its box.
///
/// The kernels fold `origin * inv_dir` into FMAs; here a multiply and an add, because
/// the default x86-64 target has no FMA instruction and `f32::mul_add` would be a
/// library call. The results differ in the last bit only.
#[inline(always)]
fn slab(boxes: &ChildBoxes, ray: &SlabRay, t_max: f32) -> (Option<f32>, Option<f32>) {
    let mut enter = Vec4::ZERO;
    let mut exit = Vec4::splat(t_max);
    for (a, bounds) in [boxes.x, boxes.y, boxes.z].into_iter().enumerate() {
        // Lanes: (left min, right min, left max, right max) planes; swapping the halves
        // pairs each plane with its opposite, whichever way the ray goes.
        let t = bounds * ray.inv_dir[a] + ray.neg_origin_inv_dir[a];
        let swapped = t.zwxy();
        enter = enter.max(t.min(swapped));
        exit = exit.min(t.max(swapped));
    }
    let hits = enter.cmple(exit).bitmask();
    (((hits & 1) != 0).then_some(enter.x), ((hits & 2) != 0).then_some(enter.y))
}
