//! Several GPUs on one frame (`--gpus`), and fresh films that start at a later sample
//! (shards) on the GPU. Run on the GPU machine (tools/gpu-run.sh runs every bundled
//! gpu_* test with --include-ignored); with one GPU, `all` is that one GPU and the
//! comparisons still hold.
//!
//! Bound (docs/shards.md, "How exact a merge is"): identical GPUs compute every
//! sample's radiance to the same bits, so the merged image differs from the one-GPU
//! image only by float summation: per channel at most
//! (spp + k_max + 1) · 2^-24 of the value, k_max the largest GPU share.

use crate::gpu_support;

use gpu_support::{compile, require_driver, rtiow_scene, view};
use renderer::backend::cuda::{CudaBackend, probe_driver};
use renderer::backend::select::{GpuSelection, open_gpus};
use renderer::backend::{Backend, RenderJob};
use scene_compiler::scene::RenderSettings;

const SETTINGS: RenderSettings =
    RenderSettings { width: 320, height: 180, spp: 64, max_depth: 50, seed: 5, ..RenderSettings::DEFAULT };

fn one_gpu() -> CudaBackend {
    require_driver();
    CudaBackend::on_device(0, None).unwrap_or_else(|e| panic!("GPU 0 did not start: {e:#}"))
}

fn all_gpus() -> Box<dyn Backend> {
    require_driver();
    open_gpus(&GpuSelection::All, None).unwrap_or_else(|e| panic!("--gpus all did not start: {e:#}")).backend
}

/// Every channel within `(spp + k_max + 1) · 2^-24` of the other image's, relatively.
fn assert_within_summation_bound(a: &[[f32; 4]], b: &[[f32; 4]], spp: u32, k_max: u32) {
    assert_eq!(a.len(), b.len());
    let bound = f64::from(spp + k_max + 1) * 2f64.powi(-24);
    let mut worst = 0.0f64;
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        for ch in 0..3 {
            let (x, y) = (f64::from(p[ch]), f64::from(q[ch]));
            let relative = if x.max(y) > 0.0 { (x - y).abs() / x.max(y) } else { 0.0 };
            worst = worst.max(relative);
            assert!(
                relative <= bound,
                "pixel {i} channel {ch}: {x} vs {y} (relative {relative:e} > {bound:e})"
            );
        }
    }
    eprintln!("worst relative difference {worst:e}, bound {bound:e}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn all_gpus_give_the_one_gpu_image_within_summation_bounds() {
    let blob = compile(&rtiow_scene());
    let view = view(&blob);
    let job = RenderJob::full_frame(&SETTINGS, &view.camera());
    let mut one = one_gpu();
    one.upload(&view).expect("upload");
    let stats = one.render(&job).expect("render on one GPU");
    let (linear, png) = (one.read_linear().expect("linear"), one.read_rgba8().expect("rgba8"));

    let mut all = all_gpus();
    all.upload(&view).expect("upload");
    let all_stats = all.render(&job).expect("render on all GPUs");
    eprintln!("{}: {} GPUs", all.device_name(), probe_driver().unwrap_or(0));
    assert_eq!(all_stats.samples, stats.samples, "every sample rendered once");
    assert_eq!(all_stats.rays, stats.rays, "the same paths, so the same rays");
    let shares = all.shares();
    for share in &shares {
        eprintln!("  {}: {} spp, {:.2} ms", share.device, share.samples, share.render_ms);
    }
    let k_max = shares.iter().map(|s| s.samples).max().unwrap_or(SETTINGS.spp);
    if shares.len() > 1 {
        assert_eq!(shares.iter().map(|s| s.samples).sum::<u32>(), SETTINGS.spp);
        let models: Vec<&str> = shares.iter().map(|s| s.device.split(" · ").nth(1).unwrap_or("")).collect();
        if models.iter().any(|m| *m != models[0]) {
            eprintln!("different GPU models ({models:?}): per-sample bits may differ; bound not checked");
            return;
        }
    }
    assert_within_summation_bound(&all.read_linear().expect("linear"), &linear, SETTINGS.spp, k_max);
    // The host tonemaps with a division, the one-GPU kernel with a multiply by 1/n.
    let rgba = all.read_rgba8().expect("rgba8");
    assert!(rgba.iter().zip(&png).all(|(a, b)| a.abs_diff(*b) <= 1), "8-bit images differ by more than 1");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn batches_on_all_gpus_continue_the_frame() {
    let blob = compile(&rtiow_scene());
    let view = view(&blob);
    let job = RenderJob::full_frame(&SETTINGS, &view.camera());
    let mut all = all_gpus();
    all.upload(&view).expect("upload");
    all.render(&job).expect("one call");
    let whole = all.read_linear().expect("linear");
    for batch in [0..1, 1..17, 17..SETTINGS.spp] {
        all.render(&job.with_samples(batch)).expect("batch");
    }
    let sums = all.read_sums().expect("sums");
    assert_eq!((sums.shape.samples, sums.shape.sample_range()), (SETTINGS.spp, 0..SETTINGS.spp));
    // Batches split each call over the GPUs: the largest share is at most the largest batch.
    assert_within_summation_bound(&all.read_linear().expect("linear"), &whole, SETTINGS.spp, SETTINGS.spp);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_fresh_film_at_a_later_sample_is_cleared_and_divides_by_its_own_count() {
    let blob = compile(&rtiow_scene());
    let view = view(&blob);
    let job = RenderJob::full_frame(&SETTINGS, &view.camera());
    let shard = job.with_samples(24..40).on_fresh_film();
    // The film already holds a frame: the shard must not add to it.
    let mut reused = one_gpu();
    reused.upload(&view).expect("upload");
    reused.render(&job).expect("an older frame");
    reused.render(&shard).expect("shard");
    let mut new = one_gpu();
    new.upload(&view).expect("upload");
    new.render(&shard).expect("shard on a new film");
    let (a, b) = (reused.read_sums().expect("sums"), new.read_sums().expect("sums"));
    assert_eq!((a.shape.samples, a.shape.sample_range()), (16, 24..40));
    assert_eq!(a.shape, b.shape);
    let bits = |s: &[[f32; 3]]| s.iter().map(|p| p.map(f32::to_bits)).collect::<Vec<_>>();
    assert!(bits(&a.sums) == bits(&b.sums), "a fresh film on a used GPU film is cleared first");
    // Continuing the shard, and an empty fresh film.
    reused.render(&job.with_samples(40..48)).expect("continue the shard");
    assert_eq!(reused.read_sums().expect("sums").shape.sample_range(), 24..48);
    reused.render(&job.with_samples(48..48).on_fresh_film()).expect("empty shard");
    let empty = reused.read_sums().expect("sums");
    assert_eq!(empty.shape.samples, 0);
    assert!(empty.sums.iter().all(|p| *p == [0.0; 3]), "an empty fresh film is black");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_gpu_that_does_not_exist_is_an_error_naming_it() {
    require_driver();
    let count = probe_driver().expect("driver");
    let error = match open_gpus(&GpuSelection::List(vec![0, count]), None) {
        Ok(_) => panic!("GPU {count} does not exist"),
        Err(e) => format!("{e:#}"),
    };
    assert!(error.contains(&format!("no GPU {count}")), "{error}");
}
