//! The CPU backend: docs/path-tracing.md in Rust, parallel over image rows with rayon.
//!
//! Files follow the kernels' order: [`rng`] (PCG), [`sampler`] (independent or
//! Sobol numbers by dimension), [`integrator`] (generate camera ray, one sample),
//! [`aov`] (a sample's AOVs, the AOV rays), [`traverse`] (BVH and sphere), [`scatter`]
//! (materials), [`film`] (accumulate, tonemap). [`scene`] holds the owned copy of the blob.
//! Every (pixel, sample) has its own random stream and each pixel adds its samples
//! in sample order, so the image for a seed is the same bits for any thread count,
//! and for one call of 8 samples or two calls of 4.

pub mod aov;
pub mod direct;
pub mod environment;
pub mod film;
pub mod instances;
pub mod integrator;
pub mod lights;
pub mod material;
pub mod prims;
pub mod principled;
pub mod rng;
pub mod sampler;
pub mod sampling;
pub mod scatter;
pub mod scene;
pub mod shading;
pub mod shapes;
pub mod textures;
pub mod traverse;

use std::time::Instant;

use anyhow::Context;
use glam::Vec3A;
use rayon::prelude::*;
use scene_compiler::BlobView;
use scene_compiler::blob::BlobEdit;
use scene_compiler::scene::SamplerKind;

use self::aov::trace_sample_with_aovs;
use self::film::Film;
use self::integrator::{Camera, Pixel, trace_sample};
use self::rng::{Rng, pcg_hash};
use self::sampler::{Sampler, Sobol};
use self::scene::CpuScene;
use super::{Aovs, Backend, FilmShape, FilmStart, FilmSums, FrameStats, HostDenoised, RenderJob, Tonemap};
use crate::denoise::AovSample;
use crate::fault::{FAULTS_ENV, Faults, Stage};

/// Renders on the CPU with rayon's current thread pool.
#[derive(Debug, Default)]
pub struct CpuBackend {
    scene: Option<CpuScene>,
    film: Film,
    /// The film's image through the denoiser, until the next render.
    denoised: HostDenoised,
    /// Injected faults (`RENDERER_FAULTS`, as on the GPU) and the operations counted.
    faults: Faults,
    counts: [u64; 3],
}

impl CpuBackend {
    /// A backend with no scene; call [`Backend::upload`] before rendering. It takes
    /// the fault plan of `RENDERER_FAULTS` (tests of what the programs do when a
    /// device fails); the programs check the plan's syntax themselves.
    pub fn new() -> CpuBackend {
        CpuBackend { faults: Faults::from_env().unwrap_or_default(), ..CpuBackend::default() }
    }

    /// Counts one operation of `stage` and fails it when the fault plan says so.
    fn inject(&mut self, stage: Stage) -> anyhow::Result<()> {
        let slot = stage as usize;
        self.counts[slot] += 1;
        if self.faults.fails(stage, self.counts[slot], 0) {
            anyhow::bail!("CPU: {} #{} failed (injected by {FAULTS_ENV})", stage.name(), self.counts[slot]);
        }
        Ok(())
    }
}

impl Backend for CpuBackend {
    fn device_name(&self) -> String {
        format!("CPU · {} threads", rayon::current_num_threads())
    }

    fn upload(&mut self, blob: &BlobView<'_>) -> anyhow::Result<()> {
        self.inject(Stage::Upload)?;
        self.scene = Some(CpuScene::from_blob(blob));
        Ok(())
    }

    /// The edited instances and node boxes alone, when the copy is of the blob the
    /// edit started from.
    fn update(&mut self, blob: &BlobView<'_>, edit: &BlobEdit) -> anyhow::Result<()> {
        self.inject(Stage::Upload)?;
        if !self.scene.as_mut().is_some_and(|scene| scene.apply_edit(blob, edit)) {
            self.scene = Some(CpuScene::from_blob(blob));
        }
        Ok(())
    }

    fn render(&mut self, job: &RenderJob) -> anyhow::Result<FrameStats> {
        if job.samples > 0 {
            self.inject(Stage::Launch)?;
        }
        let scene =
            self.scene.as_ref().context("no scene on the CPU backend: upload one before rendering")?;
        let film = FilmShape::begin(Some(self.film.shape), job)?;
        film.check_aovs(!self.film.aovs.is_empty(), job)?;
        if film.start == FilmStart::Fresh {
            self.film.reset(job.width, job.height, job.aovs);
        }
        self.denoised.clear();
        let pixels = u64::from(job.width) * u64::from(job.height);
        let start = Instant::now();
        let camera = Camera::from(&job.camera);
        let seed_hash = pcg_hash(job.seed);
        let width = job.width as usize;
        let rows = self.film.sums.par_chunks_mut(width).enumerate();
        let rays = if job.aovs {
            let aov_rows = self.film.aovs.par_chunks_mut(width);
            rows.zip(aov_rows)
                .map(|((y, row), aovs)| {
                    render_row_with(job.sampler, scene, &camera, job, seed_hash, y, row, Some(aovs))
                })
                .sum()
        } else {
            rows.map(|(y, row)| render_row_with(job.sampler, scene, &camera, job, seed_hash, y, row, None))
                .sum()
        };
        self.film.shape = film.after;
        Ok(FrameStats {
            render_ms: start.elapsed().as_secs_f64() * 1e3,
            samples: pixels * u64::from(job.samples),
            rays,
        })
    }

    fn restore_film(&mut self, sums: &FilmSums) -> anyhow::Result<()> {
        let shape = sums.shape;
        if sums.sums.len() != shape.pixels() as usize {
            anyhow::bail!("{} sums for a {}x{} film", sums.sums.len(), shape.width, shape.height);
        }
        if !sums.aovs.is_empty() && sums.aovs.len() != sums.sums.len() {
            anyhow::bail!("{} AOV sums for a {}x{} film", sums.aovs.len(), shape.width, shape.height);
        }
        self.film.shape = shape;
        self.film.sums = sums.sums.iter().map(|&s| Vec3A::from_array(s)).collect();
        self.film.aovs = sums.aovs.clone();
        self.denoised.clear();
        Ok(())
    }

    fn read_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        self.inject(Stage::Readback)?;
        Ok(self.film.rgba8(tonemap))
    }

    fn read_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        self.inject(Stage::Readback)?;
        Ok(self.film.linear())
    }

    fn read_sums(&mut self) -> anyhow::Result<FilmSums> {
        self.inject(Stage::Readback)?;
        Ok(self.film.sums())
    }

    fn read_aovs(&mut self) -> anyhow::Result<Aovs> {
        self.inject(Stage::Readback)?;
        Aovs::from_sums(&self.film.aovs, self.film.shape.divisor())
    }

    fn denoise(&mut self) -> anyhow::Result<f64> {
        self.denoised.run(&self.film.averages())
    }

    fn read_denoised_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        self.inject(Stage::Readback)?;
        self.denoised.rgba8(tonemap)
    }

    fn read_denoised_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        self.inject(Stage::Readback)?;
        self.denoised.linear()
    }
}

/// [`render_row`] with the job's sampler.
#[allow(clippy::too_many_arguments)]
fn render_row_with(
    sampler: SamplerKind,
    scene: &CpuScene,
    camera: &Camera,
    job: &RenderJob,
    seed_hash: u32,
    y: usize,
    row: &mut [Vec3A],
    aovs: Option<&mut [AovSample]>,
) -> u64 {
    match sampler {
        SamplerKind::Independent => render_row::<Rng>(scene, camera, job, seed_hash, y as u32, row, aovs),
        SamplerKind::Sobol => render_row::<Sobol>(scene, camera, job, seed_hash, y as u32, row, aovs),
    }
}

/// Adds `job.samples` samples to each pixel of row `y`, in sample order, drawn from
/// sampler `S` (`job.sampler`), and their AOVs to `aovs` when given; returns the rays
/// traced.
fn render_row<S: Sampler>(
    scene: &CpuScene,
    camera: &Camera,
    job: &RenderJob,
    seed_hash: u32,
    y: u32,
    row: &mut [Vec3A],
    mut aovs: Option<&mut [AovSample]>,
) -> u64 {
    let mut rays = 0;
    let aov_seed_hash = aov::aov_seed_hash(seed_hash);
    for (x, sum) in row.iter_mut().enumerate() {
        let pixel = Pixel { x: x as u32, y, width: job.width, height: job.height };
        let pixel_index = y * job.width + pixel.x;
        let mut acc = *sum;
        for s in 0..job.samples {
            let index = job.first_sample + s;
            let mut sampler = S::start(pixel_index, index, seed_hash);
            if let Some(aovs) = aovs.as_deref_mut() {
                let (value, aov) = trace_sample_with_aovs(
                    scene,
                    camera,
                    pixel,
                    pixel_index,
                    index,
                    aov_seed_hash,
                    job.max_depth,
                    job.nee,
                    &mut sampler,
                    &mut rays,
                );
                acc += value;
                aovs[x].add(&aov);
            } else {
                acc +=
                    trace_sample(scene, camera, pixel, job.max_depth, job.nee, &mut sampler, &mut rays, None);
            }
        }
        *sum = acc;
    }
    rays
}
