//! One frame on several devices (`--gpus`): each render call's samples are split into
//! contiguous ranges, one per device, in proportion to the devices' weights (SM counts:
//! equal for identical GPUs), and every device renders its range on a fresh film of
//! its own, all at once, one thread each. Their sums are read back and added on the
//! host in f64, in device order ([`HostFilm`]); the image is that sum over the sample
//! count, tonemapped on the host ([`super::tonemap`]).
//!
//! Contiguous ranges rather than interleaved samples: a device's share of a call is
//! then exactly a shard (`crate::shard`), a fresh film from its first sample, with the
//! bookkeeping both backends already have ([`FilmShape::begin`]) and no change to the
//! kernels, which index samples contiguously. The split is fixed by the weights, not
//! by timings, so the image is the same bits on every run.
//!
//! The devices' films are read back lazily: at the next call that continues the film
//! (a progressive render's next batch) or when the image is read. A benchmark frame,
//! one call on a fresh film, reads nothing back. Any [`Backend`] can be a device, so
//! the splitting and summing are tested on several CPU backends.

use std::ops::Range;

use anyhow::{Context, anyhow, bail};
use scene_compiler::BlobView;
use scene_compiler::blob::BlobEdit;

use super::{
    Aovs, Backend, DeviceLoss, DeviceShare, FilmLayers, FilmShape, FilmSize, FilmStart, FilmSums, FrameStats,
    HostDenoised, HostFilm, KernelCompile, KernelResources, RenderJob, Tonemap,
};
use crate::job::split_weighted;

/// A device for a [`MultiBackend`].
pub struct Device {
    /// How it is named in summaries: "GPU 1 · NVIDIA H200 (sm_90)".
    pub label: String,
    pub backend: Box<dyn Backend + Send>,
    /// Its share of each call's samples, relative to the others (at least 1).
    pub weight: u32,
}

struct Slot {
    device: Device,
    /// The samples its film holds that are not yet added to the host film.
    pending: Option<Range<u32>>,
    /// False once it failed: it gets no more work.
    alive: bool,
    share: DeviceShare,
}

/// Several backends rendering one image together.
pub struct MultiBackend {
    name: String,
    slots: Vec<Slot>,
    /// The combined film's shape (`None`: nothing rendered yet).
    shape: Option<FilmShape>,
    /// Sums read back so far; `None` until the first read-back of a film.
    film: Option<HostFilm>,
    /// The last render call, to render a failed device's samples again.
    job: Option<RenderJob>,
    lost: Vec<DeviceLoss>,
    compile: Option<KernelCompile>,
    /// The film's image through the denoiser, until the next render.
    denoised: HostDenoised,
}

impl MultiBackend {
    /// Runs `f` on every device's backend at once; the first failure, naming its device
    /// and `what`, is the error.
    fn on_every_device(
        &mut self,
        what: &str,
        f: impl Fn(&mut (dyn Backend + Send)) -> anyhow::Result<()> + Sync,
    ) -> anyhow::Result<()> {
        let f = &f;
        let results: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .slots
                .iter_mut()
                .map(|slot| scope.spawn(move || f(slot.device.backend.as_mut())))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("panicked")))).collect()
        });
        for (slot, result) in self.slots.iter().zip(results) {
            result.with_context(|| format!("{}: {what}", slot.device.label))?;
        }
        Ok(())
    }

    /// Drives `devices`; `name` is what [`Backend::device_name`] says ("CUDA × 2 · …").
    pub fn new(name: String, devices: Vec<Device>) -> anyhow::Result<MultiBackend> {
        if devices.is_empty() {
            bail!("no devices to render on");
        }
        let compiles: Vec<KernelCompile> =
            devices.iter().filter_map(|d| d.backend.kernel_compile()).collect();
        let compile = (!compiles.is_empty()).then(|| KernelCompile {
            time: compiles.iter().map(|c| c.time).sum(),
            cached: compiles.iter().all(|c| c.cached),
        });
        let slots = devices
            .into_iter()
            .map(|device| Slot {
                share: DeviceShare { device: device.label.clone(), ..DeviceShare::default() },
                device: Device { weight: device.weight.max(1), ..device },
                pending: None,
                alive: true,
            })
            .collect();
        Ok(MultiBackend {
            name,
            slots,
            shape: None,
            film: None,
            job: None,
            lost: Vec::new(),
            compile,
            denoised: HostDenoised::default(),
        })
    }

    /// The devices' parts of `range`, in device order (an empty part for a failed device).
    pub fn split(&self, range: Range<u32>) -> Vec<Range<u32>> {
        let weights: Vec<u64> =
            self.slots.iter().map(|s| if s.alive { u64::from(s.device.weight) } else { 0 }).collect();
        if weights.iter().all(|&w| w == 0) {
            return vec![range.start..range.start; self.slots.len()];
        }
        split_weighted(range, &weights)
    }

    /// Leaves a failed device out from now on; `samples` are to be rendered again.
    fn lose(&mut self, slot: usize, error: &anyhow::Error, samples: Range<u32>) {
        let slot = &mut self.slots[slot];
        slot.alive = false;
        slot.pending = None;
        slot.share.samples = slot.share.samples.saturating_sub(samples.end - samples.start);
        self.lost.push(DeviceLoss {
            device: slot.device.label.clone(),
            error: format!("{error:#}"),
            samples,
        });
    }

    /// Adds every device film that holds unread samples to the host film (read back
    /// in parallel, added in device order). A device whose read-back fails is left
    /// out and its samples are returned, to be rendered again.
    fn collect(&mut self) -> anyhow::Result<Vec<Range<u32>>> {
        let shape = self.shape.context("nothing rendered yet")?;
        let read: Vec<Option<anyhow::Result<FilmSums>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .slots
                .iter_mut()
                .map(|slot| {
                    slot.pending.is_some().then(|| scope.spawn(move || slot.device.backend.read_sums()))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("panicked")))))
                .collect()
        });
        let mut again = Vec::new();
        for (index, sums) in read.into_iter().enumerate() {
            let Some(sums) = sums else { continue };
            let pending = self.slots[index].pending.clone().unwrap_or_default();
            let label = self.slots[index].device.label.clone();
            match sums.with_context(|| format!("{label}: reading the film back")) {
                Ok(sums) => {
                    let film = self.film.get_or_insert_with(|| HostFilm::new(shape.width, shape.height));
                    film.add_film(&sums).with_context(|| label.clone())?;
                    self.slots[index].pending = None;
                }
                Err(error) => {
                    self.lose(index, &error, pending.clone());
                    again.push(pending);
                }
            }
        }
        Ok(again)
    }

    /// Renders `todo` (sample ranges of `job`'s image) on the devices that work: each
    /// range split between them; the samples of a device that fails go to the others.
    /// Fails when no device is left. Device films holding unread samples are read
    /// back first, since every part renders on a fresh film.
    fn render_ranges(&mut self, job: &RenderJob, todo: Vec<Range<u32>>) -> anyhow::Result<FrameStats> {
        let mut queue: std::collections::VecDeque<Range<u32>> =
            todo.into_iter().filter(|r| !r.is_empty()).collect();
        let mut total = FrameStats::default();
        while let Some(range) = queue.pop_front() {
            if self.slots.iter().any(|s| s.pending.is_some()) {
                queue.extend(self.collect()?);
            }
            if !self.slots.iter().any(|s| s.alive) {
                bail!("every device failed: {}", self.lost_summary());
            }
            let ranges = self.split(range);
            let results: Vec<Option<anyhow::Result<FrameStats>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .slots
                    .iter_mut()
                    .zip(&ranges)
                    .map(|(slot, range)| {
                        let part = job.with_samples(range.clone()).on_fresh_film();
                        (!range.is_empty()).then(|| scope.spawn(move || slot.device.backend.render(&part)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("panicked")))))
                    .collect()
            });
            let mut round = FrameStats::default();
            for (index, (range, result)) in ranges.into_iter().zip(results).enumerate() {
                let Some(result) = result else { continue };
                let label = self.slots[index].device.label.clone();
                self.slots[index].share.samples += range.end - range.start;
                match result.with_context(|| format!("{label}: rendering samples {range:?}")) {
                    Ok(stats) => {
                        let slot = &mut self.slots[index];
                        slot.pending = Some(range.clone());
                        slot.share.render_ms += stats.render_ms;
                        slot.share.rays += stats.rays;
                        slot.share.last_range = range;
                        slot.share.last = stats;
                        round.render_ms = round.render_ms.max(stats.render_ms);
                        round.samples += stats.samples;
                        round.rays += stats.rays;
                    }
                    Err(error) => {
                        self.lose(index, &error, range.clone());
                        queue.push_back(range);
                    }
                }
            }
            total.render_ms += round.render_ms;
            total.samples += round.samples;
            total.rays += round.rays;
        }
        Ok(total)
    }

    /// Reads every device film back, rendering again what a failed read-back lost.
    fn collected(&mut self) -> anyhow::Result<&HostFilm> {
        loop {
            let again = self.collect()?;
            if again.is_empty() {
                break;
            }
            let job = self.job.context("nothing rendered yet")?;
            self.render_ranges(&job, again)?;
        }
        let shape = self.shape.context("nothing rendered yet")?;
        let film = self.film.get_or_insert_with(|| HostFilm::new(shape.width, shape.height));
        debug_assert_eq!(film.samples, shape.samples);
        Ok(film)
    }

    /// "GPU 0 · …: error; GPU 1 · …: error".
    fn lost_summary(&self) -> String {
        let each: Vec<String> = self.lost.iter().map(|l| l.error.clone()).collect();
        each.join("; ")
    }
}

impl Backend for MultiBackend {
    fn device_name(&self) -> String {
        self.name.clone()
    }

    fn kernel_compile(&self) -> Option<KernelCompile> {
        self.compile
    }

    fn reload_kernels(&mut self, kernels_dir: &std::path::Path) -> anyhow::Result<Option<KernelCompile>> {
        let mut last = None;
        for slot in &mut self.slots {
            last =
                slot.device.backend.reload_kernels(kernels_dir).with_context(|| slot.device.label.clone())?;
        }
        Ok(last)
    }

    fn kernel_resources(&self) -> anyhow::Result<Vec<KernelResources>> {
        self.slots.first().map_or(Ok(Vec::new()), |s| s.device.backend.kernel_resources())
    }

    /// Every device must hold the scene and its film (each renders a full-size film).
    fn check_memory(&self, blob: &BlobView<'_>, film: FilmSize) -> anyhow::Result<()> {
        // Each device holds the whole film; the denoiser runs on the host.
        let film = FilmSize { layers: FilmLayers::of(film.layers != FilmLayers::Beauty, false), ..film };
        for slot in &self.slots {
            slot.device.backend.check_memory(blob, film)?;
        }
        Ok(())
    }

    /// Uploads to every device at once.
    fn upload(&mut self, blob: &BlobView<'_>) -> anyhow::Result<()> {
        self.on_every_device("uploading the scene", |backend| backend.upload(blob))
    }

    /// Updates every device at once, each as it can.
    fn update(&mut self, blob: &BlobView<'_>, edit: &BlobEdit) -> anyhow::Result<()> {
        self.on_every_device("updating the scene", |backend| backend.update(blob, edit))
    }

    /// Splits the job's samples over the devices and renders them at once. The
    /// render time is the slowest device's (they run concurrently); samples and rays
    /// are the sum. A device that fails is named in [`Backend::lost_devices`] and left
    /// out, and its samples are rendered on the others; when none is left, the call
    /// fails.
    fn render(&mut self, job: &RenderJob) -> anyhow::Result<FrameStats> {
        let update = FilmShape::begin(self.shape, job)?;
        let has_aovs = self.job.is_some_and(|last| last.aovs);
        update.check_aovs(has_aovs, job)?;
        self.denoised.clear();
        if update.start == FilmStart::Fresh {
            self.film = None;
            for slot in &mut self.slots {
                slot.pending = None;
                slot.share = DeviceShare { device: slot.device.label.clone(), ..DeviceShare::default() };
            }
        }
        // On an error the device films are in no known state: the next call starts over.
        self.shape = Some(update.after);
        self.job = Some(*job);
        let stats = self.render_ranges(job, vec![job.sample_range()]);
        if stats.is_err() {
            self.shape = None;
        }
        stats
    }

    fn restore_film(&mut self, sums: &FilmSums) -> anyhow::Result<()> {
        let shape = sums.shape;
        let mut film = HostFilm::new(shape.width, shape.height);
        film.add_film(sums)?;
        for slot in &mut self.slots {
            slot.pending = None;
            slot.share = DeviceShare { device: slot.device.label.clone(), ..DeviceShare::default() };
        }
        self.film = Some(film);
        self.shape = Some(shape);
        self.denoised.clear();
        Ok(())
    }

    fn read_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        Ok(self.collected()?.rgba8(tonemap))
    }

    fn read_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        Ok(self.collected()?.linear())
    }

    /// The f64 sums rounded to f32 once.
    fn read_sums(&mut self) -> anyhow::Result<FilmSums> {
        let shape = self.shape.context("nothing rendered yet")?;
        Ok(self.collected()?.to_film_sums(shape))
    }

    fn read_aovs(&mut self) -> anyhow::Result<Aovs> {
        let film = self.collected()?;
        Aovs::from_sums(&film.aovs, film.divisor())
    }

    /// On the host (the CPU's filter): the devices' films meet only there.
    fn denoise(&mut self) -> anyhow::Result<f64> {
        let film = self.collected()?.averages();
        self.denoised.run(&film)
    }

    fn read_denoised_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        self.denoised.rgba8(tonemap)
    }

    fn read_denoised_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        self.denoised.linear()
    }

    fn shares(&self) -> Vec<DeviceShare> {
        self.slots.iter().map(|s| s.share.clone()).collect()
    }

    fn lost_devices(&self) -> Vec<DeviceLoss> {
        self.lost.clone()
    }
}
