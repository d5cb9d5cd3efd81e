//! The multi-device backend (`--gpus`) on CPU "devices": the splitting of a frame's
//! samples and the summing of the devices' films are the same code for GPUs, so they
//! are tested here, where every machine can run them.
//!
//! Bound for the linear image (tests/workflows/shards.rs derives it): the devices' f32 films
//! added in f64 differ from one f32 film of all samples by at most
//! (spp + k_max + 1) · 2^-24 of the value, k_max the largest device share.

use crate::cpu_support;

use renderer::backend::cpu::CpuBackend;
use renderer::backend::multi::{Device, MultiBackend};
use renderer::backend::{Backend, RenderJob, Tonemap};
use scene_compiler::AlignedBytes;

use cpu_support::{compile, cpu_backend, job, mixed_scene};

const WIDTH: u32 = 32;
const HEIGHT: u32 = 24;
const SPP: u32 = 20;

fn multi(blob: &AlignedBytes, weights: &[u32]) -> MultiBackend {
    let devices = weights
        .iter()
        .enumerate()
        .map(|(i, &weight)| Device {
            label: format!("CPU {i}"),
            backend: Box::new(cpu_backend(blob)) as Box<dyn Backend + Send>,
            weight,
        })
        .collect();
    MultiBackend::new(format!("CPU × {}", weights.len()), devices).expect("devices")
}

fn full_job(blob: &AlignedBytes) -> RenderJob {
    job(blob, WIDTH, HEIGHT, SPP, 8, 3)
}

/// Every channel of `a` within `(spp + k_max + 1) · 2^-24` of `b`'s, relatively.
fn assert_close(a: &[[f32; 4]], b: &[[f32; 4]], spp: u32, k_max: u32, what: &str) {
    assert_eq!(a.len(), b.len());
    let bound = f64::from(spp + k_max + 1) * 2f64.powi(-24);
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        for ch in 0..4 {
            let (x, y) = (f64::from(p[ch]), f64::from(q[ch]));
            assert!((x - y).abs() <= bound * x.max(y), "{what}: pixel {i} channel {ch}: {x} vs {y}");
        }
    }
}

#[test]
fn two_devices_give_the_one_device_image() {
    let blob = compile(&mixed_scene());
    let job = full_job(&blob);
    let mut one = cpu_backend(&blob);
    let stats = one.render(&job).expect("render");
    let (png, linear) =
        (one.read_rgba8(Tonemap::STANDARD).expect("rgba8"), one.read_linear().expect("linear"));
    for weights in [&[1, 1][..], &[1, 3], &[2, 1, 1], &[1, 1, 1, 1, 1, 1, 1]] {
        let mut two = multi(&blob, weights);
        let split = two.split(0..SPP);
        let k_max = split.iter().map(|r| r.end - r.start).max().unwrap_or(0);
        let multi_stats = two.render(&job).expect("render");
        assert_eq!((multi_stats.samples, multi_stats.rays), (stats.samples, stats.rays), "{weights:?}");
        assert!(
            two.read_rgba8(Tonemap::STANDARD).expect("rgba8") == png,
            "{weights:?}: the 8-bit image differs"
        );
        assert_close(&two.read_linear().expect("linear"), &linear, SPP, k_max, &format!("{weights:?}"));
        let shares = two.shares();
        assert_eq!(shares.len(), weights.len());
        assert_eq!(shares.iter().map(|s| s.samples).sum::<u32>(), SPP);
        for (share, range) in shares.iter().zip(&split) {
            assert_eq!(&share.last_range, range);
        }
    }
}

#[test]
fn the_split_follows_the_weights() {
    let blob = compile(&mixed_scene());
    assert_eq!(multi(&blob, &[1, 1]).split(0..20), vec![0..10, 10..20]);
    assert_eq!(multi(&blob, &[1, 3]).split(0..20), vec![0..5, 5..20]);
    assert_eq!(multi(&blob, &[1, 1]).split(0..1), vec![0..0, 0..1], "a device may get nothing");
    assert_eq!(multi(&blob, &[0, 0]).split(4..8), vec![4..6, 6..8], "weights are at least 1");
}

#[test]
fn batches_continue_and_reads_between_them_change_nothing() {
    let blob = compile(&mixed_scene());
    let job = full_job(&blob);
    let mut one = cpu_backend(&blob);
    one.render(&job).expect("render");
    let png = one.read_rgba8(Tonemap::STANDARD).expect("rgba8");
    let mut two = multi(&blob, &[1, 1]);
    for (i, batch) in [0..1, 1..9, 9..SPP].into_iter().enumerate() {
        two.render(&job.with_samples(batch)).expect("batch");
        if i == 0 {
            // Reading after the first batch collects it; the next batch continues.
            two.read_linear().expect("read between batches");
        }
    }
    assert!(two.read_rgba8(Tonemap::STANDARD).expect("rgba8") == png, "batched multi-device render differs");
    let sums = two.read_sums().expect("sums");
    assert_eq!((sums.shape.samples, sums.shape.sample_range()), (SPP, 0..SPP));
    let error = two.render(&job.with_samples(3..5)).expect_err("does not continue at 20");
    assert!(error.to_string().contains("film"), "{error}");
}

#[test]
fn a_fresh_film_at_a_later_sample_is_a_shard_on_several_devices() {
    let blob = compile(&mixed_scene());
    let shard = full_job(&blob).with_samples(7..SPP).on_fresh_film();
    let mut one = cpu_backend(&blob);
    one.render(&full_job(&blob)).expect("an older film to replace");
    one.render(&shard).expect("render");
    let mut two = multi(&blob, &[1, 1]);
    two.render(&full_job(&blob)).expect("an older film to replace");
    two.render(&shard).expect("render");
    let (a, b) = (one.read_sums().expect("sums"), two.read_sums().expect("sums"));
    assert_eq!(a.shape, b.shape);
    assert_eq!((a.shape.samples, a.shape.sample_range()), (13, 7..SPP), "divides by 13, not 20");
    assert!(
        one.read_rgba8(Tonemap::STANDARD).expect("rgba8")
            == two.read_rgba8(Tonemap::STANDARD).expect("rgba8")
    );
    assert_close(&one.read_linear().expect("a"), &two.read_linear().expect("b"), 13, 7, "shard");
}

#[test]
fn nothing_rendered_is_an_error_not_a_panic() {
    let blob = compile(&mixed_scene());
    let mut two = multi(&blob, &[1, 1]);
    assert!(two.read_rgba8(Tonemap::STANDARD).is_err() && two.read_sums().is_err());
    assert!(MultiBackend::new("none".to_owned(), Vec::new()).is_err());
    let mut empty = MultiBackend::new(
        "empty".to_owned(),
        vec![Device { label: "no scene".to_owned(), backend: Box::new(CpuBackend::new()), weight: 1 }],
    )
    .expect("one device");
    let error = empty.render(&full_job(&blob)).expect_err("no scene uploaded");
    assert!(format!("{error:#}").contains("no scene"), "{error:#}");
}

/// A device that fails its `render_fails`-th render call or `read_fails`-th read-back
/// (counted from 1), as the fault plan fails a GPU's launch or read-back.
struct Failing {
    inner: CpuBackend,
    renders: u32,
    reads: u32,
    render_fails: u32,
    read_fails: u32,
}

impl Backend for Failing {
    fn device_name(&self) -> String {
        self.inner.device_name()
    }
    fn upload(&mut self, blob: &scene_compiler::BlobView<'_>) -> anyhow::Result<()> {
        self.inner.upload(blob)
    }
    fn render(&mut self, job: &RenderJob) -> anyhow::Result<renderer::backend::FrameStats> {
        self.renders += 1;
        anyhow::ensure!(self.renders != self.render_fails, "launch #{} failed (injected)", self.renders);
        self.inner.render(job)
    }
    fn restore_film(&mut self, sums: &renderer::backend::FilmSums) -> anyhow::Result<()> {
        self.inner.restore_film(sums)
    }
    fn read_rgba8(&mut self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        self.inner.read_rgba8(tonemap)
    }
    fn read_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        self.inner.read_linear()
    }
    fn read_sums(&mut self) -> anyhow::Result<renderer::backend::FilmSums> {
        self.reads += 1;
        anyhow::ensure!(self.reads != self.read_fails, "readback #{} failed (injected)", self.reads);
        self.inner.read_sums()
    }
    fn read_aovs(&mut self) -> anyhow::Result<renderer::backend::Aovs> {
        self.inner.read_aovs()
    }
    fn denoise(&mut self) -> anyhow::Result<f64> {
        self.inner.denoise()
    }
    fn read_denoised_rgba8(&mut self, tonemap: renderer::backend::Tonemap) -> anyhow::Result<Vec<u8>> {
        self.inner.read_denoised_rgba8(tonemap)
    }
    fn read_denoised_linear(&mut self) -> anyhow::Result<Vec<[f32; 4]>> {
        self.inner.read_denoised_linear()
    }
}

/// Three CPU devices; device 1 fails its `render_fails`-th render or `read_fails`-th read.
fn with_failing_device(blob: &AlignedBytes, render_fails: u32, read_fails: u32) -> MultiBackend {
    let devices = (0..3)
        .map(|i| {
            let inner = cpu_backend(blob);
            let backend: Box<dyn Backend + Send> = if i == 1 {
                Box::new(Failing { inner, renders: 0, reads: 0, render_fails, read_fails })
            } else {
                Box::new(inner)
            };
            Device { label: format!("GPU {i}"), backend, weight: 1 }
        })
        .collect();
    MultiBackend::new("CPU × 3".to_owned(), devices).expect("devices")
}

#[test]
fn a_device_that_fails_mid_render_is_named_and_the_others_finish_its_samples() {
    let blob = compile(&mixed_scene());
    let job = full_job(&blob);
    let mut one = cpu_backend(&blob);
    one.render(&job).expect("render");
    let reference = one.read_linear().expect("linear");
    // In batches of 4 samples: device 1 fails its second render call, or the read-back
    // of its second batch, or its very first render.
    for (render_fails, read_fails, what) in [(2, 0, "launch"), (0, 2, "readback"), (1, 0, "first launch")] {
        let mut three = with_failing_device(&blob, render_fails, read_fails);
        for start in (0..SPP).step_by(4) {
            three.render(&job.with_samples(start..start + 4)).expect("the other devices carry on");
        }
        let image = three.read_linear().expect("linear");
        assert_close(&image, &reference, SPP, SPP, what);
        let lost = three.lost_devices();
        assert_eq!(lost.len(), 1, "{what}: {lost:?}");
        assert_eq!(lost[0].device, "GPU 1");
        assert!(
            lost[0].error.starts_with("GPU 1: "),
            "{what}: the error names the device: {}",
            lost[0].error
        );
        assert!(lost[0].error.contains("failed (injected)"), "{}", lost[0].error);
        assert!(!lost[0].samples.is_empty(), "{what}: it lost samples that were rendered again");
        let shares = three.shares();
        let total: u32 = shares.iter().map(|s| s.samples).sum();
        assert_eq!(total, SPP, "{what}: every sample rendered once in the film: {shares:?}");
        // It gets no more work.
        assert!(three.split(0..9)[1].is_empty(), "{:?}", three.split(0..9));
    }
}

#[test]
fn when_every_device_fails_the_render_fails_naming_them() {
    let blob = compile(&mixed_scene());
    let devices = (0..2)
        .map(|i| Device {
            label: format!("GPU {i}"),
            backend: Box::new(Failing {
                inner: cpu_backend(&blob),
                renders: 0,
                reads: 0,
                render_fails: 1,
                read_fails: 0,
            }) as Box<dyn Backend + Send>,
            weight: 1,
        })
        .collect();
    let mut two = MultiBackend::new("CPU × 2".to_owned(), devices).expect("devices");
    let error = format!("{:#}", two.render(&full_job(&blob)).expect_err("no device left"));
    assert!(error.contains("every device failed"), "{error}");
    assert!(
        error.contains("GPU 0: rendering samples") && error.contains("GPU 1: rendering samples"),
        "{error}"
    );
    assert!(two.read_linear().is_err(), "nothing to read after a failed render");
}

#[test]
fn a_restored_film_continues_like_the_uninterrupted_one() {
    let blob = compile(&mixed_scene());
    let job = full_job(&blob);
    let mut one = cpu_backend(&blob);
    one.render(&job).expect("render");
    let whole = one.read_rgba8(Tonemap::STANDARD).expect("rgba8");
    // A checkpoint after 7 samples, restored into a fresh CPU backend and into several devices.
    let mut first = cpu_backend(&blob);
    first.render(&job.with_samples(0..7)).expect("render");
    let saved = first.read_sums().expect("sums");
    let mut resumed = cpu_backend(&blob);
    resumed.restore_film(&saved).expect("restore");
    resumed.render(&job.with_samples(7..SPP)).expect("continues");
    assert!(resumed.read_rgba8(Tonemap::STANDARD).expect("rgba8") == whole, "the CPU continues bit for bit");
    let mut three = multi(&blob, &[1, 1, 1]);
    three.restore_film(&saved).expect("restore");
    three.render(&job.with_samples(7..SPP)).expect("continues");
    assert_close(
        &three.read_linear().expect("linear"),
        &one.read_linear().expect("linear"),
        SPP,
        SPP,
        "multi",
    );
    assert!(three.render(&job.with_samples(3..5)).is_err(), "a job that does not continue the film");
}
