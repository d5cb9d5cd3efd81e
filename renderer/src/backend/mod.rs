//! Render backends: one trait, two implementations of docs/path-tracing.md.
//!
//! `cuda` runs the kernels in `kernels/` through cudarc (driver + NVRTC, loaded at
//! run time); `cpu` runs the same algorithm in Rust with rayon. Both accumulate
//! into their own film and hand back tonemapped RGBA8 or the linear average.

pub mod cpu;
pub mod cuda;
pub mod select;

use scene_compiler::BlobView;

use crate::camera::CameraFrame;

/// What one call of [`Backend::render`] computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderJob {
    pub width: u32,
    pub height: u32,
    pub max_depth: u32,
    pub seed: u32,
    /// Samples per pixel already in the film; 0 clears it first.
    pub first_sample: u32,
    /// Samples per pixel to add in this call.
    pub samples: u32,
    pub camera: CameraFrame,
}

/// What one call of [`Backend::render`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Time of the render work alone (CUDA events on the GPU, wall clock on the CPU).
    pub render_ms: f64,
    /// Camera samples traced (pixels × samples).
    pub samples: u64,
    /// Ray segments traced (closest-hit queries), for Mrays/s.
    pub rays: u64,
}

/// How the kernels were obtained when a backend started (GPU only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelCompile {
    pub time: std::time::Duration,
    /// True when the compiled module came from the disk cache.
    pub cached: bool,
}

/// Registers and memory of one kernel as the driver loaded it (cuFuncGetAttribute),
/// and the occupancy they allow at the launch's block size.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KernelResources {
    pub kernel: &'static str,
    pub registers: u32,
    /// Local memory per thread: the traversal stack plus any register spills.
    pub local_bytes: u32,
    pub shared_bytes: u32,
    pub const_bytes: u32,
    /// Threads per block of the launches.
    pub block_threads: u32,
    /// Blocks of `block_threads` resident per SM (cuOccupancyMaxActiveBlocksPerMultiprocessor).
    pub blocks_per_sm: u32,
}

/// A path tracer that owns a scene on its device and a film.
pub trait Backend {
    /// "CUDA · NVIDIA H100 80GB HBM3 (sm_90)" or "CPU · 16 threads".
    fn device_name(&self) -> String;
    /// Kernel compilation at start-up; `None` for backends without kernels.
    fn kernel_compile(&self) -> Option<KernelCompile> {
        None
    }
    /// Recompiles the kernels from `kernels_dir` and swaps them in; on an error the old
    /// kernels stay. `Ok(None)` for backends without kernels.
    fn reload_kernels(&mut self, _kernels_dir: &std::path::Path) -> anyhow::Result<Option<KernelCompile>> {
        Ok(None)
    }
    /// Registers, local memory and occupancy of the kernels; empty for backends without kernels.
    fn kernel_resources(&self) -> anyhow::Result<Vec<KernelResources>> {
        Ok(Vec::new())
    }
    /// Copies the scene to the device (the whole blob in one copy on the GPU).
    fn upload(&mut self, blob: &BlobView<'_>) -> anyhow::Result<()>;
    /// Adds `job.samples` samples per pixel to the film.
    fn render(&mut self, job: &RenderJob) -> anyhow::Result<FrameStats>;
    /// The film as 8-bit RGBA, gamma 2, top row first.
    fn read_rgba8(&mut self) -> anyhow::Result<Vec<u8>>;
    /// The film's linear average per pixel (rgb, a = 1), top row first.
    fn read_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>>;
}
