//! Primitive shapes on the CPU: the one place the CPU backend dispatches on a
//! primitive's kind (CUDA twin: kernels/shapes.cuh). Leaf links and hits carry a
//! primitive reference (kind and index within the kind, docs/blob-format.md). Each
//! shape implements [`CpuShape`] in its own file: intersection, the hit's surface, and
//! sampling itself as a light, so every emissive shape is a light without the
//! integrator knowing its kind (pbrt-v4's `Shape::Sample`). [`with_shapes!`] is the one
//! match over kinds; adding a shape adds its list to [`Shapes`] and an arm there.
//!
//! Not here: the records' layout (scene-compiler `records/layout.rs`), the light table
//! (`lights.rs`), a primitive of the scene by its reference (`prims.rs`).

pub mod cuboid;
mod shape;
pub mod sphere;
pub mod triangle;

pub use self::shape::{CpuShape, LightSample, Surface, area_pdf_towards, offset_ray_origin};

use glam::Vec4;
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{PrimKind, prim_parts};

use self::cuboid::Cuboid;
use self::sphere::Sphere;
use self::triangle::Triangle;

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
            PrimKind::Instance => unreachable!("an instance is not a shape: the traversal walks into it"),
        }
    };
}
pub(super) use with_shapes;

impl Shapes {
    /// Copies the records of a validated blob.
    pub fn from_blob(blob: &BlobView<'_>) -> Shapes {
        use scene_compiler::scene;
        Shapes {
            spheres: blob.records::<scene::Sphere>().iter().map(Sphere::from_record).collect(),
            boxes: blob.records::<scene::Cuboid>().iter().map(Cuboid::from_record).collect(),
            triangles: blob
                .records::<scene::Triangle>()
                .iter()
                .map(|r| Triangle::from_record(r, blob.vertices, blob.vertex_uvs))
                .collect(),
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
pub fn kind_of(prim: u32) -> PrimKind {
    let kind = prim_parts(prim).0;
    PrimKind::from_u32(kind).unwrap_or_else(|| unreachable!("BlobView::parse refuses primitive kind {kind}"))
}
