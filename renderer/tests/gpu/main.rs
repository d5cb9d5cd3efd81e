//! The kernels and the CUDA backend: the generated kernel headers are current, the
//! kernels compile with NVRTC (no GPU needed), and, on a GPU, renders, determinism,
//! GPU against CPU and several GPUs. Tests that need a GPU or NVRTC are `#[ignore]`d;
//! the GPU machine runs them with `--include-ignored` (tools/gpu-run.sh), CI runs
//! the NVRTC ones with `--ignored nvrtc_compile::` (.ci/run). `faults` injects CUDA
//! failures (docs/faults.md).

mod gpu_support;

mod denoise;
mod faults;
mod launch_params_header;
mod multi;
mod nvrtc_compile;
mod render;
mod view_transforms;
mod vs_cpu;
