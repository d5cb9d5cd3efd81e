//! Render backends: one trait, two implementations of docs/path-tracing.md.
//!
//! `cuda` runs the kernels in `kernels/` through cudarc (driver + NVRTC, loaded at
//! run time); `cpu` runs the same algorithm in Rust with rayon. Both accumulate
//! into their own film and hand back tonemapped RGBA8, the linear average or the raw
//! sums; the film bookkeeping they share ([`FilmShape`], [`FilmShape::begin`]) lives
//! here, the host-side tonemap (exposure and view transform) in [`tonemap`]. [`multi`] splits each frame over
//! several backends (`--gpus`) and adds their sums on the host ([`sums`]).

pub mod constants;
pub mod cpu;
pub mod cuda;
pub mod features;
pub mod multi;
pub mod select;
pub mod specular_albedo;
pub mod sums;
pub mod tonemap;

use std::ops::Range;

use anyhow::bail;
use scene_compiler::BlobView;
use scene_compiler::blob::BlobEdit;

pub use self::sums::{FilmAverages, FilmSums, HostDenoised, HostFilm};
pub use self::tonemap::Tonemap;
pub use crate::denoise::Aovs;
pub use crate::job::RenderJob;

/// A film's size and the samples summed in it (both backends' bookkeeping).
///
/// A film holds one contiguous range of sample indices, `end - samples .. end`: it
/// starts fresh at a job's first sample (sample 0 of a render, or any sample for a
/// shard or one GPU's share) and is continued only by a job that starts at `end`.
/// What divides the sums is `samples`, the count rendered into this film, which is
/// not `end` when the film did not start at sample 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilmShape {
    pub width: u32,
    pub height: u32,
    /// Samples per pixel summed in the film.
    pub samples: u32,
    /// The sample index after the film's last one: where a continuing job starts.
    pub end: u32,
}

/// What a job does to the film it renders into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilmStart {
    /// Clear the film to the job's size first (`first_sample == 0`, or `fresh_film`).
    Fresh,
    /// Add to the samples already there.
    Continue,
}

/// What [`FilmShape::begin`] decided for a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilmUpdate {
    pub start: FilmStart,
    /// The film's shape once the job has rendered: the backend stores it after the render.
    pub after: FilmShape,
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

    /// The sample indices summed in the film.
    pub fn sample_range(&self) -> Range<u32> {
        self.end - self.samples..self.end
    }

    /// Checks `job` against the film it renders into (`None`: no film yet), says
    /// whether it starts a fresh one, and gives the film's shape after the job. The
    /// one place both backends (and [`multi::MultiBackend`]) decide this. Pixel and
    /// sample indices are 32-bit in the random streams, so larger images and sample
    /// ranges are refused.
    pub fn begin(film: Option<FilmShape>, job: &RenderJob) -> anyhow::Result<FilmUpdate> {
        let pixels = u64::from(job.width) * u64::from(job.height);
        if pixels == 0 || pixels > u64::from(u32::MAX) {
            bail!("cannot render a {}x{} image", job.width, job.height);
        }
        let Some(end) = job.first_sample.checked_add(job.samples) else {
            bail!("sample index {} + {} overflows 32 bits", job.first_sample, job.samples);
        };
        if job.first_sample == 0 || job.fresh_film {
            let after = FilmShape { width: job.width, height: job.height, samples: job.samples, end };
            return Ok(FilmUpdate { start: FilmStart::Fresh, after });
        }
        let film = film.unwrap_or_default();
        if (film.width, film.height, film.end) != (job.width, job.height, job.first_sample) {
            bail!(
                "render job continues a {}x{} film at sample {}, but the film is {}x{} and ends at sample {}",
                job.width,
                job.height,
                job.first_sample,
                film.width,
                film.height,
                film.end
            );
        }
        // `film.samples <= film.end == job.first_sample`, so the sum fits as `end` does.
        let after = FilmShape { samples: film.samples + job.samples, end, ..film };
        Ok(FilmUpdate { start: FilmStart::Continue, after })
    }
}

/// What a film will hold, for [`Backend::check_memory`]: its size and its layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilmSize {
    pub width: u32,
    pub height: u32,
    pub layers: FilmLayers,
}

/// A film's layers beyond its sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilmLayers {
    /// The image alone.
    Beauty,
    /// With AOV sums ([`RenderJob::aovs`]).
    Aovs,
    /// With AOV sums and the denoiser's working images ([`Backend::denoise`]).
    Denoised,
}

impl FilmLayers {
    /// The layers of a film with AOVs when `aovs`, denoised when `denoise` (which
    /// needs the AOVs).
    pub fn of(aovs: bool, denoise: bool) -> FilmLayers {
        match (aovs, denoise) {
            (_, true) => FilmLayers::Denoised,
            (true, false) => FilmLayers::Aovs,
            (false, false) => FilmLayers::Beauty,
        }
    }
}

impl FilmUpdate {
    /// Fails when a job continues a film that keeps AOVs without asking for them, or
    /// the reverse: a film's AOV sums must cover all its samples.
    pub fn check_aovs(&self, film_has_aovs: bool, job: &RenderJob) -> anyhow::Result<()> {
        if self.start == FilmStart::Continue && film_has_aovs != job.aovs {
            let (has, asks) = if film_has_aovs { ("keeps", "without") } else { ("has no", "with") };
            bail!("a job {asks} AOVs cannot continue a film that {has} them: start a fresh film (sample 0)");
        }
        Ok(())
    }
}

/// What one device of a [`multi::MultiBackend`] has rendered into the current film.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceShare {
    /// "GPU 1: CUDA · NVIDIA H200 (sm_90)".
    pub device: String,
    /// Samples per pixel this device rendered since the film was started.
    pub samples: u32,
    /// Its own render time (CUDA events) over those samples, milliseconds.
    pub render_ms: f64,
    /// Ray segments it traced over those samples.
    pub rays: u64,
    /// Its part of the last render call: the sample range and what it did.
    pub last_range: Range<u32>,
    pub last: FrameStats,
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
    /// Fails, saying both sizes, when `blob` and a `width × height` film with `layers`
    /// cannot fit on the device: called before [`Backend::upload`] so that no work is
    /// done for a scene that cannot fit. The CPU backend leaves that to the host's
    /// allocator.
    fn check_memory(&self, _blob: &BlobView<'_>, _film: FilmSize) -> anyhow::Result<()> {
        Ok(())
    }
    /// Copies the scene to the device (the whole blob in one copy on the GPU).
    fn upload(&mut self, blob: &BlobView<'_>) -> anyhow::Result<()>;
    /// Brings the device's scene up to date with `blob`, an in-place edit of a blob
    /// uploaded earlier (`edit`: `load::CompiledScene::edit`). The GPU copies the edited
    /// bytes alone when it holds the blob the edit started from; otherwise, and on
    /// backends without a cheaper way, it is [`Backend::upload`].
    fn update(&mut self, blob: &BlobView<'_>, _edit: &BlobEdit) -> anyhow::Result<()> {
        self.upload(blob)
    }
    /// Makes the film exactly `sums` (a checkpoint read back from disk): the next job
    /// that starts at `sums.shape.end` continues it, as if it had rendered them.
    fn restore_film(&mut self, sums: &FilmSums) -> anyhow::Result<()>;
    /// Adds `job.samples` samples per pixel to the film.
    fn render(&mut self, job: &RenderJob) -> anyhow::Result<FrameStats>;
    /// The film as 8-bit RGBA through `tonemap` (exposure, view transform), top row
    /// first. Reading again with another tonemap needs no render: the film is linear.
    fn read_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>>;
    /// The film's linear average per pixel (rgb, a = 1), top row first.
    fn read_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>>;
    /// The film's sums, not averages (f32 as accumulated, top row first), and its shape:
    /// what a partial film stores (`render --shard`) and what [`multi::MultiBackend`]
    /// adds up on the host.
    fn read_sums(&mut self) -> anyhow::Result<FilmSums>;
    /// The film's AOV layers (albedo, normal, depth: `crate::denoise`); fails when
    /// the film was rendered without AOVs ([`RenderJob::aovs`]).
    fn read_aovs(&mut self) -> anyhow::Result<Aovs>;
    /// Runs the denoiser on the film as it is now (its AOVs guide it) and keeps the
    /// result for [`Backend::read_denoised_rgba8`] and [`Backend::read_denoised_linear`]
    /// until the next render. Returns the time of the filter alone, milliseconds (CUDA
    /// events on the GPU). Fails when the film has no AOVs.
    fn denoise(&mut self) -> anyhow::Result<f64>;
    /// The denoised image as [`Backend::read_rgba8`] gives the film's.
    fn read_denoised_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>>;
    /// The denoised image as [`Backend::read_linear`] gives the film's.
    fn read_denoised_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>>;
    /// Per device, for a backend that splits frames over several devices
    /// ([`multi::MultiBackend`]); empty for a backend of one device.
    fn shares(&self) -> Vec<DeviceShare> {
        Vec::new()
    }
    /// Devices that failed and were left out, each with what failed: a backend of
    /// several devices ([`multi::MultiBackend`]) renders a failed device's samples on
    /// the others. Empty for a backend of one device, whose failures are errors.
    fn lost_devices(&self) -> Vec<DeviceLoss> {
        Vec::new()
    }
}

/// A device that failed during a render of several devices, and what became of its work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceLoss {
    /// "GPU 1 · NVIDIA H200 (sm_90)".
    pub device: String,
    /// The error, with its causes ("GPU 1 · …: rendering: launching render: …").
    pub error: String,
    /// The samples it lost, rendered again on the remaining devices.
    pub samples: Range<u32>,
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use scene_compiler::scene::{Camera, RenderSettings};

    use super::*;

    fn job(samples: Range<u32>) -> RenderJob {
        let settings =
            RenderSettings { width: 4, height: 2, spp: 64, max_depth: 8, seed: 1, ..RenderSettings::DEFAULT };
        let camera = Camera {
            look_from: Vec3::Z,
            look_at: Vec3::ZERO,
            up: Vec3::Y,
            vfov_deg: 40.0,
            aperture: 0.0,
            focus_dist: 1.0,
        };
        RenderJob::new(&settings, &camera, samples)
    }

    #[test]
    fn a_film_counts_its_samples_apart_from_their_indices() {
        let whole = FilmShape::begin(None, &job(0..8)).expect("fresh");
        assert_eq!(whole.start, FilmStart::Fresh);
        assert_eq!(whole.after, FilmShape { width: 4, height: 2, samples: 8, end: 8 });
        let next = FilmShape::begin(Some(whole.after), &job(8..10)).expect("continues");
        assert_eq!((next.start, next.after.samples, next.after.end), (FilmStart::Continue, 10, 10));

        // A shard: fresh at sample 16, divided by its own 8 samples, continued at 24.
        let shard = FilmShape::begin(Some(next.after), &job(16..24).on_fresh_film()).expect("fresh");
        assert_eq!(
            (shard.start, shard.after.samples, shard.after.sample_range()),
            (FilmStart::Fresh, 8, 16..24)
        );
        let more = FilmShape::begin(Some(shard.after), &job(24..30)).expect("continues the shard");
        assert_eq!((more.after.samples, more.after.sample_range()), (14, 16..30));
        assert_eq!(more.after.divisor(), 14.0);
    }

    #[test]
    fn a_job_that_does_not_continue_the_film_is_refused() {
        let film = FilmShape::begin(None, &job(16..24).on_fresh_film()).expect("fresh").after;
        assert!(FilmShape::begin(Some(film), &job(8..16)).is_err(), "a gap");
        assert!(FilmShape::begin(Some(film), &job(20..28)).is_err(), "an overlap");
        assert!(FilmShape::begin(None, &job(3..4)).is_err(), "no film to continue");
        assert!(
            FilmShape::begin(None, &job(u32::MAX..u32::MAX).with_samples(u32::MAX - 1..u32::MAX)).is_err()
        );
    }
}
