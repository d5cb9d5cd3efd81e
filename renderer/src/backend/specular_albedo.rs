//! How much light the Principled material's dielectric specular layer reflects, seen
//! from one direction: what the diffuse base under it is weighted by (one minus it).
//!
//! glTF's Appendix B weights the base by 1 − F(wo·h) at each pair of directions; Cycles'
//! Principled BSDF (and OpenPBR's "albedo scaling") weights it by 1 − E(wo), the
//! specular layer's directional albedo. The two differ most on a glossy dielectric seen
//! at a grazing angle, where E is large and F at the half vector of a diffuse bounce is
//! not: a plastic ground of roughness 0.3 rendered 4 to 18 % brighter than Cycles' (the
//! held-out Blender scene; docs/path-tracing.md). We take Cycles' rule, the one Blender
//! users' scenes were made under.
//!
//! E is the lobe's Fresnel averaged over its reflected directions, ⟨F⟩ / ⟨1⟩ with ⟨·⟩ the
//! integral against the single-scattering GGX lobe, as Cycles estimates it for its
//! GGX distribution (the lobe's own energy loss is not in it). It is tabulated as
//! Cycles tabulates it: `s = (E − F0) / (1 − F0)`, which varies smoothly, on 16 × 16 × 16
//! points of (roughness, cos θo, z = √(|η − 1| / (η + 1))), read trilinearly and turned
//! back into E with the exact F0 of η. The table is computed here by quadrature (f64,
//! the visible-normal distribution's midpoint rule) and handed to the kernels as the
//! generated `kernels/specular_albedo.cuh`; [`specular_albedo`] is the CPU's lookup and
//! `principled_specular_albedo` in kernels/principled.cuh its twin.

use std::f64::consts::TAU;
use std::fmt::Write;
use std::sync::LazyLock;

use scene_compiler::blob::generated_banner;

/// Points per axis: roughness (fastest), cos θo, z.
pub const SPECULAR_ALBEDO_POINTS: usize = 16;

/// Stratified (u1, u2) cells per axis of the quadrature behind each entry. 32² cells
/// agree with 128² to 2e-3 (a test says so): 0.2 % of the diffuse base's weight at most.
const QUADRATURE_CELLS: usize = 32;

/// s(roughness, cos θo, z), roughness fastest: what `kernels/specular_albedo.cuh` holds.
pub fn table() -> &'static [f32] {
    static TABLE: LazyLock<Vec<f32>> = LazyLock::new(|| compute(QUADRATURE_CELLS));
    &TABLE
}

/// The specular layer's directional albedo E at `cos_o` (wo's cosine to the shading
/// normal) for `roughness` and `eta` (wi's index over wo's, either way round: the
/// table, like Cycles', is read at |η − 1| / (η + 1)).
pub fn specular_albedo(roughness: f32, cos_o: f32, eta: f32) -> f32 {
    let r = (eta - 1.0) / (eta + 1.0);
    let f0 = r * r;
    let z = r.abs().sqrt();
    f0 + (1.0 - f0) * lookup(table(), roughness, cos_o, z)
}

/// Trilinear interpolation of the table, each coordinate clamped to [0, 1] (the
/// kernels' `principled_layer_s`, operation for operation).
fn lookup(table: &[f32], x: f32, y: f32, z: f32) -> f32 {
    let last = (SPECULAR_ALBEDO_POINTS - 1) as f32;
    let split = |t: f32| {
        let p = t.clamp(0.0, 1.0) * last;
        let i = (p as usize).min(SPECULAR_ALBEDO_POINTS - 2);
        (i, p - i as f32)
    };
    let ((ix, fx), (iy, fy), (iz, fz)) = (split(x), split(y), split(z));
    let at =
        |i: usize, j: usize, k: usize| table[(k * SPECULAR_ALBEDO_POINTS + j) * SPECULAR_ALBEDO_POINTS + i];
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let plane = |k: usize| {
        let lo = lerp(at(ix, iy, k), at(ix + 1, iy, k), fx);
        let hi = lerp(at(ix, iy + 1, k), at(ix + 1, iy + 1, k), fx);
        lerp(lo, hi, fy)
    };
    lerp(plane(iz), plane(iz + 1), fz)
}

/// The table by quadrature with `cells`² samples of the visible normals per entry.
fn compute(cells: usize) -> Vec<f32> {
    let n = SPECULAR_ALBEDO_POINTS;
    let last = (n - 1) as f64;
    let mut out = Vec::with_capacity(n * n * n);
    for k in 0..n {
        // z = 0 is η = 1, where F and F0 vanish together: s is their ratio's limit.
        let z = (k as f64 / last).clamp(1e-2, 1.0 - 1e-4);
        let eta = (1.0 + z * z) / (1.0 - z * z);
        for j in 0..n {
            let cos_o = (j as f64 / last).max(1e-4);
            for i in 0..n {
                out.push(layer_s(i as f64 / last, cos_o, eta, cells) as f32);
            }
        }
    }
    out
}

/// (⟨F⟩ / ⟨1⟩ − F0) / (1 − F0) for one view direction.
fn layer_s(roughness: f64, cos_o: f64, eta: f64, cells: usize) -> f64 {
    let f0 = ((eta - 1.0) / (eta + 1.0)).powi(2);
    let alpha = roughness * roughness;
    let mean_fresnel = if alpha < 1e-6 {
        // A mirror: its one direction's Fresnel.
        fresnel(cos_o, eta)
    } else {
        let wo = [(1.0 - cos_o * cos_o).sqrt(), 0.0, cos_o];
        let alpha2 = alpha * alpha;
        let lambda = |c: f64| 0.5 * ((1.0 + alpha2 * (1.0 - c * c) / (c * c)).sqrt() - 1.0);
        let lambda_o = lambda(cos_o);
        let (mut weighted, mut total) = (0.0, 0.0);
        for a in 0..cells {
            for b in 0..cells {
                let u1 = (a as f64 + 0.5) / cells as f64;
                let u2 = (b as f64 + 0.5) / cells as f64;
                let h = visible_normal(wo, alpha, u1, u2);
                let cos_h = wo[0] * h[0] + wo[2] * h[2];
                let wi_z = 2.0 * cos_h * h[2] - wo[2];
                if cos_h <= 0.0 || wi_z <= 0.0 {
                    continue;
                }
                // f cos / pdf of a visible-normal sample: F G2 / G1(wo).
                let g = (1.0 + lambda_o) / (1.0 + lambda_o + lambda(wi_z));
                weighted += fresnel(cos_h, eta) * g;
                total += g;
            }
        }
        if total > 0.0 { weighted / total } else { fresnel(cos_o, eta) }
    };
    ((mean_fresnel - f0) / (1.0 - f0)).clamp(0.0, 1.0)
}

/// Dupuy & Benyoub 2023's visible-normal sample (the CPU BSDF's, in f64).
fn visible_normal(wo: [f64; 3], alpha: f64, u1: f64, u2: f64) -> [f64; 3] {
    let v = normalize([alpha * wo[0], alpha * wo[1], wo[2]]);
    let (sin_phi, cos_phi) = (TAU * u1).sin_cos();
    let z = (1.0 - u2) * (1.0 + v[2]) - v[2];
    let sin_theta = (1.0 - z * z).max(0.0).sqrt();
    let c = [sin_theta * cos_phi + v[0], sin_theta * sin_phi + v[1], z + v[2]];
    normalize([alpha * c[0], alpha * c[1], c[2]])
}

fn normalize(v: [f64; 3]) -> [f64; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    [v[0] / len, v[1] / len, v[2] / len]
}

/// Unpolarised dielectric Fresnel reflectance; 1 under total internal reflection.
fn fresnel(cos_i: f64, eta: f64) -> f64 {
    let sin2_t = (1.0 - cos_i * cos_i).max(0.0) / (eta * eta);
    if sin2_t >= 1.0 {
        return 1.0;
    }
    let cos_t = (1.0 - sin2_t).sqrt();
    let rs = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    let rp = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    0.5 * (rs * rs + rp * rp)
}

/// The full text of `kernels/specular_albedo.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("renderer/src/backend/specular_albedo.rs");
    let n = SPECULAR_ALBEDO_POINTS;
    let _ = writeln!(out, "static constexpr int SPECULAR_ALBEDO_POINTS = {n};");
    out.push_str("// s(roughness, cos_o, z), roughness fastest; E = F0 + (1 - F0) s.\n");
    let _ = writeln!(out, "__device__ const float SPECULAR_ALBEDO_S[{}] = {{", n * n * n);
    for row in table().chunks(n) {
        // `{:e}` prints the shortest decimal that reads back as the same f32.
        let line: Vec<String> = row.iter().map(|v| format!("{v:e}f")).collect();
        let _ = writeln!(out, "    {},", line.join(", "));
    }
    out.push_str("};\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_reflects_its_fresnel() {
        for eta in [1.33f32, 1.5, 2.0] {
            for cos_o in [1.0f32, 0.8, 0.5, 0.2] {
                let exact = fresnel(cos_o as f64, eta as f64) as f32;
                let got = specular_albedo(0.0, cos_o, eta);
                // Linear in cos θo between the 16 points, with the exact F0.
                assert!((got - exact).abs() < 4e-3, "η {eta}, cos {cos_o}: {got} against {exact}");
            }
        }
    }

    #[test]
    fn the_quadrature_has_converged() {
        for &(r, c, eta) in &[(0.3, 0.2, 1.5), (0.6, 0.5, 1.5), (1.0, 0.05, 2.0), (0.1, 0.9, 1.2)] {
            let coarse = layer_s(r, c, eta, QUADRATURE_CELLS);
            let fine = layer_s(r, c, eta, 128);
            assert!((coarse - fine).abs() < 2e-3, "{r} {c} {eta}: {coarse} against {fine}");
        }
    }

    #[test]
    fn albedo_grows_towards_grazing_and_with_the_index() {
        for roughness in [0.0f32, 0.3, 0.7] {
            let mut previous = 0.0;
            for k in (0..=20).rev() {
                let cos_o = k as f32 / 20.0;
                let e = specular_albedo(roughness, cos_o, 1.5);
                assert!(e + 1e-4 >= previous, "roughness {roughness}, cos {cos_o}: {e} < {previous}");
                assert!((0.0..=1.0).contains(&e));
                previous = e;
            }
            assert!(specular_albedo(roughness, 0.7, 1.3) < specular_albedo(roughness, 0.7, 1.8));
        }
        // Normal incidence on ior 1.5 is F0 = 0.04 whatever the roughness, near enough.
        assert!((specular_albedo(0.5, 1.0, 1.5) - 0.04).abs() < 0.01);
        // Inside (η < 1) reads the same entry as outside.
        assert!((specular_albedo(0.4, 0.6, 1.5) - specular_albedo(0.4, 0.6, 1.0 / 1.5)).abs() < 1e-6);
    }
}
