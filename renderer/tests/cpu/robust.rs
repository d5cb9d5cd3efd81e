//! Robust ray origins (docs/path-tracing.md, "Robust hits"): a ray leaving a sphere
//! from `offset_ray_origin` never meets that sphere again on its way out, and on its
//! way in meets it only at the far side, for radii from 10^-2 to 10^6, centres up to
//! 10^5 from the origin (and 1000 radii), and directions down to grazing.

use glam::{Vec3A, Vec4};
use renderer::backend::cpu::rng::Rng;
use renderer::backend::cpu::sampling::onb;
use renderer::backend::cpu::shapes::offset_ray_origin;
use renderer::backend::cpu::shapes::sphere::{intersect_sphere, sphere_surface};

/// A unit vector making an angle with `n` whose cosine is `cos` (sign included).
fn at_angle(n: Vec3A, cos: f32, phi: f32) -> Vec3A {
    let (t, b) = onb(n);
    let sin = (1.0 - cos * cos).max(0.0).sqrt();
    (t * (sin * phi.cos()) + b * (sin * phi.sin()) + n * cos).normalize()
}

#[test]
fn offset_origins_never_rehit_their_sphere_on_the_wrong_side() {
    let mut rng = Rng::new(0, 0, 2026);
    let mut u = || rng.next_f32();
    let (mut outward, mut inward) = (0, 0);
    for trial in 0..200_000u32 {
        let radius = 10f32.powf(-2.0 + 8.0 * u());
        // Up to 10^5 from the origin, but no farther than 1000 radii: beyond that a
        // sphere is within a few ulps of its own position and is not a shape f32 can hold.
        let reach = 10f32.powf(5.0 * u()).min(1e3 * radius);
        let center = Vec3A::new(u() - 0.5, u() - 0.5, u() - 0.5) * 2.0 * reach;
        let sphere = Vec4::new(center.x, center.y, center.z, radius);
        // A ray from outside at a random point on the sphere (the hit an earlier bounce found).
        let normal = Vec3A::new(u() - 0.5, u() - 0.5, u() - 0.5).normalize();
        let from = center + normal * (radius * (1.5 + 4.0 * u()));
        let dir = (center + normal * radius * 0.999 - from).normalize();
        let Some(t) = intersect_sphere(sphere, from, dir, f32::INFINITY) else { continue };
        let surface = sphere_surface(sphere, from, dir, t);
        // Cosines down to 1e-6 against the normal: grazing directions are the hard ones.
        let cos = 10f32.powf(-6.0 * u());
        let phi = std::f32::consts::TAU * u();
        let out = at_angle(surface.normal, cos, phi);
        let origin = offset_ray_origin(&surface, out);
        assert_eq!(
            intersect_sphere(sphere, origin, out, f32::INFINITY),
            None,
            "trial {trial}: r = {radius}, centre {center}, cos {cos}: the outgoing ray hit its own sphere"
        );
        outward += 1;
        let into = at_angle(surface.normal, -cos, phi);
        let origin = offset_ray_origin(&surface, into);
        let t = intersect_sphere(sphere, origin, into, f32::INFINITY).unwrap_or_else(|| {
            panic!("trial {trial}: r = {radius}, cos {cos}: the inward ray left the sphere")
        });
        // The far side, not the surface it starts on: the exact far root from this
        // origin (in f64) up to f32 rounding, never a root near 0.
        let far = far_root(sphere, origin, into);
        assert!(
            f64::from(t) > 0.5 * far && f64::from(t) < 1.5 * far,
            "trial {trial}: r = {radius}, centre {center}, cos {cos}: inward t {t}, far side at {far}"
        );
        inward += 1;
    }
    assert!(outward > 150_000 && inward == outward, "{outward} outward, {inward} inward rays tested");
}

/// The far intersection of the ray with the sphere, in f64.
fn far_root(sphere: Vec4, origin: Vec3A, dir: Vec3A) -> f64 {
    let c = sphere.truncate().as_dvec3();
    let (o, d) = (glam::Vec3::from(origin).as_dvec3(), glam::Vec3::from(dir).as_dvec3().normalize());
    let oc = c - o;
    let b = oc.dot(d);
    let l = oc - b * d;
    let r = f64::from(sphere.w);
    b + (r * r - l.dot(l)).max(0.0).sqrt()
}
