//! Render backends: one trait, two implementations of docs/path-tracing.md.
//!
//! `cuda` runs the kernels in `kernels/` through cudarc (driver + NVRTC, loaded at
//! run time); `cpu` runs the same algorithm in Rust with rayon. Both accumulate
//! into their own film and hand back tonemapped RGBA8 or the linear average; the
//! film bookkeeping they share ([`FilmShape`], [`FilmShape::start`]) lives here.

pub mod cpu;
pub mod cuda;
pub mod select;

use anyhow::bail;
use scene_compiler::BlobView;

pub use crate::job::RenderJob;

/// A film's size and the samples per pixel summed in it (both backends' bookkeeping).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilmShape {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
}

/// What a job does to the film it renders into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilmStart {
    /// Clear the film to the job's size first (`first_sample == 0`).
    Fresh,
    /// Add to the samples already there.
    Continue,
}

impl FilmShape {
    /// Pixels in the film.
    pub fn pixels(&self) -> u32 {
        self.width * self.height
    }

    /// What divides the sums: the sample count, 1 for an empty film (black, not NaN).
    pub fn divisor(&self) -> f32 {
        self.samples.max(1) as f32
    }

    /// Checks `job` against the film it renders into (`None`: no film yet) and says
    /// whether it starts a fresh one. Pixel and sample indices are 32-bit in the random
    /// streams, so larger images and sample ranges are refused.
    pub fn start(film: Option<FilmShape>, job: &RenderJob) -> anyhow::Result<FilmStart> {
        let pixels = u64::from(job.width) * u64::from(job.height);
        if pixels == 0 || pixels > u64::from(u32::MAX) {
            bail!("cannot render a {}x{} image", job.width, job.height);
        }
        if job.first_sample.checked_add(job.samples).is_none() {
            bail!("sample index {} + {} overflows 32 bits", job.first_sample, job.samples);
        }
        if job.first_sample == 0 {
            return Ok(FilmStart::Fresh);
        }
        let film = film.unwrap_or_default();
        if (film.width, film.height, film.samples) != (job.width, job.height, job.first_sample) {
            bail!(
                "render job continues a {}x{} film at sample {}, but the film is {}x{} with {} samples",
                job.width,
                job.height,
                job.first_sample,
                film.width,
                film.height,
                film.samples
            );
        }
        Ok(FilmStart::Continue)
    }
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
