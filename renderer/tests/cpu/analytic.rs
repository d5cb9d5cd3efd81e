//! CPU renders of scenes whose image is known in closed form.
//!
//! Under a constant white sky a path that only meets white Lambert or glass
//! surfaces carries throughput exactly 1 (Russian roulette keeps it with q = 1), so
//! every sample is exactly 1.0 unless the renderer loses it; the tolerance
//! `0.5 / spp` therefore says "not one sample of the pixel was lost".

use crate::cpu_support;

use glam::{DVec3, Vec3};
use renderer::camera::CameraFrame;
use scene_compiler::scene::{MaterialKind, Sky};
use scene_compiler::{BlobView, Scene};

use cpu_support::{compile, job, pinhole, render, scene};

const WIDTH: u32 = 64;
const HEIGHT: u32 = 48;
const SPP: u32 = 16;

/// Every channel of every pixel is `expected` within half a sample's weight.
fn assert_all_pixels(image: &[[f32; 4]], expected: f32, what: &str) {
    let tolerance = 0.5 / SPP as f32;
    for (i, p) in image.iter().enumerate() {
        for c in &p[..3] {
            assert!((c - expected).abs() < tolerance, "{what}: pixel {i} is {p:?}, expected {expected}");
        }
    }
}

#[test]
fn white_furnace_lambert_cluster_is_exactly_one() {
    // Nearly touching white spheres: paths bounce between them, past the Russian-roulette
    // depth. They do not overlap: a path could never leave the inside of an overlap.
    let white = [MaterialKind::Lambert { albedo: Vec3::ONE }];
    let spheres = [
        (Vec3::new(0.0, 0.0, 0.0), 1.0, 0),
        (Vec3::new(2.05, 0.0, 0.0), 1.0, 0),
        (Vec3::new(1.025, 1.8, 0.0), 1.0, 0),
        (Vec3::new(1.025, 0.6, -1.8), 1.0, 0),
    ];
    let s = scene(
        pinhole(Vec3::new(1.0, 0.8, 4.5), Vec3::new(1.0, 0.6, 0.0), 30.0),
        Sky::Constant(Vec3::ONE),
        &white,
        &spheres,
    );
    let blob = compile(&s);
    let (image, stats) = render(&blob, &job(&blob, WIDTH, HEIGHT, SPP, 1024, 1));
    assert_all_pixels(&image, 1.0, "white furnace");
    // The cluster fills most of the frame and paths bounce between its spheres.
    assert!(stats.rays > 2 * stats.samples, "{} rays for {} samples", stats.rays, stats.samples);
}

#[test]
fn glass_sphere_loses_no_energy() {
    let glass = [MaterialKind::Dielectric { ior: 1.5 }];
    let spheres = [(Vec3::new(0.0, 0.0, -3.0), 1.0, 0), (Vec3::new(1.4, 0.6, -3.5), 0.4, 0)];
    let s = scene(
        pinhole(Vec3::ZERO, Vec3::new(0.0, 0.0, -3.0), 50.0),
        Sky::Constant(Vec3::ONE),
        &glass,
        &spheres,
    );
    let blob = compile(&s);
    let (image, _) = render(&blob, &job(&blob, WIDTH, HEIGHT, SPP, 1024, 2));
    assert_all_pixels(&image, 1.0, "glass under a white sky");
}

/// Where the pixel rays of a one-sphere scene are known to hit or miss.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Coverage {
    Inside,
    Outside,
    Edge,
}

/// Classifies each pixel against the sphere's analytic silhouette: the rays through a
/// pixel span the geodesic quadrilateral of its corner rays (image-plane lines are
/// great circles), so all four corners inside the silhouette's cone puts the pixel
/// inside; outside needs the corners clear by the pixel's diagonal, which covers a
/// cone poking between two corners. Everything else is the excluded edge band.
fn silhouette(scene: &Scene, blob: &scene_compiler::AlignedBytes) -> Vec<Coverage> {
    let view = BlobView::parse(blob).expect("valid blob");
    let cam = CameraFrame::new(&view.camera(), WIDTH, HEIGHT);
    let d = |v: Vec3| v.as_dvec3();
    let corner_dir = |x: u32, y: u32| -> DVec3 {
        let s = f64::from(x) / f64::from(WIDTH);
        let t = 1.0 - f64::from(y) / f64::from(HEIGHT);
        (d(cam.lower_left) + s * d(cam.horizontal) + t * d(cam.vertical) - d(cam.origin)).normalize()
    };
    let sphere = scene.spheres[0];
    let to_center = d(sphere.center) - d(cam.origin);
    let cone = (f64::from(sphere.radius) / to_center.length()).asin();
    let axis = to_center.normalize();
    let mut out = Vec::new();
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let corners =
                [corner_dir(x, y), corner_dir(x + 1, y), corner_dir(x, y + 1), corner_dir(x + 1, y + 1)];
            let angles = corners.map(|c| c.angle_between(axis));
            let diagonal = corners[0].angle_between(corners[3]);
            let (nearest, farthest) =
                angles.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &a| (lo.min(a), hi.max(a)));
            out.push(if farthest < cone - 1e-6 {
                Coverage::Inside
            } else if nearest > cone + diagonal {
                Coverage::Outside
            } else {
                Coverage::Edge
            });
        }
    }
    out
}

/// One sphere, off-centre (so a flipped or shifted image fails), under a white sky.
fn mask_scene(material: MaterialKind) -> Scene {
    let spheres = [(Vec3::new(-0.7, 0.45, -4.0), 1.0, 0)];
    scene(
        pinhole(Vec3::ZERO, Vec3::new(0.0, 0.0, -4.0), 45.0),
        Sky::Constant(Vec3::ONE),
        &[material],
        &spheres,
    )
}

/// Renders `material`'s mask scene and checks inside pixels equal `inside`, outside ones 1.
fn check_mask(material: MaterialKind, max_depth: u32, inside: f32) {
    let s = mask_scene(material);
    let blob = compile(&s);
    let coverage = silhouette(&s, &blob);
    let (image, _) = render(&blob, &job(&blob, WIDTH, HEIGHT, SPP, max_depth, 3));
    let tolerance = 0.5 / SPP as f32;
    let count = |c: Coverage| coverage.iter().filter(|&&k| k == c).count();
    assert!(
        count(Coverage::Inside) > 200 && count(Coverage::Outside) > 1000,
        "the test scene frames the sphere"
    );
    for (i, (p, c)) in image.iter().zip(&coverage).enumerate() {
        let expected = match c {
            Coverage::Inside => inside,
            Coverage::Outside => 1.0,
            Coverage::Edge => continue,
        };
        let (x, y) = (i as u32 % WIDTH, i as u32 / WIDTH);
        for v in &p[..3] {
            assert!(
                (v - expected).abs() < tolerance,
                "pixel ({x}, {y}) is {p:?}, expected {expected} ({c:?})"
            );
        }
    }
}

#[test]
fn black_sphere_masks_the_sky_exactly_on_its_silhouette() {
    check_mask(MaterialKind::Lambert { albedo: Vec3::ZERO }, 1, 0.0);
}

#[test]
fn half_grey_sphere_reflects_half_the_sky_with_no_self_hit() {
    // A convex sphere's bounce always escapes: exactly one factor of 0.5. Russian
    // roulette after that bounce keeps a sample (weight 1/0.5) or drops it, so each
    // sample is 0 or 1 with mean 0.5: the inside pixels' mean is 0.5 within a few
    // standard errors (0.5 / sqrt(samples)). A bounce that hit its own surface (t_min
    // too small) would give 0.25 on average and fail by dozens of standard errors.
    let s = mask_scene(MaterialKind::Lambert { albedo: Vec3::splat(0.5) });
    let blob = compile(&s);
    let coverage = silhouette(&s, &blob);
    let (image, _) = render(&blob, &job(&blob, WIDTH, HEIGHT, SPP, 8, 3));
    let inside: Vec<f32> = image
        .iter()
        .zip(&coverage)
        .filter(|(_, c)| **c == Coverage::Inside)
        .flat_map(|(p, _)| p[..3].to_vec())
        .collect();
    assert!(inside.len() > 600, "the test scene frames the sphere");
    assert!(inside.iter().all(|v| (0.0..=1.0).contains(v)), "a sample outside [0, 1]");
    let mean = inside.iter().sum::<f32>() / inside.len() as f32;
    // Channels of one sample are equal, so count pixels, not channels, as samples.
    let standard_error = 0.5 / ((inside.len() / 3) as f32 * SPP as f32).sqrt();
    assert!((mean - 0.5).abs() < 5.0 * standard_error, "inside mean {mean}, expected 0.5 ± {standard_error}");
    for (p, c) in image.iter().zip(&coverage) {
        if *c == Coverage::Outside {
            assert!(p[..3].iter().all(|v| (v - 1.0).abs() < 1e-6), "sky pixel {p:?}");
        }
    }
}

#[test]
fn sky_gradient_follows_the_ray_direction_top_row_first() {
    // A lone sphere behind the camera leaves only sky in view.
    let sky = Sky::Gradient { bottom: Vec3::new(1.0, 0.0, 0.0), top: Vec3::new(0.0, 0.0, 1.0) };
    let white = [MaterialKind::Lambert { albedo: Vec3::ONE }];
    let s = scene(
        pinhole(Vec3::ZERO, Vec3::new(0.0, 0.3, -1.0), 70.0),
        sky,
        &white,
        &[(Vec3::new(0.0, 0.0, 5.0), 1.0, 0)],
    );
    let blob = compile(&s);
    let view = BlobView::parse(&blob).expect("valid blob");
    let cam = CameraFrame::new(&view.camera(), WIDTH, HEIGHT);
    let (image, _) = render(&blob, &job(&blob, WIDTH, HEIGHT, SPP, 4, 4));
    // The blue channel is 0.5 * (dir.y + 1): a pixel's average lies within the range
    // of that function over the pixel, found on a fine grid (its slope across a 1/8
    // pixel step is below 1e-4, the slack).
    let blue = |x: f32, y: f32| {
        let (s, t) = (x / WIDTH as f32, 1.0 - y / HEIGHT as f32);
        let dir = (cam.lower_left + s * cam.horizontal + t * cam.vertical - cam.origin).normalize();
        0.5 * (dir.y + 1.0)
    };
    const STEPS: u32 = 8;
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let (mut lo, mut hi) = (f32::MAX, f32::MIN);
            for i in 0..=STEPS {
                for j in 0..=STEPS {
                    let b = blue(x as f32 + i as f32 / STEPS as f32, y as f32 + j as f32 / STEPS as f32);
                    (lo, hi) = (lo.min(b - 1e-4), hi.max(b + 1e-4));
                }
            }
            let p = image[(y * WIDTH + x) as usize];
            assert!((lo..=hi).contains(&p[2]), "pixel ({x}, {y}) blue {} outside [{lo}, {hi}]", p[2]);
            assert!((p[0] + p[2] - 1.0).abs() < 1e-5, "pixel ({x}, {y}) is not on the red-blue lerp: {p:?}");
        }
    }
    assert!(
        image[0][2] > image[image.len() - 1][2],
        "the top row looks higher up the sky than the bottom row"
    );
}
