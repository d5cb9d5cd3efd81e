//! Next-event estimation with MIS against BSDF sampling alone on the Cornell asset
//! (an emissive sphere lights the box): both are unbiased, so every 8x8 block's mean
//! agrees between them (a z-test over independent batches), and NEE + MIS must cut
//! the variance per sample at least fourfold.

use renderer::backend::cpu::CpuBackend;
use renderer::backend::{Backend, RenderJob};
use scene_compiler::scene::RenderSettings;
use scene_compiler::{BlobView, CompileOptions, Scene, compile_scene};

const SIZE: u32 = 64;
const BLOCK: usize = 8;
const BATCHES: u32 = 32;
const SPP: u32 = 8;

/// Per batch, the image (rgb per pixel).
fn batches(scene: &Scene, nee: bool) -> Vec<Vec<[f64; 3]>> {
    let compiled = compile_scene(scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("valid blob");
    let mut backend = CpuBackend::new();
    backend.upload(&view).expect("upload");
    (0..BATCHES)
        .map(|batch| {
            let settings = RenderSettings {
                width: SIZE,
                height: SIZE,
                spp: SPP,
                max_depth: 50,
                seed: 100 + batch,
                ..RenderSettings::DEFAULT
            };
            backend.render(&RenderJob::full_frame(&settings, &view.camera()).with_nee(nee)).expect("render");
            let image = backend.read_linear().expect("read back");
            image.iter().map(|p| [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])]).collect()
        })
        .collect()
}

/// Per block and channel, the mean over batches and its standard error.
fn block_estimates(images: &[Vec<[f64; 3]>]) -> Vec<[(f64, f64); 3]> {
    let blocks = SIZE as usize / BLOCK;
    let n = images.len() as f64;
    (0..blocks * blocks)
        .map(|b| {
            let (bx, by) = (b % blocks, b / blocks);
            let block_mean = |image: &Vec<[f64; 3]>, c: usize| {
                let mut sum = 0.0;
                for y in by * BLOCK..(by + 1) * BLOCK {
                    for x in bx * BLOCK..(bx + 1) * BLOCK {
                        sum += image[y * SIZE as usize + x][c];
                    }
                }
                sum / (BLOCK * BLOCK) as f64
            };
            std::array::from_fn(|c| {
                let means: Vec<f64> = images.iter().map(|image| block_mean(image, c)).collect();
                let mean = means.iter().sum::<f64>() / n;
                let variance = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1.0);
                (mean, (variance / n).sqrt())
            })
        })
        .collect()
}

/// The mean over pixels and channels of the per-pixel variance across batches.
fn mean_pixel_variance(images: &[Vec<[f64; 3]>]) -> f64 {
    let n = images.len() as f64;
    let pixels = images[0].len();
    let mut total = 0.0;
    for i in 0..pixels {
        for c in 0..3 {
            let mean = images.iter().map(|im| im[i][c]).sum::<f64>() / n;
            total += images.iter().map(|im| (im[i][c] - mean).powi(2)).sum::<f64>() / (n - 1.0);
        }
    }
    total / (3 * pixels) as f64
}

#[test]
fn nee_and_bsdf_sampling_agree_on_the_cornell_box_and_nee_has_far_less_variance() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/cornell.ron");
    let text = std::fs::read_to_string(path).expect("the Cornell asset");
    let scene = scene_compiler::scene::parse(&text, path).expect("the Cornell asset is valid");
    let nee = batches(&scene, true);
    let bsdf = batches(&scene, false);
    for (b, (with, without)) in block_estimates(&nee).iter().zip(block_estimates(&bsdf)).enumerate() {
        for c in 0..3 {
            let ((m1, s1), (m2, s2)) = (with[c], without[c]);
            let se = (s1 * s1 + s2 * s2).sqrt().max(1e-6);
            let z = (m1 - m2) / se;
            assert!(
                z.abs() < 5.0,
                "block {b} channel {c}: NEE {m1} ± {s1}, BSDF only {m2} ± {s2}, z = {z:.2}"
            );
        }
    }
    let ratio = mean_pixel_variance(&bsdf) / mean_pixel_variance(&nee);
    eprintln!("variance per sample, BSDF only / NEE + MIS: {ratio:.1}");
    assert!(ratio >= 4.0, "NEE + MIS reduces the variance only {ratio:.1}-fold");
}
