//! Path tracer over scene-compiler blobs: camera, backends (CUDA, CPU), film output.
pub mod backend;
pub mod camera;
pub mod cli;
pub mod job;
pub mod load;
pub mod output;
pub mod session;
pub mod timing;
pub mod view;
