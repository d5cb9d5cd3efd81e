//! A primitive of the scene by its reference (kind and index, docs/blob-format.md):
//! the leaf tests with their alpha cut-outs, its surface, texture coordinates and
//! tangent frame, sampling it as a light, and its material (CUDA twin: the per-operation
//! switches of kernels/shapes.cuh). Each goes to its kind's [`CpuShape`] through
//! [`with_shapes!`].

use glam::{Vec2, Vec3A};
use scene_compiler::blob::layout::{
    NO_TEXTURE, PRIM_KIND_MASK, PrimKind, TEXTURE_SLOT_COLOR, leaf_prims, prim_parts,
};

use super::material::{Alpha, Material};
use super::rng::ray_hash;
use super::scene::CpuScene;
use super::shapes::{CpuShape, LightSample, Surface, kind_of, with_shapes};

/// Tests the primitives of leaf link `leaf` against the ray; a closer hit shrinks
/// `t_closest` and sets `closest` to its primitive reference. `material`: the one that
/// replaces theirs (an instance's), for the alpha test.
#[inline(always)]
pub fn intersect_leaf(
    scene: &CpuScene,
    leaf: u32,
    origin: Vec3A,
    dir: Vec3A,
    t_closest: &mut f32,
    closest: &mut Option<u32>,
    material: Option<u32>,
) {
    let (first, count) = leaf_prims(leaf);
    let index = prim_parts(first).1;
    let kind_bits = first & PRIM_KIND_MASK;
    with_shapes!(scene.shapes, kind_of(first), list => {
        for i in index..index + count {
            if let Some(t) = list[i as usize].intersect(origin, dir, *t_closest)
                && !(scene.has_alpha && cut_out(scene, kind_bits | i, material, origin, dir, t))
            {
                *t_closest = t;
                *closest = Some(kind_bits | i);
            }
        }
    })
}

/// True when a primitive of leaf link `leaf` other than `skip` is hit in `(0, t_max)`;
/// `material` as for [`intersect_leaf`].
#[inline(always)]
pub fn occludes_leaf(
    scene: &CpuScene,
    leaf: u32,
    origin: Vec3A,
    dir: Vec3A,
    t_max: f32,
    skip: u32,
    material: Option<u32>,
) -> bool {
    let (first, count) = leaf_prims(leaf);
    let index = prim_parts(first).1;
    let kind_bits = first & PRIM_KIND_MASK;
    with_shapes!(scene.shapes, kind_of(first), list => (index..index + count).any(|i| {
        kind_bits | i != skip
            && list[i as usize]
                .intersect(origin, dir, t_max)
                .is_some_and(|t| !(scene.has_alpha && cut_out(scene, kind_bits | i, material, origin, dir, t)))
    }))
}

/// Whether the ray's hit at `t` on primitive `prim` falls where its material's alpha
/// (its `alpha` times its colour texture's) cuts the surface out: below the cutoff
/// (`Mask`), or below a number the ray hashes to (`Blend`: transparent with probability
/// 1 - alpha). The any-hit test of both queries (docs/path-tracing.md, "Alpha").
#[inline(never)]
fn cut_out(scene: &CpuScene, prim: u32, replaced: Option<u32>, origin: Vec3A, dir: Vec3A, t: f32) -> bool {
    let m = replaced.map_or_else(|| material(scene, prim), |i| &scene.materials[i as usize]);
    let threshold = match m.alpha_mode {
        Alpha::Opaque => return false,
        Alpha::Mask(cutoff) => cutoff,
        Alpha::Blend => ray_hash(origin.to_array(), dir.to_array(), prim),
    };
    let mut alpha = m.alpha;
    let colour = m.textures[TEXTURE_SLOT_COLOR];
    if colour != NO_TEXTURE {
        let hit = surface(scene, prim, origin, dir, t);
        alpha *= scene.textures.eval4(colour, hit.point, uv(scene, prim, &hit)).w;
    }
    alpha < threshold
}

/// The hit of the ray `(origin, dir)` on primitive `prim` at distance `t`.
#[inline(always)]
pub fn surface(scene: &CpuScene, prim: u32, origin: Vec3A, dir: Vec3A, t: f32) -> Surface {
    let index = prim_parts(prim).1 as usize;
    with_shapes!(scene.shapes, kind_of(prim), list => list[index].surface(origin, dir, t))
}

/// The texture coordinates of `hit` on primitive `prim`.
#[inline(always)]
pub fn uv(scene: &CpuScene, prim: u32, hit: &Surface) -> Vec2 {
    let index = prim_parts(prim).1 as usize;
    with_shapes!(scene.shapes, kind_of(prim), list => list[index].uv(hit))
}

/// The directions of growing `u` and `v` at `hit` on primitive `prim`: a normal map's
/// frame. A triangle with stored tangents ([`Shapes::triangle_tangents`]) takes it from
/// them (`Triangle::tangent_dpduv`), any other primitive from [`CpuShape::dpduv`].
#[inline(always)]
pub fn dpduv(scene: &CpuScene, prim: u32, hit: &Surface) -> (Vec3A, Vec3A) {
    let index = prim_parts(prim).1 as usize;
    let kind = kind_of(prim);
    if kind == PrimKind::Triangle
        && let Some(tangents) = scene.shapes.triangle_tangents.get(index)
    {
        return scene.shapes.triangles[index].tangent_dpduv(tangents, hit);
    }
    with_shapes!(scene.shapes, kind, list => list[index].dpduv(hit))
}

/// A direction from `p` towards emissive primitive `prim` (shadow ray from `o`).
#[inline(always)]
pub fn sample_towards(scene: &CpuScene, prim: u32, p: Vec3A, o: Vec3A, u: [f32; 2]) -> Option<LightSample> {
    let index = prim_parts(prim).1 as usize;
    with_shapes!(scene.shapes, kind_of(prim), list => list[index].sample_towards(p, o, u))
}

/// The solid-angle density with which light sampling from `from` picks the direction
/// that reaches `hit` on primitive `prim`, given that its light was picked.
#[inline(always)]
pub fn pdf_towards(scene: &CpuScene, prim: u32, from: Vec3A, hit: &Surface) -> f32 {
    let index = prim_parts(prim).1 as usize;
    with_shapes!(scene.shapes, kind_of(prim), list => list[index].pdf_towards(from, hit))
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

/// The closest hit of a ray (what `traverse::traverse` returns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub t: f32,
    /// The primitive reference (kind and index within its kind, `shapes/`): a
    /// triangle of a bottom level when `instance` names one.
    pub prim: u32,
    /// The instance whose bottom level holds `prim` (an index into
    /// `CpuScene::instances`), or [`NO_INSTANCE`](super::instances::NO_INSTANCE).
    pub instance: u32,
}

/// A hit's surface, in the world and where its primitive's own tests read it: for a
/// hit on an instance, its bottom level's space (texture coordinates and the tangent
/// frame are computed there); else the same surface twice.
#[derive(Clone, Copy, Debug)]
pub struct HitSurface {
    pub world: Surface,
    pub local: Surface,
}

/// The surface of `hit`, reached by the ray `(origin, dir)` in the world.
#[inline(always)]
pub fn hit_surface(scene: &CpuScene, hit: &Hit, origin: Vec3A, dir: Vec3A) -> HitSurface {
    match scene.instances.get(hit.instance as usize) {
        None => {
            let s = surface(scene, hit.prim, origin, dir, hit.t);
            HitSurface { world: s, local: s }
        }
        Some(instance) => {
            let (o, d) = instance.ray(origin, dir);
            let local = surface(scene, hit.prim, o, d, hit.t);
            HitSurface { world: instance.surface_to_world(&local), local }
        }
    }
}

/// The material of `hit`: its instance's, when that replaces its triangles', else its
/// primitive's.
#[inline(always)]
pub fn hit_material<'s>(scene: &'s CpuScene, hit: &Hit) -> &'s Material {
    match scene.instances.get(hit.instance as usize).and_then(|i| i.material) {
        Some(m) => &scene.materials[m as usize],
        None => material(scene, hit.prim),
    }
}

/// [`dpduv`] at `hit`, in the world.
#[inline(always)]
pub fn hit_dpduv(scene: &CpuScene, hit: &Hit, s: &HitSurface) -> (Vec3A, Vec3A) {
    let (u, v) = dpduv(scene, hit.prim, &s.local);
    match scene.instances.get(hit.instance as usize) {
        None => (u, v),
        Some(instance) => (instance.dir_to_world(u), instance.dir_to_world(v)),
    }
}
