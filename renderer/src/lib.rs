//! Path tracer over scene-compiler blobs: camera, backends (CUDA, CPU), film output.
pub mod backend;
pub mod camera;
#[cfg(feature = "cli")]
pub mod cli;
pub mod denoise;
pub mod fault;
pub mod job;
pub mod load;
pub mod output;
#[cfg(feature = "watch")]
pub mod session;
pub mod shard;
pub mod timing;
#[cfg(feature = "viewer")]
pub mod view;
