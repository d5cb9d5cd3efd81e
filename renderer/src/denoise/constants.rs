//! The filter's numbers, defined once: the CPU filter ([`super::filter`]) uses them from
//! here and the kernels get them as `kernels/denoise_params.cuh`, generated from this
//! file (`cargo run -p tools --bin layout-header`; a test fails when the checked-in
//! header is stale). docs/path-tracing.md, "The denoiser", says where each comes from.

use std::fmt::Write;

use scene_compiler::blob::generated_banner;

/// À-trous passes: steps 1, 2, 4, 8, a 31 x 31 pixel footprint. SVGF's five (61 x 61)
/// blurred the 4-spp test scenes more than they removed noise: relative MSE on
/// `meshes.ron` at 160x90 0.0125 with five, 0.0104 with four, 0.0107 with three.
pub const ATROUS_PASSES: u32 = 4;
/// The B3-spline taps of each pass, `[1, 4, 6, 4, 1] / 16` (Dammertz et al. 2010).
pub const ATROUS_TAPS: [f32; 3] = [0.375, 0.25, 0.0625];
/// The normal weight is `max(0, n_p · n_q)^(2^NORMAL_POWER_LOG2)`: SVGF's sigma_n = 128,
/// computed by squaring so that both sides round the same.
pub const NORMAL_POWER_LOG2: u32 = 7;
/// sigma_z of the depth weight `exp(-|z_p - z_q| / (sigma_z |grad z| |p - q| + eps))`.
pub const SIGMA_DEPTH: f32 = 1.0;
/// The depth weight's epsilon, relative to the pixel's own depth.
pub const DEPTH_EPSILON: f32 = 1e-3;
/// sigma_l of the luminance weight `exp(-|l_p - l_q| / (sigma_l sqrt(var) + eps))`.
pub const SIGMA_LUMINANCE: f32 = 4.0;
/// The luminance weight's epsilon: a noise-free pixel (variance 0) keeps its edges.
pub const LUMINANCE_EPSILON: f32 = 1e-10;
/// Albedo below this is taken as this when irradiance is demodulated (and the same
/// value multiplies it back, so the pair is exact).
pub const ALBEDO_EPSILON: f32 = 1e-3;
/// A pixel's irradiance luminance is clamped to its brightest neighbour's times this
/// before the passes (relative MSE on `meshes.ron` at 160x90, four passes: 0.0128
/// without the clamp, 0.0104 with it).
pub const FIREFLY_CLAMP: f32 = 1.0;
/// Below this many samples per pixel a pixel's own variance is not trusted: the
/// variance comes from the moments of its 3 x 3 neighbourhood instead (SVGF's
/// spatial estimate for short histories).
pub const POOL_VARIANCE_BELOW: u32 = 4;
/// Rec. 709 luminance weights.
pub const LUMINANCE: [f32; 3] = [0.2126, 0.7152, 0.0722];
/// The depth AOV of a sample whose camera ray hit nothing (Blender's Z-pass background).
pub const MISS_DEPTH: f32 = 1e10;

/// The full text of `kernels/denoise_params.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("renderer/src/denoise/constants.rs");
    let _ = writeln!(out, "static constexpr unsigned int ATROUS_PASSES = {ATROUS_PASSES}u;");
    let [t0, t1, t2] = ATROUS_TAPS;
    // `{:e}` prints the shortest decimal that reads back as the same f32.
    let _ = writeln!(out, "static constexpr float ATROUS_TAPS[3] = {{{t0:e}f, {t1:e}f, {t2:e}f}};");
    let _ = writeln!(out, "static constexpr unsigned int NORMAL_POWER_LOG2 = {NORMAL_POWER_LOG2}u;");
    let mut float = |name: &str, value: f32| {
        let _ = writeln!(out, "static constexpr float {name} = {value:e}f;");
    };
    float("SIGMA_DEPTH", SIGMA_DEPTH);
    float("DEPTH_EPSILON", DEPTH_EPSILON);
    float("SIGMA_LUMINANCE", SIGMA_LUMINANCE);
    float("LUMINANCE_EPSILON", LUMINANCE_EPSILON);
    float("ALBEDO_EPSILON", ALBEDO_EPSILON);
    float("FIREFLY_CLAMP", FIREFLY_CLAMP);
    float("MISS_DEPTH", MISS_DEPTH);
    let [r, g, b] = LUMINANCE;
    let _ = writeln!(out, "static constexpr float LUMINANCE_R = {r:e}f;");
    let _ = writeln!(out, "static constexpr float LUMINANCE_G = {g:e}f;");
    let _ = writeln!(out, "static constexpr float LUMINANCE_B = {b:e}f;");
    let _ = writeln!(out, "static constexpr unsigned int POOL_VARIANCE_BELOW = {POOL_VARIANCE_BELOW}u;");
    out
}
