//! Scene compiler: RON text -> validated [`Scene`] -> BVH -> GPU-ready blob bytes.
//!
//! Data flows one way (see DESIGN.md): [`scene::parse`] parses and validates,
//! [`bvh::build`] builds a plain tree, [`bvh::veb`] optionally reorders it, and
//! [`blob::write`] lays everything out as one 16-byte-aligned SoA blob that
//! [`blob::BlobView::parse`] reads back zero-copy. This crate knows nothing of CUDA.

#[cfg(not(target_endian = "little"))]
compile_error!("the blob format is little-endian and read zero-copy");

pub mod blob;
pub mod bvh;
pub mod compile;
pub mod scene;

pub use blob::{AlignedBytes, BlobError, BlobView};
pub use compile::{CompileOptions, Compiled, compile_scene};
pub use scene::{LoadError, Scene};
