//! The CUDA backend: the kernels in `kernels/` run through cudarc's driver API, with
//! NVRTC and libcuda loaded at run time, so the renderer builds and runs (on the CPU)
//! on machines without CUDA.
//!
//! Start-up ([`CudaBackend::new`], [`CudaBackend::on_device`]): a context on one
//! device (0 unless told), kernels compiled for its architecture or taken from the
//! disk cache. Several GPUs are several backends, one per device, driven by
//! [`super::multi::MultiBackend`] (`--gpus`). [`Backend::upload`] copies the blob
//! payload in one copy and repacks its BVH nodes on the device (`DeviceScene`); [`Backend::render`] writes the per-launch parameters into the
//! kernel's `__constant__` block and launches one thread per pixel, timed by CUDA
//! events; reads run the tonemap kernel or copy the sums back.
//! [`Backend::reload_kernels`] recompiles from a folder and swaps the module only on
//! success. Every CUDA failure is an error with context — the GPU and the stage
//! (upload, rendering, reading back) — and panics inside cudarc are caught and become
//! errors. [`Backend::check_memory`] compares what a scene and film need with the
//! GPU's free memory before an upload (`memory`); the fault plan (`crate::fault`,
//! `RENDERER_FAULTS`) can fail the Nth upload, launch or read-back for tests.

mod cache;
mod device;
mod film;
pub mod memory;
mod module;
mod nvrtc;
mod options;
mod params;
mod scene;
mod sources;

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use scene_compiler::BlobView;
use scene_compiler::blob::BlobEdit;
use scene_compiler::blob::layout::{PrimKind, view_code};
use scene_compiler::blob::record::DevicePtrMut;

use self::device::guard;
pub use self::device::{driver_available, probe_driver};
use self::film::{DenoiseBuffers, DeviceFilm};
use self::module::KernelModule;
pub use self::nvrtc::{Cubin, NVRTC_LIB_ENV, Nvrtc};
pub use self::options::{BLOCK_ENV, CACHE_ENV, DEFINES_ENV, KernelOptions};
use self::params::{DENOISE_BLOCK, FILM_THREADS, LaunchParams, film_launch};
use self::scene::DeviceScene;
pub use self::sources::{KernelSource, KernelSources, is_kernel_source};
use super::features::{self, Variant};
use super::{
    Aovs, Backend, FilmLayers, FilmShape, FilmSize, FilmStart, FilmSums, FrameStats, KernelCompile,
    KernelResources, RenderJob, Tonemap,
};
use crate::denoise::{AovSample, NO_AOVS_TO_DENOISE, NOTHING_DENOISED, constants::ATROUS_PASSES};
use crate::fault::{FAULTS_ENV, Faults, Stage};

/// The path tracer on one CUDA GPU (device 0 unless told).
pub struct CudaBackend {
    stream: Arc<CudaStream>,
    ordinal: usize,
    multiprocessors: u32,
    /// The module for the uploaded scene's features (`backend::features`).
    kernels: KernelModule,
    /// What the kernels are compiled from: again for another scene's features.
    sources: KernelSources,
    options: KernelOptions,
    device_name: String,
    /// "NVIDIA H200 (sm_90)".
    model: String,
    arch: String,
    scene: Option<DeviceScene>,
    film: Option<DeviceFilm>,
    ray_count: CudaSlice<u64>,
    start: CudaEvent,
    end: CudaEvent,
    /// Injected faults (`RENDERER_FAULTS`) and how many of each stage ran so far.
    faults: Faults,
    counts: [u64; 3],
}

impl CudaBackend {
    /// Starts on device 0 with the embedded kernels, or those in `kernels_dir`, and
    /// the options from the environment ([`KernelOptions::from_env`]).
    pub fn new(kernels_dir: Option<&Path>) -> anyhow::Result<CudaBackend> {
        CudaBackend::with_options(kernels_dir, KernelOptions::from_env()?)
    }

    /// As [`CudaBackend::new`] on device `ordinal` (as `nvidia-smi` numbers them,
    /// unless `CUDA_VISIBLE_DEVICES` renumbers them).
    pub fn on_device(ordinal: usize, kernels_dir: Option<&Path>) -> anyhow::Result<CudaBackend> {
        CudaBackend::with_options_on(ordinal, kernels_dir, KernelOptions::from_env()?)
    }

    /// As [`CudaBackend::new`] with explicit options.
    pub fn with_options(kernels_dir: Option<&Path>, options: KernelOptions) -> anyhow::Result<CudaBackend> {
        CudaBackend::with_options_on(0, kernels_dir, options)
    }

    /// As [`CudaBackend::on_device`] with explicit options.
    pub fn with_options_on(
        ordinal: usize,
        kernels_dir: Option<&Path>,
        options: KernelOptions,
    ) -> anyhow::Result<CudaBackend> {
        options.validate()?;
        let sources = match kernels_dir {
            Some(dir) => KernelSources::from_dir(dir)?,
            None => KernelSources::embedded(),
        };
        let count = probe_driver()?;
        if ordinal >= count {
            bail!("there is no GPU {ordinal}: the CUDA driver reports {count} (numbered from 0)");
        }
        guard("starting the CUDA backend", || CudaBackend::start(ordinal, sources, options))
    }

    fn start(ordinal: usize, sources: KernelSources, options: KernelOptions) -> anyhow::Result<CudaBackend> {
        let ctx =
            CudaContext::new(ordinal).with_context(|| format!("creating a CUDA context on GPU {ordinal}"))?;
        let (major, minor) = ctx.compute_capability().context("reading the GPU's compute capability")?;
        let arch = format!("sm_{major}{minor}");
        let name = ctx.name().context("reading the GPU's name")?;
        let multiprocessors = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .context("reading the GPU's multiprocessor count")?;
        let model = format!("{name} ({arch})");
        // Device 0 keeps its short name; another says which it is.
        let device_name = match ordinal {
            0 => format!("CUDA · {model}"),
            n => format!("CUDA · {model}, GPU {n}"),
        };
        let faults = Faults::from_env()?;
        // The module without scene features: an upload swaps in the one its scene needs.
        let kernels = KernelModule::load(&ctx, &sources, &options, &arch, Variant::of_features(0))?;
        let stream = ctx.default_stream();
        check_params(&kernels, &stream)?;
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        Ok(CudaBackend {
            ray_count: stream.alloc_zeros::<u64>(1).context("allocating the ray counter")?,
            start: ctx.new_event(timing).context("creating a timing event")?,
            end: ctx.new_event(timing).context("creating a timing event")?,
            stream,
            ordinal,
            multiprocessors: u32::try_from(multiprocessors).unwrap_or(1).max(1),
            kernels,
            sources,
            options,
            device_name,
            model,
            arch,
            scene: None,
            film: None,
            faults,
            counts: [0; 3],
        })
    }

    /// Replaces the fault plan read from `RENDERER_FAULTS` at start (tests), and
    /// starts counting operations afresh.
    pub fn set_faults(&mut self, faults: Faults) {
        self.faults = faults;
        self.counts = [0; 3];
    }

    /// "GPU 1 · NVIDIA H200 (sm_90)": how errors name this GPU.
    pub fn label(&self) -> String {
        format!("GPU {} · {}", self.ordinal, self.model)
    }

    /// Uploads `blob` in place of the scene held (freed first: both may not fit at once),
    /// with a module for its features.
    fn upload_scene(&mut self, blob: &BlobView<'_>) -> anyhow::Result<()> {
        self.scene = None;
        // The scene's features with the last job's (its AOVs, its sampler): a job that
        // wants others swaps the module at render.
        let jobs = self.kernels.variant.features & features::job_feature_mask();
        let features = features::scene_features(blob) | jobs;
        self.use_variant(Variant { features, sampler: self.kernels.variant.sampler })?;
        self.scene = Some(DeviceScene::upload(&self.stream, &self.kernels, blob)?);
        Ok(())
    }

    /// Counts one operation of `stage` and fails it when the fault plan says so.
    fn inject(&mut self, stage: Stage) -> anyhow::Result<()> {
        let slot = stage as usize;
        self.counts[slot] += 1;
        if self.faults.fails(stage, self.counts[slot], self.ordinal) {
            bail!("{} #{} failed (injected by {FAULTS_ENV})", stage.name(), self.counts[slot]);
        }
        Ok(())
    }

    /// Runs `f` as `stage` of this GPU's work: panics become errors, and every error
    /// names the GPU and the stage.
    fn on_gpu<T>(&mut self, what: &str, f: impl FnOnce(&mut Self) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let label = self.label();
        guard(what, || f(self)).with_context(|| format!("{label}: {what}"))
    }

    /// Free and total device memory: the driver's figures, or the fault plan's free figure.
    pub fn memory_info(&self) -> anyhow::Result<(u64, u64)> {
        let (free, total) = guard("reading the GPU's free memory", || {
            self.stream.context().mem_get_info().context("cuMemGetInfo")
        })?;
        let free = self.faults.free_memory(self.ordinal).unwrap_or(free as u64);
        Ok((free, total as u64))
    }

    /// Device memory held now by the scene and the film (freed before a new upload).
    fn held_bytes(&self) -> u64 {
        let scene = self.scene.as_ref().map_or(0, DeviceScene::bytes);
        let film = self.film.as_ref().map_or(0, |f| {
            let layers = FilmLayers::of(f.aov.is_some(), f.denoise.is_some());
            u64::from(f.shape.pixels()) * memory::film_bytes_per_pixel(layers)
        });
        scene + film
    }

    /// NVRTC's compile log: `ptxas info` lines with registers and spill bytes per kernel.
    pub fn compile_log(&self) -> &str {
        &self.kernels.log
    }

    /// The options the kernels were built with (block shape, defines, cache folder).
    pub fn options(&self) -> &KernelOptions {
        &self.options
    }

    /// The GPU architecture the kernels were compiled for, e.g. `sm_90`.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// The GPU's name and architecture, "NVIDIA H200 (sm_90)".
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The device number this backend runs on.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The GPU's streaming multiprocessors: [`super::multi::MultiBackend`] splits a
    /// frame's samples in proportion to them (equal shares for identical GPUs).
    pub fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    /// Runs the device RNG on `(pixel_index, sample_index, seed, _)` inputs; each output
    /// is (pcg_hash(pixel_index), initial stream state, first next_u32, bits of the
    /// second draw as next_f32). For tests that pin the kernels to docs/path-tracing.md.
    pub fn probe_rng(&mut self, inputs: &[[u32; 4]]) -> anyhow::Result<Vec<[u32; 4]>> {
        guard("probing the device RNG", || {
            let count = u32::try_from(inputs.len()).context("too many RNG probes")?;
            if count == 0 {
                return Ok(Vec::new());
            }
            let device_inputs = self.stream.clone_htod(inputs).context("copying RNG probes")?;
            let mut outputs =
                self.stream.alloc_zeros::<[u32; 4]>(inputs.len()).context("allocating RNG probes")?;
            let cfg = film_launch(count);
            let mut launch = self.stream.launch_builder(&self.kernels.rng_probe);
            launch.arg(&device_inputs).arg(&mut outputs).arg(&count);
            // SAFETY: rng_probe(const uint4*, uint4*, unsigned) with `count` elements in both buffers.
            unsafe { launch.launch(cfg) }.context("launching rng_probe")?;
            self.stream.clone_dtoh(&outputs).context("reading RNG probes")
        })
    }

    /// Runs the device Sobol sampler on `(index, dim, pixel_seed, _)` inputs; each output is
    /// (sobol_sample(index, dim, pixel_seed), the unscrambled point sobol(index, dim % 4),
    /// nested_uniform_scramble(index, pixel_seed), bits of the sample as a float), for
    /// tests that pin the kernels to the CPU's `backend::cpu::sampler`. Every module has
    /// the probe, whichever sampler it renders with.
    pub fn probe_sobol(&mut self, inputs: &[[u32; 4]]) -> anyhow::Result<Vec<[u32; 4]>> {
        guard("probing the device Sobol sampler", || {
            let count = u32::try_from(inputs.len()).context("too many Sobol probes")?;
            if count == 0 {
                return Ok(Vec::new());
            }
            let device_inputs = self.stream.clone_htod(inputs).context("copying Sobol probes")?;
            let mut outputs =
                self.stream.alloc_zeros::<[u32; 4]>(inputs.len()).context("allocating Sobol probes")?;
            let cfg = film_launch(count);
            let mut launch = self.stream.launch_builder(&self.kernels.sobol_probe);
            launch.arg(&device_inputs).arg(&mut outputs).arg(&count);
            // SAFETY: sobol_probe(const uint4*, uint4*, unsigned) with `count` elements in both buffers.
            unsafe { launch.launch(cfg) }.context("launching sobol_probe")?;
            self.stream.clone_dtoh(&outputs).context("reading Sobol probes")
        })
    }

    /// Makes `variant` the loaded module, compiled (or read from the cache) in full before
    /// the swap; a scene on the GPU gets its nodes repacked by the new module, as after a
    /// kernel reload.
    fn use_variant(&mut self, variant: Variant) -> anyhow::Result<()> {
        if self.kernels.variant == variant {
            return Ok(());
        }
        let kernels =
            KernelModule::load(self.stream.context(), &self.sources, &self.options, &self.arch, variant)?;
        check_params(&kernels, &self.stream)?;
        self.kernels = kernels;
        if let Some(scene) = self.scene.take() {
            self.scene = Some(scene.with_kernels(&self.stream, &self.kernels)?);
        }
        Ok(())
    }

    fn render_frame(&mut self, job: &RenderJob) -> anyhow::Result<FrameStats> {
        let features =
            self.scene.as_ref().context("no scene on the GPU: upload one before rendering")?.features;
        // The job's sampler and AOVs pick the module as the scene's features do.
        self.use_variant(Variant { features: features | features::job_features(job), sampler: job.sampler })?;
        let update = FilmShape::begin(self.film.as_ref().map(|f| f.shape), job)?;
        update.check_aovs(self.film.as_ref().is_some_and(|f| f.aov.is_some()), job)?;
        // Each thread counts its rays (a closest hit and a shadow ray per bounce) in 32 bits.
        if 2 * u64::from(job.samples) * u64::from(job.max_depth) > u64::from(u32::MAX) {
            bail!(
                "{} samples x depth {} in one call is too many; split the samples",
                job.samples,
                job.max_depth
            );
        }
        let fits = |f: &DeviceFilm| {
            (f.shape.width, f.shape.height, f.aov.is_some()) == (job.width, job.height, job.aovs)
        };
        if update.start == FilmStart::Fresh && !self.film.as_ref().is_some_and(fits) {
            // Free the old film first: both may not fit at once. A new film is zeros.
            self.film = None;
            self.film = Some(DeviceFilm::new(&self.stream, job.width, job.height, job.aovs)?);
        } else if update.start == FilmStart::Fresh && (job.first_sample != 0 || job.samples == 0) {
            // The kernel overwrites the old sums only for first_sample == 0 (film.cuh).
            let film = self.film.as_mut().context("no film on the GPU")?;
            self.stream.memset_zeros(&mut film.accum).context("clearing the film")?;
            if let Some(aov) = film.aov.as_mut() {
                self.stream.memset_zeros(aov).context("clearing the film's AOVs")?;
            }
        }
        if let Some(film) = self.film.as_mut() {
            film.denoised = false;
        }
        if job.samples == 0 {
            self.film.as_mut().context("no film on the GPU")?.shape = update.after;
            return Ok(FrameStats::default());
        }
        self.inject(Stage::Launch)?;
        let scene = self.scene.as_ref().context("no scene on the GPU: upload one before rendering")?;
        let film = self.film.as_mut().context("no film on the GPU")?;

        let mut params = LaunchParams {
            sky_bottom: scene.sky_bottom,
            sky_top: scene.sky_top,
            accum: DevicePtrMut::new(film.accum.device_ptr(&self.stream).0),
            aov: DevicePtrMut::new(film.aov.as_ref().map_or(0, |a| a.device_ptr(&self.stream).0)),
            ray_count: DevicePtrMut::new(self.ray_count.device_ptr(&self.stream).0),
            width: job.width,
            height: job.height,
            max_depth: job.max_depth,
            seed: job.seed,
            first_sample: job.first_sample,
            samples: job.samples,
            bvh_root: scene.bvh_root,
            kind_first: scene.kind_first,
            light_count: if job.nee { scene.light_count } else { 0 },
            env_rotation_pdf: {
                let [cos, sin, pick_pdf, _] = scene.env_rotation_pdf;
                // Escaping rays weigh against NEE only when NEE runs.
                let nee = job.nee && scene.light_count > 0;
                [cos, sin, if nee { pick_pdf } else { 0.0 }, 0.0]
            },
            env_size: scene.env_size,
            ..LaunchParams::default()
        };
        params.set_camera(&job.camera);
        params.set_sections(&scene.sections);
        params.set_suns(&scene.suns);
        let mut symbol =
            self.kernels.module.get_global("params", &self.stream).context("finding `params`")?;
        self.stream
            .memcpy_htod(bytemuck::bytes_of(&params), &mut symbol)
            .context("writing launch parameters")?;
        self.stream.memset_zeros(&mut self.ray_count).context("clearing the ray counter")?;

        let (bw, bh) = self.options.block;
        let cfg = LaunchConfig {
            grid_dim: (job.width.div_ceil(bw), job.height.div_ceil(bh), 1),
            block_dim: (bw, bh, 1),
            shared_mem_bytes: 0,
        };
        self.start.record(&self.stream).context("recording the start event")?;
        let k = &self.kernels;
        let needed = Variant { features: scene.features | features::job_features(job), sampler: job.sampler };
        anyhow::ensure!(
            k.variant == needed,
            "the kernels are {} but the job needs {}",
            k.variant.name(),
            needed.name()
        );
        let kernel = if params.light_count > 0 { &k.render_lit } else { &k.render };
        // SAFETY: the render kernels take no arguments; everything they read is in `params`, whose
        // pointers are live allocations sized for this job (film) and the blob (scene).
        unsafe { self.stream.launch_builder(kernel).launch(cfg) }.context("launching render")?;
        self.end.record(&self.stream).context("recording the end event")?;
        let rays =
            self.stream.clone_dtoh(&self.ray_count).context("running render (reading the ray count)")?[0];
        let render_ms = self.start.elapsed_ms(&self.end).context("timing render")?;
        film.shape = update.after;
        let samples = u64::from(film.shape.pixels()) * u64::from(job.samples);
        Ok(FrameStats { render_ms: f64::from(render_ms), samples, rays })
    }

    fn film(&self) -> anyhow::Result<&DeviceFilm> {
        self.film.as_ref().context("nothing rendered yet on the GPU")
    }

    /// The film's AOV sums, read back.
    fn aov_sums(&self) -> anyhow::Result<Vec<AovSample>> {
        let film = self.film()?;
        let Some(aov) = film.aov.as_ref() else {
            return Ok(Vec::new());
        };
        let raw = self.stream.clone_dtoh(aov).context("reading the film's AOVs")?;
        Ok(bytemuck::cast_slice::<[f32; 4], AovSample>(&raw).to_vec())
    }

    /// Runs kernels/denoise.cuh on the film into its denoiser buffers; the time of the
    /// kernels (CUDA events), milliseconds.
    fn run_denoiser(&mut self) -> anyhow::Result<f64> {
        let film = self.film.as_mut().context("nothing rendered yet on the GPU")?;
        let Some(aov) = film.aov.as_ref() else {
            bail!(NO_AOVS_TO_DENOISE);
        };
        let (width, height) = (film.shape.width, film.shape.height);
        if film.denoise.is_none() {
            film.denoise = Some(DenoiseBuffers::new(&self.stream, film.shape.pixels() as usize)?);
        }
        let buffers = film.denoise.as_mut().context("denoiser buffers")?;
        let samples = film.shape.samples;
        let cfg = LaunchConfig {
            grid_dim: (width.div_ceil(DENOISE_BLOCK), height.div_ceil(DENOISE_BLOCK), 1),
            block_dim: (DENOISE_BLOCK, DENOISE_BLOCK, 1),
            shared_mem_bytes: 0,
        };
        let k = &self.kernels;
        self.start.record(&self.stream).context("recording the start event")?;
        {
            let [_, color] = &mut buffers.color;
            let mut launch = self.stream.launch_builder(&k.denoise_prepare);
            launch
                .arg(&film.accum)
                .arg(aov)
                .arg(color)
                .arg(&mut buffers.guide)
                .arg(&mut buffers.depth_gradient)
                .arg(&mut buffers.albedo)
                .arg(&width)
                .arg(&height)
                .arg(&samples);
            // SAFETY: denoise_prepare(const float4*, const float4*, float4*, float4*, float*, float4*,
            // unsigned, unsigned, unsigned): every buffer holds width x height elements (aov two per pixel).
            unsafe { launch.launch(cfg) }.context("launching denoise_prepare")?;
        }
        {
            let [clamped, prepared] = &mut buffers.color;
            let mut launch = self.stream.launch_builder(&k.denoise_clamp);
            launch.arg(&*prepared).arg(clamped).arg(&width).arg(&height);
            // SAFETY: denoise_clamp(const float4*, float4*, unsigned, unsigned) over width x height elements.
            unsafe { launch.launch(cfg) }.context("launching denoise_clamp")?;
        }
        // The passes read color[0] first, then alternate; the last writes the output.
        for pass in 0..ATROUS_PASSES {
            let step = 1i32 << pass;
            let last = pass + 1 == ATROUS_PASSES;
            let [a, b] = &mut buffers.color;
            let (input, output) = if pass % 2 == 0 { (&*a, b) } else { (&*b, a) };
            let output = if last { &mut buffers.output } else { output };
            let null = 0u64;
            let mut launch = self.stream.launch_builder(&k.denoise_atrous);
            launch.arg(input).arg(output).arg(&buffers.guide).arg(&buffers.depth_gradient);
            if last {
                launch.arg(&buffers.albedo);
            } else {
                launch.arg(&null);
            }
            launch.arg(&width).arg(&height).arg(&step);
            // SAFETY: denoise_atrous(const float4*, float4*, const float4*, const float*, const float4*
            // or null, unsigned, unsigned, int) over width x height elements of each buffer.
            unsafe { launch.launch(cfg) }.context("launching denoise_atrous")?;
        }
        self.end.record(&self.stream).context("recording the end event")?;
        let ms = self.start.elapsed_ms(&self.end).context("timing the denoiser")?;
        film.denoised = true;
        Ok(f64::from(ms))
    }

    fn denoised(&self) -> anyhow::Result<&CudaSlice<[f32; 4]>> {
        let film = self.film()?;
        match &film.denoise {
            Some(buffers) if film.denoised => Ok(&buffers.output),
            _ => bail!(NOTHING_DENOISED),
        }
    }

    /// The film's image (`denoised`: the denoiser's output) through the tonemap kernel,
    /// read back as RGBA8.
    fn tonemapped(&mut self, denoised: bool, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        self.inject(Stage::Readback)?;
        let film = self.film.as_mut().context("nothing rendered yet on the GPU")?;
        let pixels = film.shape.pixels();
        // The denoiser's output is an average already.
        let (source, inv_samples) = match &film.denoise {
            Some(buffers) if denoised && film.denoised => (&buffers.output, 1.0),
            _ if denoised => bail!(NOTHING_DENOISED),
            _ => (&film.accum, 1.0 / film.shape.divisor()),
        };
        // Computed here, once, as the CPU computes it: both multiply by the same f32.
        let (exposure_scale, view) = (tonemap.scale(), view_code(tonemap.view));
        let mut launch = self.stream.launch_builder(&self.kernels.tonemap);
        launch.arg(source).arg(&mut film.rgba).arg(&pixels).arg(&inv_samples);
        launch.arg(&exposure_scale).arg(&view);
        // SAFETY: tonemap(const float4*, uchar4*, unsigned, float, float, unsigned) over
        // `pixels` elements of both buffers, which the film sized for that many pixels.
        unsafe { launch.launch(film_launch(pixels)) }.context("launching tonemap")?;
        self.stream.clone_dtoh(&film.rgba).context("reading the RGBA8 image")
    }
}

/// Fails unless the kernels' `params` block has the size of [`LaunchParams`].
fn check_params(kernels: &KernelModule, stream: &Arc<CudaStream>) -> anyhow::Result<()> {
    let params_len =
        kernels.module.get_global("params", stream).context("finding `params` in the kernels")?.len();
    if params_len != size_of::<LaunchParams>() {
        bail!(
            "kernels/params.cuh LaunchParams is {params_len} bytes but params.rs has {}: they must match",
            size_of::<LaunchParams>()
        );
    }
    Ok(())
}

impl Backend for CudaBackend {
    fn kernel_resources(&self) -> anyhow::Result<Vec<KernelResources>> {
        let (w, h) = self.options.block;
        guard("querying kernel resources", || self.kernels.resources(w * h, FILM_THREADS))
    }

    fn device_name(&self) -> String {
        self.device_name.clone()
    }

    fn kernel_compile(&self) -> Option<KernelCompile> {
        Some(self.kernels.compile)
    }

    fn reload_kernels(&mut self, kernels_dir: &Path) -> anyhow::Result<Option<KernelCompile>> {
        // Compiled and checked in full before the swap, so a broken edit keeps the old
        // module running; NVRTC's error carries the compiler log with file:line.
        let sources = KernelSources::from_dir(kernels_dir)?;
        let variant = self.kernels.variant;
        let kernels = guard("reloading the kernels", || {
            let kernels =
                KernelModule::load(self.stream.context(), &sources, &self.options, &self.arch, variant)?;
            check_params(&kernels, &self.stream)?;
            Ok(kernels)
        })?;
        self.kernels = kernels;
        self.sources = sources;
        if let Some(scene) = self.scene.take() {
            let repacked = guard("repacking the BVH nodes for the new kernels", || {
                scene.with_kernels(&self.stream, &self.kernels)
            })?;
            self.scene = Some(repacked);
        }
        Ok(Some(self.kernels.compile))
    }

    fn check_memory(&self, blob: &BlobView<'_>, film: FilmSize) -> anyhow::Result<()> {
        let needs = memory::MemoryNeeds::new(
            blob.payload().len() as u64,
            blob.header.node_count,
            self.kernels.node_bytes as u64,
            blob.header.prim_count(PrimKind::Triangle),
            film,
        );
        let (free, total) = self.memory_info().with_context(|| self.label())?;
        // What this backend holds now is freed before the new scene and film are made.
        needs.check(free.saturating_add(self.held_bytes()), total, &self.label())
    }

    fn upload(&mut self, blob: &BlobView<'_>) -> anyhow::Result<()> {
        self.on_gpu("uploading the scene", |gpu| {
            gpu.inject(Stage::Upload)?;
            gpu.upload_scene(blob)
        })
    }

    fn update(&mut self, blob: &BlobView<'_>, edit: &BlobEdit) -> anyhow::Result<()> {
        self.on_gpu("updating the scene", |gpu| {
            gpu.inject(Stage::Upload)?;
            let Some(scene) = gpu.scene.as_mut() else { return gpu.upload_scene(blob) };
            match scene.apply_edit(&gpu.stream, &gpu.kernels, blob, edit) {
                Ok(true) => Ok(()),
                Ok(false) => gpu.upload_scene(blob),
                Err(error) => {
                    // Half copied: no edit may build on it, and it must not render.
                    gpu.scene = None;
                    Err(error)
                }
            }
        })
    }

    fn render(&mut self, job: &RenderJob) -> anyhow::Result<FrameStats> {
        self.on_gpu("rendering", |gpu| gpu.render_frame(job))
    }

    fn restore_film(&mut self, sums: &FilmSums) -> anyhow::Result<()> {
        self.on_gpu("restoring the film", |gpu| {
            let shape = sums.shape;
            anyhow::ensure!(
                sums.sums.len() == shape.pixels() as usize,
                "{} sums for a {}x{} film",
                sums.sums.len(),
                shape.width,
                shape.height
            );
            let aovs = !sums.aovs.is_empty();
            anyhow::ensure!(
                !aovs || sums.aovs.len() == sums.sums.len(),
                "{} AOV sums for a {}x{} film",
                sums.aovs.len(),
                shape.width,
                shape.height
            );
            gpu.film = None;
            let mut film = DeviceFilm::new(&gpu.stream, shape.width, shape.height, aovs)?;
            let data: Vec<[f32; 4]> = sums.sums.iter().map(|&[r, g, b]| [r, g, b, 0.0]).collect();
            gpu.stream.memcpy_htod(&data, &mut film.accum).context("copying the film to the GPU")?;
            if let Some(aov) = film.aov.as_mut() {
                let data: &[[f32; 4]] = bytemuck::cast_slice(&sums.aovs);
                gpu.stream.memcpy_htod(data, aov).context("copying the film's AOVs to the GPU")?;
            }
            film.shape = shape;
            gpu.film = Some(film);
            Ok(())
        })
    }

    fn read_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        self.on_gpu("reading the image back", |gpu| gpu.tonemapped(false, tonemap))
    }

    fn read_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        self.on_gpu("reading the linear image back", |gpu| {
            gpu.inject(Stage::Readback)?;
            let film = gpu.film()?;
            let n = film.shape.divisor();
            let sums = gpu.stream.clone_dtoh(&film.accum).context("reading the film")?;
            Ok(sums.into_iter().map(|[r, g, b, _]| [r / n, g / n, b / n, 1.0]).collect())
        })
    }

    fn read_sums(&mut self) -> anyhow::Result<FilmSums> {
        self.on_gpu("reading the film's sums back", |gpu| {
            gpu.inject(Stage::Readback)?;
            let film = gpu.film()?;
            let sums = gpu.stream.clone_dtoh(&film.accum).context("reading the film")?;
            let aovs = gpu.aov_sums()?;
            let sums = sums.into_iter().map(|[r, g, b, _]| [r, g, b]).collect();
            Ok(FilmSums { shape: gpu.film()?.shape, sums, aovs })
        })
    }

    fn read_aovs(&mut self) -> anyhow::Result<Aovs> {
        self.on_gpu("reading the AOVs back", |gpu| {
            gpu.inject(Stage::Readback)?;
            Aovs::from_sums(&gpu.aov_sums()?, gpu.film()?.shape.divisor())
        })
    }

    fn denoise(&mut self) -> anyhow::Result<f64> {
        self.on_gpu("denoising", |gpu| gpu.run_denoiser())
    }

    fn read_denoised_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        self.on_gpu("reading the denoised image back", |gpu| gpu.tonemapped(true, tonemap))
    }

    fn read_denoised_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        self.on_gpu("reading the denoised image back", |gpu| {
            gpu.inject(Stage::Readback)?;
            let output = gpu.denoised()?;
            gpu.stream.clone_dtoh(output).context("reading the denoised image")
        })
    }
}
