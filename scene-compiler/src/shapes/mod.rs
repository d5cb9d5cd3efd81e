//! Primitive shapes as the compiler sees them. Each shape has one file here with its
//! bounds (for the BVH builder), its blob record (built from the scene, checked when a
//! blob is read, read back into the scene) and nothing else; the functions below are
//! the one place that lists the shapes (docs/architecture.md, "Adding a shape").
//!
//! Primitives are numbered kind after kind, in [`PrimKind::ALL`] order: the builder's
//! input, the per-primitive blob sections (`prim_materials`, `prim_sources`) and
//! [`BlobHeader::kind_first`](crate::blob::layout::BlobHeader::kind_first) all use that
//! numbering. Within a kind the blob stores records in BVH leaf order.
//!
//! Not here: the RON schema of a shape (`scene/`), and intersection (the backends).

mod cuboid;
mod sphere;

use crate::blob::layout::{PrimKind, Record};
use crate::bvh::Aabb;
use crate::scene::{Cuboid, Scene, Sphere};

/// What the compiler needs of every shape.
pub trait Shape: Sized {
    /// Stored in leaf links and primitive references.
    const KIND: PrimKind;
    /// The shape's record in its own blob section.
    type Record: Record;
    /// The shape's record (geometry only; the material id has its own section).
    fn record(&self) -> Self::Record;
    /// The material id.
    fn material(&self) -> u32;
    /// The scene's shape back from its record and material (the loader checked both).
    fn from_record(record: &Self::Record, material: u32) -> Self;
    /// The box the BVH builder uses for a record.
    fn record_bounds(record: &Self::Record) -> Aabb;
    /// Why a record read from a blob cannot be rendered, if it cannot.
    fn check_record(record: &Self::Record) -> Result<(), &'static str>;
}

/// Every primitive's bounds, kind after kind: what the BVH is built over.
pub fn bounds(scene: &Scene) -> Vec<Aabb> {
    let spheres = scene.spheres.iter().map(|s| Sphere::record_bounds(&s.record()));
    let boxes = scene.boxes.iter().map(|b| Cuboid::record_bounds(&b.record()));
    spheres.chain(boxes).collect()
}

/// How many primitives of `kind` the scene has.
pub fn count(scene: &Scene, kind: PrimKind) -> usize {
    match kind {
        PrimKind::Sphere => scene.spheres.len(),
        PrimKind::Box => scene.boxes.len(),
    }
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
