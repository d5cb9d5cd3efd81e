//! Path tracer over scene-compiler blobs: camera, backends (CUDA, CPU), film output.
pub mod backend;
pub mod camera;
