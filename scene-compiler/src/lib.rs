//! Scene compiler: RON text -> validated [`Scene`] -> BVH -> GPU-ready blob bytes.
//!
//! Data flows one way (see docs/architecture.md): [`scene::parse`] parses and validates,
//! [`bvh::build`] builds a plain tree, [`bvh::veb`] optionally reorders it, and
//! [`blob::write`] lays everything out as one 16-byte-aligned SoA blob that
//! [`blob::BlobView::parse`] reads back zero-copy.
//!
//! CUDA: this crate never runs or links it, but it owns the kernels' *data layout*.
//! The blob records ([`blob::layout`]) are the single source of truth for
//! `kernels/blob_layout.cuh`, whose text [`blob::cuda_header`] generates, and
//! [`blob_record!`] lets other crates declare their own records shared with the
//! kernels the same way.
//!
//! Features: `cli` (default) builds the `scene-compiler` binary and pulls in its
//! command-line dependencies; the library needs none of them (`default-features = false`).

#[cfg(not(target_endian = "little"))]
compile_error!("the blob format is little-endian and read zero-copy");

pub mod blob;
pub mod bvh;
mod chunk_counts;
pub mod compile;
pub mod files;
mod find_first;
pub mod limits;
pub mod memory;
pub mod meshes;
pub mod moves;
pub mod procedural;
pub mod procedural_sky;
pub mod ranges;
pub mod records;
pub mod rng;
pub mod scene;
pub mod shapes;
pub mod sphere_files;
pub mod tangents;
pub mod terrain;
pub mod testing;

pub use blob::{AlignedBytes, BlobError, BlobView};
pub use compile::{
    CompileOptions, Compiled, Previous, REFIT_MAX_COST, compile_scene, compile_scene_into,
    compile_scene_reusing,
};
pub use scene::{LoadError, Scene};
