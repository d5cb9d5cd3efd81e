//! The CPU image for a seed is a function of the seed alone: not of the thread
//! count, nor of how the samples are split across render calls (each (pixel,
//! sample) has its own stream and each pixel adds its samples in order), with either
//! sampler (the Sobol sampler's values are functions of pixel, sample and dimension).

use crate::cpu_support;

use renderer::backend::Backend;
use renderer::backend::RenderJob;
use scene_compiler::scene::SamplerKind;

use cpu_support::{compile, cpu_backend, job, mixed_scene, render};

const WIDTH: u32 = 48;
const HEIGHT: u32 = 32;

/// Bit patterns, so that NaNs and signed zeros compare too.
fn bits(image: &[[f32; 4]]) -> Vec<[u32; 4]> {
    image.iter().map(|p| p.map(f32::to_bits)).collect()
}

fn render_in_pool(
    threads: usize,
    blob: &scene_compiler::AlignedBytes,
    job: &RenderJob,
) -> (Vec<[f32; 4]>, u64) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    pool.install(|| {
        let (image, stats) = render(blob, job);
        (image, stats.rays)
    })
}

#[test]
fn same_seed_same_image_on_1_and_4_threads() {
    let blob = compile(&mixed_scene());
    for sampler in SamplerKind::ALL {
        let job = job(&blob, WIDTH, HEIGHT, 8, 16, 11).with_sampler(sampler);
        let (one, rays_one) = render_in_pool(1, &blob, &job);
        let (four, rays_four) = render_in_pool(4, &blob, &job);
        assert_eq!(bits(&one), bits(&four), "{sampler:?}");
        assert_eq!(rays_one, rays_four);
        // Not trivially equal: the image has content.
        assert!(one.iter().any(|p| p[0] != one[0][0]));
    }
}

#[test]
fn split_renders_continue_the_same_streams() {
    let blob = compile(&mixed_scene());
    for (whole, split) in SamplerKind::ALL.into_iter().flat_map(|s| {
        [[4, 4], [1, 7], [5, 3]].map(|split| (job(&blob, WIDTH, HEIGHT, 8, 16, 5).with_sampler(s), split))
    }) {
        let (reference, stats) = render(&blob, &whole);
        let mut backend = cpu_backend(&blob);
        let first = backend.render(&RenderJob { samples: split[0], ..whole }).expect("render");
        let second = backend
            .render(&RenderJob { first_sample: split[0], samples: split[1], ..whole })
            .expect("render");
        let image = backend.read_linear().expect("readback");
        assert_eq!(bits(&image), bits(&reference), "split {split:?}, {:?}", whole.sampler);
        assert_eq!(first.rays + second.rays, stats.rays, "split {split:?}");
        assert_eq!(first.samples + second.samples, stats.samples);
    }
}

#[test]
fn another_seed_gives_another_image() {
    let blob = compile(&mixed_scene());
    let (a, _) = render(&blob, &job(&blob, WIDTH, HEIGHT, 4, 16, 1));
    let (b, _) = render(&blob, &job(&blob, WIDTH, HEIGHT, 4, 16, 2));
    assert_ne!(bits(&a), bits(&b));
}

#[test]
fn a_job_that_does_not_continue_the_film_is_refused() {
    let blob = compile(&mixed_scene());
    let mut backend = cpu_backend(&blob);
    let base = job(&blob, WIDTH, HEIGHT, 2, 8, 1);
    backend.render(&base).expect("render");
    let error = backend.render(&RenderJob { first_sample: 3, ..base }).expect_err("film holds 2 samples");
    assert!(error.to_string().contains("film"), "{error}");
    let mut empty = renderer::backend::cpu::CpuBackend::new();
    assert!(empty.render(&base).is_err(), "rendering before upload is an error, not a panic");
}

#[test]
fn stats_count_samples_and_at_least_one_ray_per_sample() {
    let blob = compile(&mixed_scene());
    let (_, stats) = render(&blob, &job(&blob, WIDTH, HEIGHT, 3, 16, 1));
    assert_eq!(stats.samples, u64::from(WIDTH * HEIGHT * 3));
    // A closest-hit query per segment, and a shadow ray per diffuse hit (the lamp is a light).
    assert!(stats.rays >= stats.samples && stats.rays <= stats.samples * 2 * 16);
    // max_depth 1 without next-event estimation: exactly one closest-hit query per sample.
    let (_, one_bounce) = render(&blob, &job(&blob, WIDTH, HEIGHT, 3, 1, 1).with_nee(false));
    assert_eq!(one_bounce.rays, one_bounce.samples);
    let (_, with_shadows) = render(&blob, &job(&blob, WIDTH, HEIGHT, 3, 1, 1));
    assert!(with_shadows.rays > one_bounce.rays, "NEE traces shadow rays");
}
