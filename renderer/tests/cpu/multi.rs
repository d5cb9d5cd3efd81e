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
use renderer::backend::{Backend, RenderJob};
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
    let (png, linear) = (one.read_rgba8().expect("rgba8"), one.read_linear().expect("linear"));
    for weights in [&[1, 1][..], &[1, 3], &[2, 1, 1], &[1, 1, 1, 1, 1, 1, 1]] {
        let mut two = multi(&blob, weights);
        let split = two.split(0..SPP);
        let k_max = split.iter().map(|r| r.end - r.start).max().unwrap_or(0);
        let multi_stats = two.render(&job).expect("render");
        assert_eq!((multi_stats.samples, multi_stats.rays), (stats.samples, stats.rays), "{weights:?}");
        assert!(two.read_rgba8().expect("rgba8") == png, "{weights:?}: the 8-bit image differs");
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
    let png = one.read_rgba8().expect("rgba8");
    let mut two = multi(&blob, &[1, 1]);
    for (i, batch) in [0..1, 1..9, 9..SPP].into_iter().enumerate() {
        two.render(&job.with_samples(batch)).expect("batch");
        if i == 0 {
            // Reading after the first batch collects it; the next batch continues.
            two.read_linear().expect("read between batches");
        }
    }
    assert!(two.read_rgba8().expect("rgba8") == png, "batched multi-device render differs");
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
    assert!(one.read_rgba8().expect("rgba8") == two.read_rgba8().expect("rgba8"));
    assert_close(&one.read_linear().expect("a"), &two.read_linear().expect("b"), 13, 7, "shard");
}

#[test]
fn nothing_rendered_is_an_error_not_a_panic() {
    let blob = compile(&mixed_scene());
    let mut two = multi(&blob, &[1, 1]);
    assert!(two.read_rgba8().is_err() && two.read_sums().is_err());
    assert!(MultiBackend::new("none".to_owned(), Vec::new()).is_err());
    let mut empty = MultiBackend::new(
        "empty".to_owned(),
        vec![Device { label: "no scene".to_owned(), backend: Box::new(CpuBackend::new()), weight: 1 }],
    )
    .expect("one device");
    let error = empty.render(&full_job(&blob)).expect_err("no scene uploaded");
    assert!(format!("{error:#}").contains("no scene"), "{error:#}");
}
