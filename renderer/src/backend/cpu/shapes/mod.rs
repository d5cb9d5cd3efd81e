//! Primitive shapes on the CPU: the one place the CPU backend dispatches on a
//! primitive's kind (CUDA twin: kernels/shapes.cuh). Leaf links and hits carry a
//! primitive reference (kind and index within the kind, docs/blob-format.md). Each
//! shape implements [`CpuShape`] in its own file: intersection, the hit's surface, and
//! sampling itself as a light, so every emissive shape is a light without the
//! integrator knowing its kind (pbrt-v4's `Shape::Sample`). [`with_shapes!`] is the one
//! match over kinds; adding a shape adds its list to [`Shapes`] and an arm there.
//!
//! Not here: the records' layout (scene-compiler `blob/layout.rs`), the light table
//! (`lights.rs`).

pub mod cuboid;
pub mod sphere;
pub mod triangle;

use glam::{Vec2, Vec3A, Vec4};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{
    NO_TEXTURE, PRIM_KIND_MASK, PrimKind, TEXTURE_SLOT_COLOR, leaf_prims, prim_parts,
};

use self::cuboid::Cuboid;
use self::sphere::Sphere;
use self::triangle::Triangle;
use super::rng::ray_hash;
use super::scene::{Alpha, CpuScene, Material};

/// What the CPU backend needs of every shape; its CUDA twin is one case per operation
/// in kernels/shapes.cuh.
pub trait CpuShape {
    /// The distance to the shape along unit `dir` in `(0, t_max)`.
    fn intersect(&self, origin: Vec3A, dir: Vec3A, t_max: f32) -> Option<f32>;
    /// The hit at distance `t` (from [`CpuShape::intersect`]), with its error bound.
    fn surface(&self, origin: Vec3A, dir: Vec3A, t: f32) -> Surface;
    /// A direction from surface point `p` towards a point of the shape, for a shadow
    /// ray from `o` (`p` offset off its surface); `None` when `p` sees none of it.
    fn sample_towards(&self, p: Vec3A, o: Vec3A, u: [f32; 2]) -> Option<LightSample>;
    /// The solid-angle density with which [`CpuShape::sample_towards`] from `from`
    /// picks the direction that reaches `hit` on the shape (0 if it never does).
    fn pdf_towards(&self, from: Vec3A, hit: &Surface) -> f32;
    /// The texture coordinates of `hit` on the shape (docs/path-tracing.md, "Textures").
    fn uv(&self, hit: &Surface) -> Vec2;
    /// The directions in which [`CpuShape::uv`]'s `u` and `v` grow at `hit`, not
    /// normalised: a normal map's tangent frame (docs/path-tracing.md, "Normal maps").
    fn dpduv(&self, hit: &Surface) -> (Vec3A, Vec3A);
}

/// A direction towards a light's shape, drawn for next-event estimation.
#[derive(Clone, Copy, Debug)]
pub struct LightSample {
    /// Unit direction from the shading point.
    pub wi: Vec3A,
    /// The shadow ray's length: where it reaches the shape.
    pub t_max: f32,
    /// One over the direction's solid-angle density (for a cone: its solid angle).
    pub inv_pdf: f32,
}

/// Every kind's shapes, in BVH leaf order.
#[derive(Clone, Debug)]
pub struct Shapes {
    pub spheres: Vec<Sphere>,
    pub boxes: Vec<Cuboid>,
    pub triangles: Vec<Triangle>,
    /// Per triangle (same index), its vertex tangents when the blob has them, else
    /// empty: the twin of the kernels' `params.triangle_tangents`, kept beside the
    /// triangles so that a scene without normal maps carries none of it where rays
    /// intersect.
    pub triangle_tangents: Vec<[Vec4; 3]>,
}

/// Runs `$body` with `$list` bound to the slice of `$shapes` (a [`Shapes`]) holding
/// kind `$kind` (a [`PrimKind`]): the one match over kinds in the CPU backend.
macro_rules! with_shapes {
    ($shapes:expr, $kind:expr, $list:ident => $body:expr) => {
        match $kind {
            PrimKind::Sphere => {
                let $list = &$shapes.spheres[..];
                $body
            }
            PrimKind::Box => {
                let $list = &$shapes.boxes[..];
                $body
            }
            PrimKind::Triangle => {
                let $list = &$shapes.triangles[..];
                $body
            }
        }
    };
}

impl Shapes {
    /// Copies the records of a validated blob.
    pub fn from_blob(blob: &BlobView<'_>) -> Shapes {
        use scene_compiler::scene;
        Shapes {
            spheres: blob.records::<scene::Sphere>().iter().map(Sphere::from_record).collect(),
            boxes: blob.records::<scene::Cuboid>().iter().map(Cuboid::from_record).collect(),
            triangles: {
                let records = blob.records::<scene::Triangle>();
                let normals = blob.triangle_normals.iter().map(Some).chain(std::iter::repeat(None));
                let uvs = blob.triangle_uvs.iter().map(Some).chain(std::iter::repeat(None));
                records
                    .iter()
                    .zip(normals)
                    .zip(uvs)
                    .map(|((r, n), uv)| Triangle::from_record(r, n, uv))
                    .collect()
            },
            triangle_tangents: blob
                .triangle_tangents
                .iter()
                .map(|t| [t.t0, t.t1, t.t2].map(Vec4::from_array))
                .collect(),
        }
    }
}

/// The kind of primitive reference (or leaf link) `prim`.
#[inline(always)]
fn kind_of(prim: u32) -> PrimKind {
    let kind = prim_parts(prim).0;
    PrimKind::from_u32(kind).unwrap_or_else(|| unreachable!("BlobView::parse refuses primitive kind {kind}"))
}

/// A hit point on a surface (docs/path-tracing.md "Robust hits").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surface {
    /// On the surface, as exactly as f32 allows.
    pub point: Vec3A,
    /// A per-component bound of `point`'s floating-point error.
    pub error: Vec3A,
    /// The unit normal pointing out of the primitive: it decides inside and outside and
    /// where a ray leaving the surface starts.
    pub normal: Vec3A,
    /// The unit normal that shades: `normal`, but for a mesh with vertex normals their
    /// interpolation (docs/path-tracing.md, "Shading normals").
    pub shading: Vec3A,
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
    let index = prim_parts(first).1;
    let kind_bits = first & PRIM_KIND_MASK;
    with_shapes!(scene.shapes, kind_of(first), list => {
        for i in index..index + count {
            if let Some(t) = list[i as usize].intersect(origin, dir, *t_closest)
                && !(scene.has_alpha && cut_out(scene, kind_bits | i, origin, dir, t))
            {
                *t_closest = t;
                *closest = Some(kind_bits | i);
            }
        }
    })
}

/// True when a primitive of leaf link `leaf` other than `skip` is hit in `(0, t_max)`.
#[inline(always)]
pub fn occludes_leaf(scene: &CpuScene, leaf: u32, origin: Vec3A, dir: Vec3A, t_max: f32, skip: u32) -> bool {
    let (first, count) = leaf_prims(leaf);
    let index = prim_parts(first).1;
    let kind_bits = first & PRIM_KIND_MASK;
    with_shapes!(scene.shapes, kind_of(first), list => (index..index + count).any(|i| {
        kind_bits | i != skip
            && list[i as usize]
                .intersect(origin, dir, t_max)
                .is_some_and(|t| !(scene.has_alpha && cut_out(scene, kind_bits | i, origin, dir, t)))
    }))
}

/// Whether the ray's hit at `t` on primitive `prim` falls where its material's alpha
/// (its `alpha` times its colour texture's) cuts the surface out: below the cutoff
/// (`Mask`), or below a number the ray hashes to (`Blend`: transparent with probability
/// 1 - alpha). The any-hit test of both queries (docs/path-tracing.md, "Alpha").
#[inline(never)]
fn cut_out(scene: &CpuScene, prim: u32, origin: Vec3A, dir: Vec3A, t: f32) -> bool {
    let m = material(scene, prim);
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
