//! Light transport against closed forms (docs/path-tracing.md, "Next-event
//! estimation" and "Robust hits"): a Lambert plane under a point light, a sun, a
//! spherical lamp and a box lamp, with and without NEE; closed-sphere furnaces at radii
//! from 1 to 10^6 and far from the origin.
//!
//! A "plane" is a sphere of radius 1000 whose top is at y = 0, and the closed forms
//! are evaluated at the exact point the pixel sees on it, with its exact normal: a
//! sphere of radius 10^5 holds its surface only to about 8 · 2^-23 · 2 · 10^5 ≈ 0.2
//! in f32 (docs/path-tracing.md, "Robust hits"). Estimates are means over independent renders
//! (different seeds); a test passes within 5 standard errors of those means, plus
//! 1e-4 relative for f32 accumulation where the estimator is nearly deterministic
//! (a point light seen through NEE has almost no variance).

use crate::cpu_support;

use glam::Vec3;
use scene_compiler::Scene;
use scene_compiler::scene::{Cuboid, Light, MaterialKind, Sky};

use cpu_support::{assert_close, estimate, lit_pixels_with_and_without_nee, pinhole, scene};

const PLANE_RADIUS: f32 = 1e3;
const PLANE_CENTER: Vec3 = Vec3::new(0.0, -PLANE_RADIUS, 0.0);

/// The point of the plane sphere under `(x, z)` and its normal.
fn on_plane(x: f32, z: f32) -> (Vec3, Vec3) {
    let normal = (Vec3::new(x, 0.0, z) - PLANE_CENTER).normalize();
    (PLANE_CENTER + PLANE_RADIUS * normal, normal)
}

/// `albedo / π` times the irradiance `cos / d²` from `light` at `point` with `normal`.
fn lambert_under(point: Vec3, normal: Vec3, light: Vec3) -> (f64, f64) {
    let to = (light - point).as_dvec3();
    (to.normalize().dot(normal.as_dvec3()), to.length_squared())
}
const ALBEDO: f32 = 0.5;

/// A grey Lambert plane y = 0 (material 0) seen at `target` through a 0.05° pinhole
/// from `eye`, black sky, plus `extra` spheres.
fn plane_scene(eye: Vec3, target: Vec3, materials: &[MaterialKind], extra: &[(Vec3, f32, u32)]) -> Scene {
    let mut spheres = vec![(PLANE_CENTER, PLANE_RADIUS, 0)];
    spheres.extend_from_slice(extra);
    let mut all = vec![MaterialKind::Lambert { albedo: Vec3::splat(ALBEDO) }];
    all.extend_from_slice(materials);
    scene(pinhole(eye, target, 0.05), Sky::Constant(Vec3::ZERO), &all, &spheres)
}

#[test]
fn point_light_on_a_plane_matches_the_inverse_square_law() {
    let (light, intensity) = (Vec3::new(0.0, 2.0, 0.0), 10.0f32);
    let (target, normal) = on_plane(1.0, 0.0);
    let mut s = plane_scene(Vec3::new(1.0, 1.0, 3.0), target, &[], &[]);
    s.lights = vec![Light::Point { position: light, color: Vec3::ONE, intensity }];
    let (cos, d2) = lambert_under(target, normal, light);
    let expected = f64::from(ALBEDO) / std::f64::consts::PI * f64::from(intensity) * cos / d2;
    assert_close("point light", estimate(&s, (1, 1), 256, 4, true, 8), expected);
    // Nothing can hit a point: BSDF sampling alone sees nothing.
    assert_eq!(estimate(&s, (1, 1), 64, 4, false, 2).0, 0.0);
}

#[test]
fn sun_with_a_disc_on_a_plane_matches_the_cone_average() {
    let (irradiance, radius_deg) = (3.0f32, 5.0f32);
    let travel = Vec3::new(-1.0, -2.0, 0.0);
    // Straight under the eye, where the sphere's normal is exactly +y.
    let mut s = plane_scene(Vec3::new(0.0, 1.0, 3.0), Vec3::ZERO, &[], &[]);
    s.lights = vec![Light::Directional {
        direction: travel,
        color: Vec3::ONE,
        intensity: irradiance,
        angular_radius_deg: radius_deg,
    }];
    // Uniform over a cone fully above the horizon: E[cos] = cos(axis) (1 + cos θmax) / 2.
    let cos_axis = 2.0 / 5f64.sqrt();
    let cone = (1.0 + f64::from(radius_deg).to_radians().cos()) / 2.0;
    let expected = f64::from(ALBEDO) / std::f64::consts::PI * f64::from(irradiance) * cos_axis * cone;
    assert_close("sun", estimate(&s, (1, 1), 1024, 4, true, 16), expected);
    // Without NEE the plane's bounces find the disc in the sky (docs/path-tracing.md,
    // "Next-event estimation": a sun is in the sky of rays NEE could not have drawn).
    assert_close("sun, BSDF sampling only", estimate(&s, (1, 1), 4096, 4, false, 16), expected);
}

/// Looking straight at a sun shows its disc at its radiance, irradiance over solid
/// angle; beside the disc, the (black) sky.
#[test]
fn the_camera_sees_a_suns_disc_at_its_radiance() {
    let (irradiance, radius_deg) = (3.0f32, 5.0f32);
    let towards = Vec3::new(0.3, 1.0, -0.2).normalize();
    let eye = Vec3::new(0.0, 1.0, 0.0);
    let sun = Light::Directional {
        direction: -towards,
        color: Vec3::ONE,
        intensity: irradiance,
        angular_radius_deg: radius_deg,
    };
    let solid_angle = 2.0 * std::f64::consts::PI * (1.0 - f64::from(radius_deg).to_radians().cos());
    for nee in [true, false] {
        let mut s = plane_scene(eye, eye + towards, &[], &[]);
        s.lights = vec![sun];
        let (seen, _) = estimate(&s, (1, 1), 4, 1, nee, 2);
        let expected = f64::from(irradiance) / solid_angle;
        assert!((seen / expected - 1.0).abs() < 1e-5, "nee {nee}: {seen} against {expected}");
        // 10° off the disc's centre: outside it.
        let off = (towards + Vec3::new(0.2, 0.0, 0.0)).normalize();
        s.camera = plane_scene(eye, eye + off, &[], &[]).camera;
        assert_eq!(estimate(&s, (1, 1), 4, 1, nee, 2).0, 0.0, "nee {nee}");
    }
}

#[test]
fn plane_facing_an_emissive_sphere_gets_pi_l_r2_over_d2_with_and_without_nee() {
    let (center, radius, strength) = (Vec3::new(0.0, 3.0, 0.0), 1.0f32, 2.0f32);
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength, albedo: Vec3::ZERO };
    for (target, normal) in [on_plane(0.0, 0.0), on_plane(2.0, 0.0)] {
        let s = plane_scene(target + Vec3::new(0.0, 1.0, 4.0), target, &[lamp], &[(center, radius, 1)]);
        let (cos, d2) = lambert_under(target, normal, center);
        // E = π L (r/d)² cos θ; the plane reflects albedo / π of it.
        let expected = f64::from(ALBEDO * strength) * f64::from(radius * radius) / d2 * cos;
        assert_close("lamp, NEE + MIS", estimate(&s, (1, 1), 1024, 4, true, 16), expected);
        assert_close("lamp, BSDF only", estimate(&s, (1, 1), 4096, 4, false, 16), expected);
    }
}

/// The form factor from a point to a parallel rectangle `x` by `y` whose corner is at
/// height `h` straight above it (Howell's catalogue, C-11): the fraction of a Lambert
/// emitter's π L that reaches the point as irradiance.
fn corner_rectangle_form_factor(x: f64, y: f64, h: f64) -> f64 {
    let (a, b) = (x / h, y / h);
    let (ra, rb) = ((1.0 + a * a).sqrt(), (1.0 + b * b).sqrt());
    (a / ra * (b / ra).atan() + b / rb * (a / rb).atan()) / (2.0 * std::f64::consts::PI)
}

/// The plane under an emissive box (radiance `strength`, no albedo) whose bottom face,
/// `side` by `side`, is centred `height` above the origin.
fn under_a_box_lamp(target: Vec3, side: f32, height: f32, strength: f32) -> Scene {
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength, albedo: Vec3::ZERO };
    let mut s = plane_scene(target + Vec3::new(0.0, 1.0, 4.0), target, &[lamp], &[]);
    let half = 0.5 * side;
    s.boxes = vec![Cuboid {
        min: Vec3::new(-half, height, -half),
        max: Vec3::new(half, height + 0.5, half),
        material: 1,
    }];
    s
}

#[test]
fn plane_under_an_emissive_box_matches_the_rectangle_form_factor_with_and_without_nee() {
    let (side, height, strength) = (1.0f32, 2.0f32, 4.0f32);
    let (target, normal) = on_plane(0.0, 0.0);
    assert_eq!(normal, Vec3::Y, "straight under the box only its bottom face is seen");
    let s = under_a_box_lamp(target, side, height, strength);
    let quarter =
        corner_rectangle_form_factor(f64::from(side) / 2.0, f64::from(side) / 2.0, f64::from(height));
    // E = π L F; the plane reflects albedo / π of it.
    let expected = f64::from(ALBEDO * strength) * 4.0 * quarter;
    let nee = estimate(&s, (1, 1), 256, 4, true, 16);
    let bsdf = estimate(&s, (1, 1), 256, 4, false, 16);
    assert_close("box lamp, NEE + MIS", nee, expected);
    assert_close("box lamp, BSDF only", estimate(&s, (1, 1), 4096, 4, false, 16), expected);
    // The box is a light: sampling it beats waiting for a BSDF ray to hit it.
    assert!(
        nee.1 * 4.0 < bsdf.1,
        "NEE s.e. {} not well below BSDF-only s.e. {} at equal samples",
        nee.1,
        bsdf.1
    );
}

#[test]
fn beside_an_emissive_box_nee_agrees_with_bsdf_sampling_where_two_faces_are_seen() {
    // x = 1.5 is past the box's +x face: the point sees it and the bottom face.
    let (target, _) = on_plane(1.5, 0.3);
    let s = under_a_box_lamp(target, 1.0, 1.0, 4.0);
    let (nee, nee_se) = estimate(&s, (1, 1), 512, 4, true, 16);
    let (bsdf, bsdf_se) = estimate(&s, (1, 1), 8192, 4, false, 16);
    let tolerance = 5.0 * (nee_se * nee_se + bsdf_se * bsdf_se).sqrt();
    assert!(bsdf > 0.0, "the box lights the plane");
    assert!((nee - bsdf).abs() <= tolerance, "NEE {nee} ± {nee_se}, BSDF only {bsdf} ± {bsdf_se}");
}

/// A camera at the centre of a closed sphere of radius `radius` centred at `center`.
fn inside_sphere(
    center: Vec3,
    radius: f32,
    wall: MaterialKind,
    extra: &[(Vec3, f32, u32)],
    materials: &[MaterialKind],
) -> Scene {
    let mut spheres = vec![(center, radius, 0)];
    spheres.extend_from_slice(extra);
    let mut all = vec![wall];
    all.extend_from_slice(materials);
    let camera = pinhole(center, center + Vec3::new(0.3, -0.2, -1.0) * radius, 70.0);
    scene(camera, Sky::Constant(Vec3::ZERO), &all, &spheres)
}

const FURNACES: [(Vec3, f32); 5] = [
    (Vec3::ZERO, 1.0),
    (Vec3::ZERO, 1e3),
    (Vec3::ZERO, 1e5),
    (Vec3::ZERO, 1e6),
    (Vec3::new(1e4, 0.0, 0.0), 1.0),
];

#[test]
fn emissive_furnace_sees_le_over_one_minus_albedo_at_every_scale() {
    let (albedo, le) = (0.5f32, 1.0f32);
    let wall = MaterialKind::Emissive { color: Vec3::ONE, strength: le, albedo: Vec3::splat(albedo) };
    // Depth 48: the missing tail a^48 / (1 - a) is below 1e-14.
    let expected = f64::from(le / (1.0 - albedo));
    for (center, radius) in FURNACES {
        let s = inside_sphere(center, radius, wall, &[], &[]);
        for nee in [true, false] {
            let what = format!("furnace r = {radius} at {center}, nee {nee}");
            assert_close(&what, estimate(&s, (4, 4), 64, 48, nee, 8), expected);
        }
    }
}

#[test]
fn closed_sphere_with_the_lamp_outside_is_exactly_black_at_every_scale() {
    let wall = MaterialKind::Lambert { albedo: Vec3::splat(0.75) };
    let lamp = MaterialKind::Emissive { color: Vec3::ONE, strength: 10.0, albedo: Vec3::ZERO };
    for (center, radius) in FURNACES {
        let lamp_sphere = (center + Vec3::new(0.0, 3.0 * radius, 0.0), radius / 2.0, 1);
        let s = inside_sphere(center, radius, wall, &[lamp_sphere], &[lamp]);
        for (nee, lit) in lit_pixels_with_and_without_nee(&s) {
            assert_eq!(
                lit, 0,
                "r = {radius} at {center}, nee {nee}: {lit} pixels see light through the wall"
            );
        }
    }
}
