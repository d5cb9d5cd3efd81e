//! The environment sky (docs/path-tracing.md, "Environment") against closed forms and
//! independent computations: the lookup convention and the bilinear filter on exact
//! values, a uniform image against `Constant`, a small bright region against a
//! directional light of the same power and direction, and what importance sampling
//! buys at equal samples.

use std::f64::consts::PI;
use std::sync::Arc;

use glam::{Vec3, Vec3A};
use renderer::backend::cpu::environment::EnvMap;
use scene_compiler::procedural_sky::{direction, sun_direction};
use scene_compiler::scene::{EnvImage, Environment, Light, MaterialKind, RenderSettings, Sky};
use scene_compiler::{BlobView, Scene};

use crate::cpu_support::{assert_close, compile, estimate, job, pinhole, render, scene};

/// An environment sky of `width x height` texels, strength 1.
fn env_sky(width: u32, height: u32, texels: Vec<[f32; 3]>, rotation_deg: f32) -> Sky {
    let data = EnvImage { path: Default::default(), width, height, texels };
    Sky::Environment(Environment { image: String::new(), data: Arc::new(data), strength: 1.0, rotation_deg })
}

/// A scene under `sky`: one small grey sphere far below the camera's view (the scene
/// needs a primitive), camera at the origin looking down -Z.
fn under(sky: Sky) -> Scene {
    let grey = MaterialKind::Lambert { albedo: Vec3::splat(0.5) };
    scene(pinhole(Vec3::ZERO, Vec3::NEG_Z, 40.0), sky, &[grey], &[(Vec3::new(0.0, -100.0, 0.0), 0.1, 0)])
}

/// The environment of `sky` as the CPU backend holds it.
fn env_map(sky: Sky) -> EnvMap {
    let blob = compile(&under(sky));
    let view = BlobView::parse(&blob).expect("valid blob");
    EnvMap::from_blob(&view).expect("the blob has an environment")
}

/// A 4 x 2 image whose texel `(i, j)` holds `(i, j, 10 i + j + 1)`.
fn labelled() -> Vec<[f32; 3]> {
    (0..2).flat_map(|j| (0..4).map(move |i| [i as f32, j as f32, (10 * i + j + 1) as f32])).collect()
}

fn close(a: Vec3A, b: Vec3, what: &str) {
    assert!((a - Vec3A::from(b)).abs().max_element() < 1e-4, "{what}: {a} != {b}");
}

#[test]
fn a_direction_looks_up_the_texel_the_formula_says() {
    let env = env_map(env_sky(4, 2, labelled(), 0.0));
    // u = atan2(x, -z) / 2π wrapped, v = acos(y) / π: +Z is the centre column.
    for (d, u, v) in [
        (Vec3A::Z, 0.5, 0.5),
        (Vec3A::X, 0.25, 0.5),
        (Vec3A::NEG_X, 0.75, 0.5),
        (Vec3A::NEG_Z, 0.0, 0.5),
        (Vec3A::Y, 0.5, 0.0),
        (Vec3A::NEG_Y, 0.5, 1.0),
    ] {
        let (got_u, got_v, _) = env.uv(d);
        assert!((got_u - u).abs() < 1e-6 && (got_v - v).abs() < 1e-6, "{d}: ({got_u}, {got_v})");
    }
    // Each texel's centre direction returns that texel.
    for j in 0..2 {
        for i in 0..4 {
            let d = direction((i as f32 + 0.5) / 4.0, (j as f32 + 0.5) / 2.0);
            close(env.radiance(d.into()), Vec3::new(i as f32, j as f32, (10 * i + j + 1) as f32), "centre");
        }
    }
}

#[test]
fn rotation_turns_the_image_about_plus_y() {
    // Rotated by 90°, the centre column (u = 0.5) is seen looking along +X, not +Z.
    let env = env_map(env_sky(4, 2, labelled(), 90.0));
    let (u, v, _) = env.uv(Vec3A::X);
    assert!((u - 0.5).abs() < 1e-6 && (v - 0.5).abs() < 1e-6, "({u}, {v})");
    let (u, _, _) = env.uv(Vec3A::NEG_Z);
    assert!((u - 0.25).abs() < 1e-6, "-Z sees the column +X saw unrotated: {u}");
}

#[test]
fn bilinear_lookups_match_exact_values() {
    let env = env_map(env_sky(4, 2, labelled(), 0.0));
    let t = |i: usize, j: usize| Vec3::from_array(labelled()[j * 4 + i]);
    // Halfway between the centres of columns 1 and 2, on row 0's centre.
    close(env.radiance(direction(0.5, 0.25).into()), (t(1, 0) + t(2, 0)) / 2.0, "between columns");
    // u = 0 lies between the last column and the first: the image wraps.
    close(env.radiance(direction(0.0, 0.25).into()), (t(3, 0) + t(0, 0)) / 2.0, "wrap");
    // A quarter of the way from column 0's centre to column 1's, halfway down between the rows.
    let (u, v) = ((0.5 + 0.25) / 4.0, 0.5);
    let expected = 0.5 * (t(0, 0) * 0.75 + t(1, 0) * 0.25) + 0.5 * (t(0, 1) * 0.75 + t(1, 1) * 0.25);
    close(env.radiance(direction(u, v).into()), expected, "both axes");
    // Above the top row's centres only the top row counts (rows clamp at the poles).
    let near_pole = direction((1.0 + 0.5) / 4.0, 0.1 / 2.0);
    close(env.radiance(near_pole.into()), t(1, 0), "pole");
}

#[test]
fn a_uniform_image_gives_exactly_what_constant_gives() {
    let color = Vec3::new(0.3, 0.7, 1.3);
    let env = env_map(env_sky(16, 8, vec![color.to_array(); 128], 37.0));
    let mut rng = scene_compiler::rng::SplitMix64(5);
    for _ in 0..1000 {
        let d = (rng.next_vec3() - Vec3::splat(0.5)).normalize_or(Vec3::Y);
        assert_eq!(env.radiance(d.into()), Vec3A::from(color), "a lerp of equal values is exact");
    }
    // Furnace: a grey sphere under a uniform sky. Without NEE the two skies draw the
    // same numbers and follow the same paths; the environment returns the colour
    // exactly, `Constant` its gradient's lerp of the colour with itself, which glam
    // rounds by an ulp: the images agree to f32 rounding.
    let grey = MaterialKind::Lambert { albedo: Vec3::splat(0.5) };
    let with = |sky: Sky| {
        scene(pinhole(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO, 30.0), sky, &[grey], &[(Vec3::ZERO, 1.0, 0)])
    };
    let constant = with(Sky::Constant(color));
    let uniform = with(env_sky(16, 8, vec![color.to_array(); 128], 37.0));
    let images = [&constant, &uniform].map(|s| {
        let blob = compile(s);
        render(&blob, &job(&blob, 24, 24, 4, 8, 1).with_nee(false)).0
    });
    for (a, b) in images[0].iter().zip(&images[1]) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-6 * x.abs().max(1.0), "{a:?} != {b:?}");
        }
    }
    // With NEE the environment is sampled as a light: the same expectation. A convex
    // sphere of albedo a under radiance L reflects exactly a L (no interreflection).
    let one_pixel = |s: &Scene| {
        let mut s = s.clone();
        s.camera = pinhole(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO, 0.5);
        s
    };
    let expected = 0.5 * f64::from(color.x);
    assert_close("constant", estimate(&one_pixel(&constant), (1, 1), 256, 8, true, 8), expected);
    assert_close("uniform image, NEE", estimate(&one_pixel(&uniform), (1, 1), 256, 8, true, 8), expected);
}

/// A black 512 x 256 environment with a sun of radius `radius_deg` and radiance
/// `radiance` towards `sun`, 4 x 4 points per texel; and its `∫ L dω` over the texels
/// (each texel's value times its solid angle), the irradiance it gives at normal
/// incidence.
fn sun_image(sun: Vec3, radius_deg: f32, radiance: f32) -> (Vec<[f32; 3]>, f64) {
    let (w, h) = (512usize, 256usize);
    let cos_r = radius_deg.to_radians().cos();
    let mut texels = vec![[0.0f32; 3]; w * h];
    let mut integral = 0.0f64;
    for j in 0..h {
        let solid_angle = (PI * (j as f64 + 0.5) / h as f64).sin() * (2.0 * PI / w as f64) * (PI / h as f64);
        for i in 0..w {
            let mut inside = 0;
            for s in 0..16 {
                let u = (i as f32 + ((s % 4) as f32 + 0.5) / 4.0) / w as f32;
                let v = (j as f32 + ((s / 4) as f32 + 0.5) / 4.0) / h as f32;
                inside += usize::from(direction(u, v).dot(sun) >= cos_r);
            }
            let value = radiance * inside as f32 / 16.0;
            texels[j * w + i] = [value; 3];
            integral += f64::from(value) * solid_angle;
        }
    }
    (texels, integral)
}

/// A grey plane (albedo 0.5, a sphere of radius 1000 whose top is y = 0) seen straight
/// down at the origin, where its normal is +Y, under `sky`.
fn plane_under(sky: Sky) -> Scene {
    let grey = MaterialKind::Lambert { albedo: Vec3::splat(0.5) };
    let mut s = scene(
        pinhole(Vec3::new(0.0, 1.0, 3.0), Vec3::ZERO, 0.05),
        sky,
        &[grey],
        &[(Vec3::new(0.0, -1000.0, 0.0), 1000.0, 0)],
    );
    s.settings = RenderSettings { width: 1, height: 1, ..s.settings };
    s
}

/// The sun of the image lights the plane as a directional light of the same irradiance
/// (its `∫ L dω`) and direction does: `albedo / π · E · cos`, both within 5 standard
/// errors plus 1% (the texels' cosines across the 2° disc and the filter's spread).
///
/// Importance sampling at equal samples (256 spp, 16 renders): the standard error with
/// NEE on the environment is 1/153 of BSDF sampling alone's (measured 2026-11-25: s.e.
/// 0.0044 against 0.67 for an expected 0.64); the test asserts a ratio of at least 20.
#[test]
fn a_small_bright_region_lights_a_plane_like_a_directional_light() {
    let sun = sun_direction(40.0, 30.0);
    let (texels, irradiance) = sun_image(sun, 2.0, 2000.0);
    let env = plane_under(env_sky(512, 256, texels, 0.0));
    let mut directional = plane_under(Sky::Constant(Vec3::ZERO));
    directional.lights = vec![Light::Directional {
        direction: -sun,
        color: Vec3::ONE,
        intensity: irradiance as f32,
        angular_radius_deg: 2.0,
    }];
    // The plane (normal +Y) at the sun's elevation; a cone of 2° averages cos · (1 + cos 2°) / 2.
    let cone = (1.0 + 2f64.to_radians().cos()) / 2.0;
    let expected = 0.5 / PI * irradiance * f64::from(sun.y) * cone;
    let from_env = estimate(&env, (1, 1), 256, 4, true, 16);
    let from_light = estimate(&directional, (1, 1), 256, 4, true, 16);
    let loose = |what: &str, (mean, se): (f64, f64)| {
        assert!(
            (mean - expected).abs() <= 5.0 * se + 0.01 * expected,
            "{what}: {mean} ± {se}, expected {expected}"
        );
    };
    loose("environment sun", from_env);
    loose("directional light", from_light);
    let unsampled = estimate(&env, (1, 1), 256, 4, false, 16);
    let ratio = unsampled.1 / from_env.1;
    assert!(
        ratio > 20.0,
        "importance sampling: s.e. {} vs BSDF only {} (ratio {ratio})",
        from_env.1,
        unsampled.1
    );
    eprintln!("environment sun: s.e. with NEE {} / BSDF only {} = {ratio}", from_env.1, unsampled.1);
}
