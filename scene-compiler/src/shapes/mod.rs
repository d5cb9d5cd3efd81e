//! Primitive shapes as the compiler sees them. Each shape has one file here with its
//! bounds (for the BVH builder), its blob record (built from the scene, checked when a
//! blob is read, read back into the scene) and its list in the [`Scene`], and nothing
//! else: the shape's type and its form in a scene file are the scene's (`scene/`).
//! [`with_shape!`](crate::with_shape) is the one place that maps a [`PrimKind`] to its
//! shape type, and every per-kind step (bounds, counts, the blob's record sections,
//! their checks, reading them back) goes through it (docs/architecture.md, "Adding a
//! shape").
//!
//! Primitives are numbered kind after kind, in [`PrimKind::ALL`] order: the builder's
//! input, the per-primitive blob sections (`prim_materials`, `prim_sources`) and
//! [`BlobHeader::kind_first`](crate::records::layout::BlobHeader::kind_first) all use that
//! numbering. Within a kind the blob stores records in BVH leaf order.
//!
//! Not here: intersection (the backends), and the scene's types and format (`scene/`).

mod cuboid;
mod instance;
mod sphere;
mod triangle;

use rayon::prelude::*;

use crate::bvh::Aabb;
use crate::records::layout::{PrimKind, Record, VertexRecord};
use crate::scene::Scene;

pub use instance::{affine, placed_bounds};

/// Runs `$body` with the type name `$S` standing for the shape of kind `$kind` (a
/// [`PrimKind`]): `with_shape!(kind, S => S::of(scene).len())`. The one list of
/// kinds and their types; code generic over [`Shape`] reaches every kind through it.
#[macro_export]
macro_rules! with_shape {
    ($kind:expr, $S:ident => $body:expr) => {
        match $kind {
            $crate::records::layout::PrimKind::Sphere => {
                type $S = $crate::scene::Sphere;
                $body
            }
            $crate::records::layout::PrimKind::Box => {
                type $S = $crate::scene::Cuboid;
                $body
            }
            $crate::records::layout::PrimKind::Triangle => {
                type $S = $crate::scene::Triangle;
                $body
            }
            $crate::records::layout::PrimKind::Instance => {
                type $S = $crate::scene::Instance;
                $body
            }
        }
    };
}

/// What the compiler needs of every shape.
pub trait Shape: Sized + Clone + PartialEq + Sync {
    /// Stored in leaf links and primitive references.
    const KIND: PrimKind;
    /// The shape's record in its own blob section.
    type Record: Record;
    /// The scene's shapes of this kind.
    fn of(scene: &Scene) -> &[Self];
    /// The scene's list of this kind, to fill.
    fn of_mut(scene: &mut Scene) -> &mut Vec<Self>;
    /// The shape's record (geometry only; the material id has its own section).
    fn record(&self) -> Self::Record;
    /// The material id.
    fn material(&self) -> u32;
    /// The scene's shape back from its record and material (the loader checked both).
    fn from_record(record: &Self::Record, material: u32) -> Self;
    /// The box the BVH builder uses for a record. `vertices`: what a triangle's record
    /// indexes (the scene's, a bottom level's or the blob's); the other kinds' records
    /// hold all of their geometry and ignore it.
    fn record_bounds(record: &Self::Record, vertices: &[VertexRecord]) -> Aabb;
    /// The box of the shape's record ([`Shape::record_bounds`]), for a kind that can give
    /// it without encoding the record (an instance's holds the inverse of its placement).
    fn bounds(&self, vertices: &[VertexRecord]) -> Aabb {
        Self::record_bounds(&self.record(), vertices)
    }
    /// Why a record read from a blob cannot be rendered, if it cannot (its indices
    /// into `vertices` are in range: the blob reader checks them first).
    fn check_record(record: &Self::Record, vertices: &[VertexRecord]) -> Result<(), &'static str>;
    /// The area of the whole surface: an emitter's power is π times this times its
    /// radiance (docs/path-tracing.md, "Next-event estimation").
    fn surface_area(record: &Self::Record, vertices: &[VertexRecord]) -> f64;
}

/// Every primitive's bounds, kind after kind: what the BVH is built over. On all
/// cores: at 5M triangles one core took 0.16 s on the 2-core dev machine.
pub fn bounds(scene: &Scene) -> Vec<Aabb> {
    let mut bounds = Vec::with_capacity(PrimKind::ALL.iter().map(|&kind| count(scene, kind)).sum());
    for kind in PrimKind::ALL {
        let vertices = &scene.vertices.records;
        with_shape!(kind, S => bounds.par_extend(S::of(scene).par_iter().map(|s| s.bounds(vertices))));
    }
    bounds
}

/// How many primitives of `kind` the scene has.
pub fn count(scene: &Scene, kind: PrimKind) -> usize {
    with_shape!(kind, S => S::of(scene).len())
}

/// True when `a` and `b` hold the same primitives of every kind, in the same order
/// (the triangles' vertices too).
pub fn same_prims(a: &Scene, b: &Scene) -> bool {
    a.vertices == b.vertices && PrimKind::ALL.iter().all(|&kind| with_shape!(kind, S => S::of(a) == S::of(b)))
}

/// True when `a` and `b` hold as many primitives of every kind.
pub fn same_counts(a: &Scene, b: &Scene) -> bool {
    PrimKind::ALL.iter().all(|&kind| count(a, kind) == count(b, kind))
}

/// Where each kind after the first starts in the numbering of [`bounds`] (for the BVH
/// builder, which keeps each leaf to one kind); kinds with no primitives are left out.
pub fn kind_starts(scene: &Scene) -> Vec<u32> {
    let mut starts = Vec::new();
    let mut next = 0;
    for kind in PrimKind::ALL {
        let n = count(scene, kind);
        if next > 0 && n > 0 {
            starts.push(next as u32);
        }
        next += n;
    }
    starts
}
