//! CPU renders of the asset scenes against reference images.
//!
//! References are `assets/reference/<name>.png`: the CPU backend at [`WIDTH`] pixels
//! wide (the scene's aspect) and [`REFERENCE_SPP`] samples, so nearly noise-free.
//! The check renders [`CHECK_SPP`] samples with another seed (independent of the
//! reference's samples) as two halves A and B. The reference is converted back to
//! linear, channels it stores saturated (>= 1) are left out, and everything is
//! averaged over [`BLOCK`]² blocks; then:
//!
//! - noise: with C = (A + B) / 2, pure noise gives E|C - R| = E|A - B| / 2 (the
//!   difference of two independent halves has four times the variance of C's
//!   noise). So mean |C - R| must stay below `NOISE_SLACK` times half of mean
//!   |A - B|, plus [`QUANTIZATION`]. A shifted, flipped, darker or differently lit
//!   image adds to |C - R| but not to |A - B| and fails.
//! - bias: per channel, the mean of C - R over the blocks is within 4 standard
//!   errors of 0, plus [`QUANTIZATION`]: a renderer that loses or gains a few
//!   percent of energy fails.
//!
//! To regenerate after an intended change to the images (new scene, algorithm fix):
//! `cargo test --release -p renderer --test workflows -- --ignored cpu_golden::bless_references`
//! (about a minute on 2 cores), then look at the PNGs before committing them.

use std::path::PathBuf;

use renderer::backend::cpu::CpuBackend;
use renderer::backend::{Backend, RenderJob, Tonemap};
use scene_compiler::scene::RenderSettings;
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// The scenes in `assets/scenes/` checked against references: all of them, a missing
/// scene or reference fails, and so does a reference of a scene not listed here.
const SCENES: [&str; 6] = ["three_spheres", "cornell", "rtiow_final", "point_light", "sun", "box_lamp"];
/// Width of references and checks; the height follows the scene's aspect.
const WIDTH: u32 = 160;
const REFERENCE_SPP: u32 = 4096;
/// Samples of the check render, in two equal halves.
const CHECK_SPP: u32 = 64;
/// Side of the pixel blocks compared: 16 pixels × 64 samples per block tame the
/// fireflies of small lights, so block noise is close to Gaussian.
const BLOCK: usize = 4;
/// Margin on the Gaussian noise model.
const NOISE_SLACK: f64 = 1.25;
/// The reference's 8-bit rounding: at most half a step in display space, under
/// 1/255 in linear space.
const QUANTIZATION: f64 = 1.0 / 255.0;

fn assets() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets")
}

fn scene_path(name: &str) -> PathBuf {
    assets().join("scenes").join(format!("{name}.ron"))
}

fn reference_path(name: &str) -> PathBuf {
    assets().join("reference").join(format!("{name}.png"))
}

/// A backend with the scene uploaded and the job for `spp` samples at the test size.
fn setup(name: &str, spp: u32, seed_offset: u32) -> (CpuBackend, RenderJob) {
    let path = scene_path(name);
    let scene = scene_compiler::scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let view = BlobView::parse(&compiled.blob).expect("a compiled blob is valid");
    let scene_settings = view.settings();
    let height =
        ((WIDTH as f32 * scene_settings.height as f32 / scene_settings.width as f32).round() as u32).max(1);
    let mut backend = CpuBackend::new();
    backend.upload(&view).expect("CPU upload");
    let settings = RenderSettings {
        width: WIDTH,
        height,
        seed: scene_settings.seed.wrapping_add(seed_offset),
        ..scene_settings
    };
    let job = RenderJob::new(&settings, &view.camera(), 0..spp);
    (backend, job)
}

/// The linear value of an 8-bit reference channel: the centre of the bin that
/// `u8(255.99 * sqrt(c))` fell into, squared.
fn from_png(v: u8) -> f64 {
    ((f64::from(v) + 0.5) / 255.99).powi(2)
}

/// `image` (rgb per pixel, `width` wide) averaged over whole `BLOCK × BLOCK` blocks;
/// a block's channel is `None` where `usable` is false for any of its pixels.
fn blocks(image: &[[f64; 3]], usable: &[[bool; 3]], width: usize) -> Vec<[Option<f64>; 3]> {
    let (bw, bh) = (width / BLOCK, image.len() / width / BLOCK);
    let mut out = vec![[Some(0.0); 3]; bw * bh];
    for (i, (p, ok)) in image.iter().zip(usable).enumerate() {
        let (bx, by) = (i % width / BLOCK, i / width / BLOCK);
        if bx < bw && by < bh {
            for ch in 0..3 {
                let block = &mut out[by * bw + bx][ch];
                *block = block.filter(|_| ok[ch]).map(|sum| sum + p[ch] / (BLOCK * BLOCK) as f64);
            }
        }
    }
    out
}

/// Why a check render does not match its reference, or `Ok` with the measured numbers.
fn compare(name: &str, reference: &image::RgbaImage) -> Result<String, String> {
    let (mut backend, job) = setup(name, CHECK_SPP / 2, 0x9e37_79b9);
    if reference.dimensions() != (job.width, job.height) {
        return Err(format!(
            "reference is {:?}, the check renders {}x{}",
            reference.dimensions(),
            job.width,
            job.height
        ));
    }
    backend.render(&job).map_err(|e| e.to_string())?;
    let half = backend.read_linear().map_err(|e| e.to_string())?;
    backend.render(&RenderJob { first_sample: CHECK_SPP / 2, ..job }).map_err(|e| e.to_string())?;
    let whole = backend.read_linear().map_err(|e| e.to_string())?;
    let rgb = |p: &[f32; 4]| [0, 1, 2].map(|ch| f64::from(p[ch]));
    let a: Vec<[f64; 3]> = half.iter().map(rgb).collect();
    let c: Vec<[f64; 3]> = whole.iter().map(rgb).collect();
    // B's average from the sums: C = (A + B) / 2.
    let b: Vec<[f64; 3]> = a.iter().zip(&c).map(|(a, c)| [0, 1, 2].map(|ch| 2.0 * c[ch] - a[ch])).collect();
    let r: Vec<[f64; 3]> = reference.pixels().map(|p| [0, 1, 2].map(|ch| from_png(p.0[ch]))).collect();
    // A saturated reference channel only says "at least 1": leave it out rather than
    // clamp the check, whose clamped noisy pixels would be biased dark.
    let usable: Vec<[bool; 3]> = reference.pixels().map(|p| [0, 1, 2].map(|ch| p.0[ch] < u8::MAX)).collect();
    let width = job.width as usize;
    let [a, b, c, r] = [a, b, c, r].map(|image| blocks(&image, &usable, width));
    let (mut noise, mut diff, mut count) = (0.0, 0.0, 0.0);
    let mut bias = [(0.0f64, 0.0f64, 0.0f64); 3];
    for i in 0..a.len() {
        for ch in 0..3 {
            let (Some(a), Some(b), Some(c), Some(r)) = (a[i][ch], b[i][ch], c[i][ch], r[i][ch]) else {
                continue;
            };
            noise += (a - b).abs();
            diff += (c - r).abs();
            count += 1.0;
            let (sum, sum_sq, n) = &mut bias[ch];
            (*sum, *sum_sq, *n) = (*sum + (c - r), *sum_sq + (c - r).powi(2), *n + 1.0);
        }
    }
    if count < 0.5 * (3 * a.len()) as f64 {
        return Err(format!("only {count} of {} block channels are below saturation", 3 * a.len()));
    }
    let (noise, diff) = (noise / count, diff / count);
    let limit = NOISE_SLACK * 0.5 * noise + QUANTIZATION;
    let mut report = format!("mean |C - R| {diff:.5} (limit {limit:.5}, mean |A - B| {noise:.5})");
    let mut ok = diff <= limit;
    for (ch, (sum, sum_sq, n)) in bias.into_iter().enumerate() {
        let n = n.max(1.0);
        let mean = sum / n;
        let std_err = ((sum_sq / n - mean * mean).max(0.0) / n).sqrt();
        let bound = 4.0 * std_err + QUANTIZATION;
        report += &format!("; channel {ch} bias {mean:+.5} (bound {bound:.5})");
        ok &= mean.abs() <= bound;
    }
    if ok { Ok(report) } else { Err(report) }
}

#[test]
fn cpu_renders_match_references() {
    for name in SCENES {
        assert!(scene_path(name).is_file(), "{name}: no assets/scenes/{name}.ron");
        let reference = image::open(reference_path(name))
            .unwrap_or_else(|e| {
                panic!(
                    "{name}: cannot read reference {}: {e}\nbless it with: cargo test --release -p renderer \
                     --test workflows -- --ignored cpu_golden::bless_references",
                    reference_path(name).display()
                )
            })
            .into_rgba8();
        match compare(name, &reference) {
            Ok(report) => eprintln!("{name}: {report}"),
            Err(report) => panic!("{name} does not match its reference: {report}"),
        }
    }
}

/// A reference left behind by a scene taken off [`SCENES`] would look checked and be not.
#[test]
fn every_reference_belongs_to_a_checked_scene() {
    let folder = assets().join("reference");
    let listing = std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    let mut references: Vec<String> = listing
        .map(|item| item.expect("listing assets/reference").path())
        .filter(|path| path.extension().is_some_and(|e| e == "png"))
        .filter_map(|path| path.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
        .collect();
    references.sort();
    let mut scenes = SCENES.map(str::to_owned).to_vec();
    scenes.sort();
    assert_eq!(references, scenes, "assets/reference/*.png against SCENES");
}

#[test]
#[ignore = "writes assets/reference/*.png; run on purpose (see the module doc)"]
fn bless_references() {
    for name in SCENES {
        let (mut backend, job) = setup(name, REFERENCE_SPP, 0);
        let stats = backend.render(&job).expect("render");
        let pixels = backend.read_rgba8(Tonemap::STANDARD).expect("readback");
        let image = image::RgbaImage::from_raw(job.width, job.height, pixels).expect("film size");
        image.save(reference_path(name)).expect("write reference");
        eprintln!(
            "{name}: {}x{} at {REFERENCE_SPP} spp in {:.1} s",
            job.width,
            job.height,
            stats.render_ms / 1e3
        );
    }
}
