//! The Sobol sampler (docs/path-tracing.md, "Sobol sampler"): the sequence against known
//! points, the nets its scrambled points form, pinned values (the GPU test pins the
//! same), and what it is for: less noise per sample than the independent sampler, with
//! the same mean.

use renderer::backend::Backend;
use renderer::backend::RenderJob;
use renderer::backend::constants::{SOBOL_DIRECTIONS, SOBOL_GROUP_DIMS};
use renderer::backend::cpu::CpuBackend;
use renderer::backend::cpu::rng::pcg_hash;
use renderer::backend::cpu::sampler::{Sampler, Sobol, nested_uniform_scramble, sobol, sobol_sample};
use scene_compiler::scene::{RenderSettings, SamplerKind};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// The first eight points of the first four Sobol dimensions (Joe & Kuo's
/// direction numbers), as fractions: van der Corput, then the usual Sobol points.
#[test]
fn unscrambled_points_are_the_known_sobol_points() {
    let known: [[f64; 8]; 4] = [
        [0.0, 0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875],
        [0.0, 0.5, 0.75, 0.25, 0.625, 0.125, 0.375, 0.875],
        [0.0, 0.5, 0.75, 0.25, 0.375, 0.875, 0.625, 0.125],
        [0.0, 0.5, 0.75, 0.25, 0.125, 0.625, 0.875, 0.375],
    ];
    for (dim, points) in known.iter().enumerate() {
        for (i, &want) in points.iter().enumerate() {
            let got = f64::from(sobol(i as u32, dim)) / 2f64.powi(32);
            assert_eq!(got, want, "point {i} of dimension {dim}");
        }
    }
    // Van der Corput is the bit reversal of the index.
    for i in [1u32, 77, 12_345, u32::MAX] {
        assert_eq!(sobol(i, 0), i.reverse_bits());
    }
    assert_eq!(SOBOL_DIRECTIONS.len(), SOBOL_GROUP_DIMS);
}

/// Whether points `0..2^k` of sampler dimensions (`a`, `b`), as 32-bit fractions, put
/// exactly `2^t` points in every elementary interval of volume `2^(t-k)`: the
/// `(t, k, 2)`-net property of the projection.
fn is_net(points: &[(u32, u32)], k: u32, t: u32) -> bool {
    assert_eq!(points.len(), 1 << k);
    (0..=k - t).all(|bits_a| {
        let bits_b = k - t - bits_a;
        let mut cells = vec![0u32; 1 << (k - t)];
        for &(x, y) in points {
            let cx = if bits_a == 0 { 0 } else { x >> (32 - bits_a) };
            let cy = if bits_b == 0 { 0 } else { y >> (32 - bits_b) };
            cells[((cx << bits_b) | cy) as usize] += 1;
        }
        cells.iter().all(|&c| c == 1 << t)
    })
}

/// The first `2^k` samples of dimensions (`a`, `b`) of the pixel with seed `pixel_seed`.
fn projection(pixel_seed: u32, a: u32, b: u32, k: u32) -> Vec<(u32, u32)> {
    (0..1u32 << k).map(|i| (sobol_sample(i, a, pixel_seed), sobol_sample(i, b, pixel_seed))).collect()
}

/// Owen scrambling keeps the nets of the sequence, and so does the shuffle of the index
/// (the first 2^k shuffled indices are an aligned block of 2^k): in every padded group,
/// the first two dimensions are a (0, 2)-sequence (every elementary interval of the
/// 2^k grid shapes holds one point, what the camera's jitter and each bounce's 2D samples
/// get), and each dimension alone is stratified into 2^k equal intervals. Dimensions 2
/// and 3 of Joe & Kuo's table are not a (0, 2)-sequence (the unscrambled points put two
/// points in some 4x1 intervals of the first 4): they hold the sequence's t-values,
/// which are at most 2 for these sizes (0 at 16 points), and carry the 1D draws and the
/// lens. Values lie in [0, 1).
#[test]
fn scrambled_projections_are_stratified() {
    // t of dimensions (2, 3) of the unscrambled sequence for 2^1 .. 2^10 points.
    let t23 = [0, 1, 2, 0, 1, 1, 1, 1, 1, 1];
    for pixel in [0u32, 1, 4_095, 123_456] {
        let pixel_seed = pcg_hash(pixel ^ pcg_hash(7));
        for group in [0u32, 1, 2, 9] {
            let base = 4 * group;
            for k in 1..=10u32 {
                let unscrambled: Vec<(u32, u32)> =
                    (0..1u32 << k).map(|i| (sobol(i, 2), sobol(i, 3))).collect();
                assert!(is_net(&unscrambled, k, t23[k as usize - 1]));
                assert!(
                    is_net(&projection(pixel_seed, base, base + 1, k), k, 0),
                    "pixel {pixel} dims ({base}, {}) at 2^{k}",
                    base + 1
                );
                assert!(
                    is_net(&projection(pixel_seed, base + 2, base + 3, k), k, t23[k as usize - 1]),
                    "pixel {pixel} dims ({}, {}) at 2^{k}",
                    base + 2,
                    base + 3
                );
                for dim in base..base + 4 {
                    let mut strata: Vec<u32> =
                        (0..1u32 << k).map(|i| sobol_sample(i, dim, pixel_seed) >> (32 - k)).collect();
                    strata.sort_unstable();
                    assert_eq!(strata, (0..1u32 << k).collect::<Vec<_>>(), "dim {dim} at 2^{k}");
                }
            }
            assert_eq!(t23[3], 0, "16 points of dimensions 2 and 3 are a (0, 4, 2)-net");
        }
        let mut s = Sobol::start(pixel, 3, pcg_hash(7));
        for dim in 0..200 {
            let v = s.get(dim);
            assert!((0.0..1.0).contains(&v), "{v}");
        }
    }
}

/// Scrambling changes the points (per pixel, per group and per dimension) but not their
/// net; the sampler is a pure function of (pixel, sample, dimension, seed).
#[test]
fn scrambles_decorrelate_pixels_groups_and_dimensions() {
    let seed_hash = pcg_hash(0);
    let first =
        |pixel, dim| (0..64u32).map(|i| Sobol::start(pixel, i, seed_hash).get(dim)).collect::<Vec<f32>>();
    assert_ne!(first(0, 0), first(1, 0), "pixels");
    assert_ne!(first(0, 0), first(0, 4), "groups");
    assert_ne!(first(0, 0), first(0, 1), "dimensions");
    assert_eq!(first(5, 9), first(5, 9));
    assert_ne!(Sobol::start(5, 0, pcg_hash(1)).get(0), Sobol::start(5, 0, pcg_hash(2)).get(0), "seeds");
    // Owen scrambling is a bijection that keeps the leading bits' tree: values sharing
    // their top bits still do after the scramble.
    for seed in [0u32, 1, 0xdead_beef] {
        let a = nested_uniform_scramble(0x8000_0000, seed);
        let b = nested_uniform_scramble(0x8000_0001, seed);
        assert_eq!(a >> 31, b >> 31);
        assert_ne!(a, b);
    }
}

/// Values pinned for the GPU test (`tests/gpu/render.rs`, `device_sobol_is_the_cpu_sobol`).
#[test]
fn pinned_sobol_values() {
    let cases = [(0u32, 0u32, 0u32), (0, 1, 0), (12_345, 7, 42), (921_599, 29, 3)];
    let got: Vec<u32> = cases.iter().map(|&(i, d, s)| sobol_sample(i, d, s)).collect();
    assert_eq!(got, PINNED, "{got:?}");
}

const PINNED: [u32; 4] = [81_127_995, 3_637_146_668, 2_569_575_830, 3_892_426_164];

/// A render of `scene` at `size` with `spp` samples from sample 0 and `seed`, on the CPU,
/// as linear RGB.
fn render(blob: &BlobView<'_>, size: (u32, u32), spp: u32, seed: u32, sampler: SamplerKind) -> Vec<[f64; 3]> {
    let settings = RenderSettings { width: size.0, height: size.1, spp, seed, sampler, ..blob.settings() };
    let mut cpu = CpuBackend::new();
    cpu.upload(blob).expect("CPU upload");
    cpu.render(&RenderJob::full_frame(&settings, &blob.camera())).expect("CPU render");
    cpu.read_linear().expect("CPU readback").iter().map(|p| [p[0], p[1], p[2]].map(f64::from)).collect()
}

/// The mean squared error of `a` against `b` over pixels and channels.
fn mse(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter().zip(b).flat_map(|(p, q)| (0..3).map(move |c| (p[c] - q[c]).powi(2))).sum::<f64>()
        / (3 * a.len()) as f64
}

/// The median of an even number of values.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    0.5 * (values[values.len() / 2 - 1] + values[values.len() / 2])
}

fn mean(image: &[[f64; 3]]) -> f64 {
    image.iter().flatten().sum::<f64>() / (3 * image.len()) as f64
}

/// The measure (issue 36, "Less noise per sample"): at 16 samples per pixel the
/// Sobol sampler's squared error against a high-sample reference, over seeds, is at least
/// 1.5 times below the independent sampler's, and its mean agrees with the reference's.
///
/// Robust to the one kind of sample no sampler helps with: on `textures.ron` a path that
/// the fuzzy metal crate reflects into the sun's 1° disc carries its radiance, 2100, about
/// one sample in a million, as often with either sampler (0.10 to 0.15 such pixels per
/// 96x54 render at 16 spp, over 48 seeds each). One of them adds a hundred times the rest
/// of the image's squared error to its render, so a mean over 8 seeds is a lottery (0.01
/// where two landed in Sobol renders). So the reference is the per-pixel median of 8
/// independent renders of `reference_spp / 8` samples, and the measure is the median over
/// seeds of each render's MSE (the mean over seeds is printed too). The Sobol renders'
/// mean must agree with the mean of the reference's parts within 5 standard errors and
/// 1 % (their own such samples move either by half of that).
fn sobol_beats_independent(scene: &str, size: (u32, u32), reference_spp: u32) {
    const SPP: u32 = 16;
    const SEEDS: u32 = 8;
    const REFERENCE_PARTS: u32 = 8;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/").to_owned() + scene;
    let scene = scene_compiler::scene::load_file(std::path::Path::new(&path)).expect("the asset loads");
    let compiled = compile_scene(&scene, &CompileOptions::default());
    let blob = BlobView::parse(&compiled.blob).expect("a compiled blob is valid");
    // Seeds of the test renders are 1..=SEEDS; the reference's are apart from them.
    let parts: Vec<Vec<[f64; 3]>> = (0..REFERENCE_PARTS)
        .map(|i| render(&blob, size, reference_spp / REFERENCE_PARTS, 1_000 + i, SamplerKind::Independent))
        .collect();
    let reference: Vec<[f64; 3]> = (0..parts[0].len())
        .map(|p| std::array::from_fn(|c| median(parts.iter().map(|part| part[p][c]).collect())))
        .collect();
    let mut errors = [Vec::new(), Vec::new()];
    let mut sobol_means = Vec::new();
    for seed in 1..=SEEDS {
        let image = render(&blob, size, SPP, seed, SamplerKind::Independent);
        errors[0].push(mse(&image, &reference));
        let image = render(&blob, size, SPP, seed, SamplerKind::Sobol);
        errors[1].push(mse(&image, &reference));
        sobol_means.push(mean(&image));
    }
    let raw = [errors[0].iter().sum::<f64>(), errors[1].iter().sum::<f64>()];
    let [independent, sobol] = errors.map(median);
    // The mean of the reference's parts: the estimate of the image's mean.
    let reference = parts.iter().fold(vec![[0.0; 3]; parts[0].len()], |mut sum, part| {
        for (s, p) in sum.iter_mut().zip(part) {
            for c in 0..3 {
                s[c] += p[c] / f64::from(REFERENCE_PARTS);
            }
        }
        sum
    });
    let ratio = independent / sobol;
    let n = f64::from(SEEDS);
    let sobol_mean = sobol_means.iter().sum::<f64>() / n;
    let se = (sobol_means.iter().map(|m| (m - sobol_mean).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt();
    let reference_mean = mean(&reference);
    eprintln!(
        "{scene}: MSE at {SPP} spp, median, independent / Sobol = {ratio:.2} ({:.3e} / {:.3e}); \
         mean {:.2} ({:.3e} / {:.3e}); mean {sobol_mean:.5} ± {se:.5} against {reference_mean:.5}",
        independent,
        sobol,
        raw[0] / raw[1],
        raw[0] / n,
        raw[1] / n,
        scene = path.rsplit('/').next().unwrap_or_default(),
    );
    assert!(
        (sobol_mean - reference_mean).abs() <= 5.0 * se + 0.01 * reference_mean,
        "Sobol's mean {sobol_mean} ± {se} against the reference's {reference_mean}"
    );
    assert!(ratio >= 1.5, "Sobol lowers the MSE only {ratio:.2}-fold");
}

#[test]
fn sobol_has_less_noise_on_the_cornell_box() {
    sobol_beats_independent("cornell.ron", (64, 64), 1024);
}

#[test]
fn sobol_has_less_noise_on_the_textures_scene() {
    sobol_beats_independent("textures.ron", (96, 54), 1024);
}
