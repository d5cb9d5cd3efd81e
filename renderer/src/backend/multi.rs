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

use super::{
    Backend, DeviceShare, FilmShape, FilmStart, FilmSums, FrameStats, HostFilm, KernelCompile,
    KernelResources, RenderJob,
};
use crate::shard::split_weighted;

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
    /// Its film holds samples not yet added to the host film.
    pending: bool,
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
    compile: Option<KernelCompile>,
}

impl MultiBackend {
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
                pending: false,
            })
            .collect();
        Ok(MultiBackend { name, slots, shape: None, film: None, compile })
    }

    /// The devices' parts of `range`, in device order.
    pub fn split(&self, range: Range<u32>) -> Vec<Range<u32>> {
        let weights: Vec<u64> = self.slots.iter().map(|s| u64::from(s.device.weight)).collect();
        split_weighted(range, &weights)
    }

    /// Adds every device film that holds unread samples to the host film (read back
    /// in parallel, added in device order).
    fn collect(&mut self) -> anyhow::Result<()> {
        let shape = self.shape.context("nothing rendered yet")?;
        let film = self.film.get_or_insert_with(|| HostFilm::new(shape.width, shape.height));
        let read: Vec<Option<anyhow::Result<FilmSums>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .slots
                .iter_mut()
                .map(|slot| slot.pending.then(|| scope.spawn(move || slot.device.backend.read_sums())))
                .collect();
            handles
                .into_iter()
                .map(|h| h.map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("panicked")))))
                .collect()
        });
        for (slot, sums) in self.slots.iter_mut().zip(read) {
            if let Some(sums) = sums {
                let sums = sums.with_context(|| format!("{}: reading the film back", slot.device.label))?;
                film.add(&sums.sums, sums.shape.samples).with_context(|| slot.device.label.clone())?;
                slot.pending = false;
            }
        }
        debug_assert_eq!(film.samples, shape.samples);
        Ok(())
    }

    fn collected(&mut self) -> anyhow::Result<&HostFilm> {
        self.collect()?;
        self.film.as_ref().context("nothing rendered yet")
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

    /// Uploads to every device at once.
    fn upload(&mut self, blob: &BlobView<'_>) -> anyhow::Result<()> {
        let results: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .slots
                .iter_mut()
                .map(|slot| scope.spawn(move || slot.device.backend.upload(blob)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("panicked")))).collect()
        });
        for (slot, result) in self.slots.iter().zip(results) {
            result.with_context(|| format!("{}: uploading the scene", slot.device.label))?;
        }
        Ok(())
    }

    /// Splits the job's samples over the devices and renders them at once. The
    /// render time is the slowest device's (they run concurrently); samples and rays
    /// are the sum.
    fn render(&mut self, job: &RenderJob) -> anyhow::Result<FrameStats> {
        let update = FilmShape::begin(self.shape, job)?;
        match update.start {
            FilmStart::Fresh => {
                self.film = None;
                for slot in &mut self.slots {
                    slot.pending = false;
                    slot.share = DeviceShare { device: slot.device.label.clone(), ..DeviceShare::default() };
                }
            }
            // The devices' films are started afresh below: keep what they hold.
            FilmStart::Continue => self.collect()?,
        }
        let ranges = self.split(job.sample_range());
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
        // Whatever happens next, the old device films are gone: start over on an error.
        self.shape = None;
        let mut total = FrameStats::default();
        for ((slot, range), result) in self.slots.iter_mut().zip(ranges).zip(results) {
            let stats = match result {
                Some(result) => {
                    result.with_context(|| format!("{}: rendering samples {range:?}", slot.device.label))?
                }
                None => FrameStats::default(),
            };
            slot.pending |= !range.is_empty();
            slot.share.samples += range.end - range.start;
            slot.share.render_ms += stats.render_ms;
            slot.share.rays += stats.rays;
            slot.share.last_range = range;
            slot.share.last = stats;
            total.render_ms = total.render_ms.max(stats.render_ms);
            total.samples += stats.samples;
            total.rays += stats.rays;
        }
        self.shape = Some(update.after);
        Ok(total)
    }

    fn read_rgba8(&mut self) -> anyhow::Result<Vec<u8>> {
        Ok(self.collected()?.rgba8())
    }

    fn read_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        Ok(self.collected()?.linear())
    }

    /// The f64 sums rounded to f32 once.
    fn read_sums(&mut self) -> anyhow::Result<FilmSums> {
        let shape = self.shape.context("nothing rendered yet")?;
        Ok(self.collected()?.to_film_sums(shape))
    }

    fn shares(&self) -> Vec<DeviceShare> {
        self.slots.iter().map(|s| s.share.clone()).collect()
    }
}
