//! Numbers both backends must agree on, defined once: the CPU backend uses them from
//! here, the kernels get them as `kernels/constants.cuh`, generated from this file
//! (`cargo run -p tools --bin layout-header`; a test fails when the checked-in header
//! is stale). They are `constexpr` there, not macros, so a `RENDERER_KERNEL_DEFINES`
//! override of one of them fails to compile instead of changing the GPU's images and
//! not the CPU's.

use std::fmt::Write;

use scene_compiler::blob::generated_banner;

/// LCG multiplier of the PCG state step (docs/path-tracing.md, "Random numbers: PCG").
pub const PCG_MULTIPLIER: u32 = 747_796_405;
/// LCG increment of the PCG state step.
pub const PCG_INCREMENT: u32 = 2_891_336_453;
/// Multiplier of the RXS-M-XS output permutation.
pub const PCG_OUTPUT_MULTIPLIER: u32 = 277_803_737;
/// RXS-M-XS's random shift: the state's top 4 bits (bits 28 to 31) pick how far it
/// shifts (docs/path-tracing.md, "Random numbers: PCG"; O'Neill's 32-bit PCG).
pub const PCG_RXS_SELECT_SHIFT: u32 = 28;
/// The smallest of those shifts: the selector's width, so the xorshift leaves the top 4
/// bits as they were and the permutation stays invertible.
pub const PCG_RXS_MIN_SHIFT: u32 = 4;
/// The final xorshift of RXS-M-XS-32: `(2 · 32 + 2) / 3` bits, O'Neill's choice.
pub const PCG_XS_SHIFT: u32 = 22;
/// A random u32 becomes a float in [0, 1) from its top 24 bits (`>> 8`, times
/// [`UNIT_FLOAT_SCALE`]): f32's 24-bit significand holds every such value exactly.
pub const UNIT_FLOAT_SHIFT: u32 = 32 - f32::MANTISSA_DIGITS;
/// 2^-24, the spacing of those floats (docs/path-tracing.md, "Random numbers: PCG").
pub const UNIT_FLOAT_SCALE: f32 = 1.0 / (1u32 << f32::MANTISSA_DIGITS) as f32;
/// Russian roulette starts once a path has this many segments (`depth + 1`): after the
/// first bounce, as in the reference CUDA port (docs/path-tracing.md says why).
pub const RR_START_DEPTH: u32 = 1;
/// A Lambert direction `n + u` with a squared length below this is taken as `n`: a
/// sample exactly opposite the normal would give a zero direction.
pub const DEGENERATE_DIR2: f32 = 1e-12;

// Hit points and their error bounds (docs/path-tracing.md, "Robust hits"; `cpu/shapes/`
// ↔ `kernels/shape_*.cuh`): both backends offset the next ray by the same bound, so they
// escape a surface alike.

/// pbrt-v4's `gamma(n)`: the relative error bound of `n` rounded operations.
pub const fn gamma(n: u32) -> f32 {
    let e = n as f32 * f32::EPSILON * 0.5;
    e / (1.0 - e)
}
/// The relative error bound of a re-projected sphere point, per component of
/// `|center| + |local|` (docs/path-tracing.md "Robust hits" says why it is this big).
pub const SPHERE_ERR: f32 = 8.0 * f32::EPSILON;
/// The relative error bound of a box hit's two in-face coordinates, per component of
/// `|origin| + |t · dir|` (the face coordinate is exact: it is set to the plane).
pub const BOX_ERR: f32 = 4.0 * f32::EPSILON;
/// `gamma(7)`: the relative error bound of a point interpolated from three vertices
/// with barycentrics.
pub const TRIANGLE_ERR: f32 = gamma(7);
/// The watertight triangle test's bounds on the rounding of its sheared coordinates
/// and edge functions (pbrt-v4's `gamma(2)`, `gamma(3)`, `gamma(5)`), which decide
/// whether a hit is too close to the origin to trust.
pub const TRIANGLE_GAMMAS: [(u32, f32); 3] = [(2, gamma(2)), (3, gamma(3)), (5, gamma(5))];

// Shading normals (docs/path-tracing.md, "Normal maps"; `cpu/shading.rs` ↔
// `kernels/shading.cuh`, `cpu/shapes/triangle.rs` ↔ `kernels/shape_triangle.cuh`,
// `cpu/principled.rs` ↔ `kernels/principled.cuh`).

/// A normal map's tangent, mapped normal or bend plane with a squared length not above
/// this is degenerate (the step is skipped): far above f32's denormals, so what passes
/// normalizes to a finite unit vector.
pub const SHADING_MIN_LEN2: f32 = 1e-20;
/// A triangle's texture coordinates with `|det| < 10^-20` give no `dpdu`/`dpdv` (the
/// edges are used instead): `1 / det` would overflow or amplify rounding.
pub const UV_MIN_DET: f32 = 1e-20;
/// The bend keeps the mirror of `wo` above the surface by at most this share of wo's own
/// cosine to `ng` (Cycles' `ensure_valid_specular_reflection`): a grazing view is still
/// reachable.
pub const BEND_VIEW_SHARE: f32 = 0.9;
/// The bend's margin is also at most this cosine (Cycles' rule): just clear of the
/// surface, so the normal bends as little as that allows.
pub const BEND_MAX_MARGIN: f32 = 0.01;
/// The bump map correction gives 0 to light at a cosine to the smooth normal below this
/// (docs/path-tracing.md, "Principled"): its `G1` is 0 there, and `ggx_lambda` would divide by ~0.
pub const BUMP_SHADOWING_MIN_COS: f32 = 1e-6;
/// The bump map correction's `α² = min(tan²(n_s, n_d) · 1/8, 1)`: Conty Estevez, Lecocq and
/// Stein's (2019) fit of a roughness to the map's tilt.
pub const BUMP_SHADOWING_ALPHA2_PER_TAN2: f32 = 0.125;

/// A ray direction component smaller than this (zero included) is this, with its sign,
/// in the slab test: `0 · ∞` would make a NaN plane distance for an origin on a box's
/// plane (`cpu/traverse.rs` and `kernels/traverse.cuh` say what that cost). 10^-20
/// leaves the ray parallel over any distance a scene has, and its inverse finite times
/// any coordinate.
pub const SLAB_MIN_DIR: f32 = 1e-20;

/// The largest f32 below 1: a sampled cell's fraction never reaches the next cell
/// (the environment's alias tables, docs/path-tracing.md "Environment").
pub const ONE_MINUS_EPSILON: f32 = 1.0 - f32::EPSILON / 2.0;

/// Octaves of the noise texture's turbulence ("The Next Week": 7; docs/path-tracing.md,
/// "Textures").
pub const TURBULENCE_DEPTH: u32 = 7;

/// The weight of the turbulence in the marble texture's phase,
/// `sin(scale p.z + 10 turb(p))` ("The Next Week"; docs/path-tracing.md, "Textures").
pub const MARBLE_TURBULENCE_WEIGHT: f32 = 10.0;

/// Below this roughness (alpha = 9e-4) a Principled material's specular lobes are
/// deltas: sampled exactly (mirror, Snell), with pdf 0 and no `eval`. A GGX lobe that
/// narrow (about 0.1°) renders as a mirror, and sampling it as one spares glass of
/// roughness 0, the common case, both the 1/alpha² peak of D and the noise of a lobe
/// NEE can hardly ever hit.
pub const PRINCIPLED_DELTA_ROUGHNESS: f32 = 0.03;

// The view transforms (`backend/tonemap.rs` ↔ `kernels/view_transform.cuh`;
// docs/path-tracing.md, "Accumulation and output").

/// A display value in [0, 1] to 8 bits is `u8(255.99 v)`: just under 256, so 1.0 is 255
/// and each code gets an equal share of [0, 1] (docs/path-tracing.md, "Accumulation and output").
pub const QUANTIZE_SCALE: f32 = 255.99;
/// The sRGB encoding (IEC 61966-2-1): linear `12.92 c` up to `c = 0.0031308`, then
/// `1.055 c^(1/2.4) − 0.055`; the standard's numbers.
pub const SRGB_LINEAR_MAX: f32 = 0.003_130_8;
pub const SRGB_LINEAR_SLOPE: f32 = 12.92;
pub const SRGB_SCALE: f32 = 1.055;
pub const SRGB_OFFSET: f32 = 0.055;
pub const SRGB_EXPONENT: f32 = 2.4;
/// AgX takes `log2(max(c, 10^-10))`: finite for zero, negative and NaN values, and below
/// `2^AGX_MIN_EV`, so they all encode as the bottom of the range.
pub const AGX_LOG_FLOOR: f32 = 1e-10;
/// AgX's inset matrix, row by row (`out[i] = Σ_j AGX_INSET[i][j] · in[j]`): Blender's AgX
/// base for sRGB/Rec.709 primaries, as published in Benjamin Wrensch's minimal AgX
/// (iolite, 2023, <https://iolite-engine.com/blog_posts/minimal_agx_implementation>),
/// whose GLSL `mat3` lists the same numbers column by column.
pub const AGX_INSET: [[f32; 3]; 3] = [
    [0.842_479_06, 0.078_433_6, 0.079_223_745],
    [0.042_328_242, 0.878_468_64, 0.079_166_13],
    [0.042_375_654, 0.078_433_6, 0.879_143],
];
/// AgX's outset matrix (the inset's inverse in Wrensch's `agxEotf`), row by row.
pub const AGX_OUTSET: [[f32; 3]; 3] = [
    [1.196_879, -0.098_020_88, -0.099_029_74],
    [-0.052_896_85, 1.151_903_1, -0.098_961_18],
    [-0.052_971_635, -0.098_043_45, 1.151_073_7],
];
/// The log2 range AgX encodes, in stops around 0.18 mid grey: `[AGX_MIN_EV, AGX_MAX_EV]`
/// maps to [0, 1].
pub const AGX_MIN_EV: f32 = -12.473_93;
pub const AGX_MAX_EV: f32 = 4.026_069;
/// Wrensch's 6th-order polynomial fit of AgX's default contrast sigmoid, lowest power
/// first: `Σ_k AGX_SIGMOID[k] · x^k` on the encoded `x` in [0, 1].
pub const AGX_SIGMOID: [f32; 7] = [-0.002_32, 0.119_1, 0.429_8, -6.868, 31.96, -40.14, 15.5];
/// The exponent AgX's output is raised to before the sRGB encoding: Wrensch's "sRGB IEC
/// 61966-2-1 2.2 exponent reference EOTF display".
pub const AGX_DISPLAY_GAMMA: f32 = 2.2;
/// John Hable's filmic curve ("Uncharted 2: HDR Lighting", GDC 2010):
/// `f(x) = (x(Ax + CB) + DE) / (x(Ax + B) + DF) − E/F`, shoulder strength A, linear
/// strength B, linear angle C, toe strength D, toe numerator E, toe denominator F.
pub const HABLE_A: f32 = 0.15;
pub const HABLE_B: f32 = 0.50;
pub const HABLE_C: f32 = 0.10;
pub const HABLE_D: f32 = 0.20;
pub const HABLE_E: f32 = 0.02;
pub const HABLE_F: f32 = 0.30;
/// The linear white point: `f(x · bias) / f(W)` is 1 at `x = W / bias`.
pub const HABLE_WHITE: f32 = 11.2;
/// Hable's exposure bias: the exposed value is multiplied by this before the curve.
pub const HABLE_EXPOSURE_BIAS: f32 = 2.0;
/// Sampler dimensions (docs/path-tracing.md, "Sobol sampler"): every random number of a
/// sample has a fixed dimension, so that the Sobol sampler gives the samples of one pixel
/// the same dimension for the same purpose, whatever an earlier branch drew. The camera
/// takes the first [`CAMERA_DIMS`], pixel jitter first (the pair that matters most, on
/// the best stratified pair of Sobol dimensions), then the lens.
pub const CAMERA_DIMS: u32 = 4;
/// The camera's jitter across the pixel, x then y.
pub const DIM_PIXEL_X: u32 = 0;
pub const DIM_PIXEL_Y: u32 = 1;
/// The lens sample (`l1`, `l2`).
pub const DIM_LENS_1: u32 = 2;
pub const DIM_LENS_2: u32 = 3;
/// Bounce `depth` draws from the block of dimensions starting at
/// `CAMERA_DIMS + depth * DIMS_PER_BOUNCE` ([`bounce_dim`]): two padded groups of four,
/// the scatter's then next-event estimation's and Russian roulette's, each with its 2D
/// sample on the group's first two dimensions (the Sobol pair stratified in 2D).
pub const DIMS_PER_BOUNCE: u32 = 8;
/// The scatter's direction sample (`r1`, `r2`).
pub const DIM_SCATTER_R1: u32 = 0;
pub const DIM_SCATTER_R2: u32 = 1;
/// The Principled lobe pick (`r_lobe`).
pub const DIM_SCATTER_LOBE: u32 = 2;
/// The dielectric's reflect-or-refract choice (`r_fresnel`).
pub const DIM_SCATTER_FRESNEL: u32 = 3;
/// Next-event estimation's 2D sample of the light (`u1`, `u2`).
pub const DIM_NEE_U1: u32 = 4;
pub const DIM_NEE_U2: u32 = 5;
/// Next-event estimation's light pick (`u_pick`).
pub const DIM_NEE_PICK: u32 = 6;
/// Russian roulette (`r_rr`).
pub const DIM_ROULETTE: u32 = 7;

/// The dimension of the number at `offset` (a `DIM_SCATTER_*`, `DIM_NEE_*` or
/// [`DIM_ROULETTE`]) of bounce `depth`.
#[inline(always)]
pub const fn bounce_dim(depth: u32, offset: u32) -> u32 {
    CAMERA_DIMS + depth * DIMS_PER_BOUNCE + offset
}

/// The AOVs' own camera rays (docs/path-tracing.md, "AOVs" and "The denoiser"): a
/// sample of a film with AOVs whose index is below [`AOV_RAY_SAMPLES`] takes its albedo,
/// normal and depth from the average of this many first-hit rays through the pixel
/// instead of its path's own first hits, so that a pixel a texture edge crosses gets its
/// albedo (which the denoiser multiplies back) from this many times more positions than
/// its radiance. 4: `textures.ron` at 240x135 and 4 spp (Sobol) denoised 9.6x below the
/// raw image with 4, 10.1x with 8, 10.3x with 16, 8.4x with 2 (5.5x without); each ray
/// costs most of what a path's segment does.
pub const AOV_RAYS: u32 = 4;
/// The samples of a pixel (by sample index) that trace [`AOV_RAYS`] rays for their AOVs;
/// the later ones record their path's own first hits. The rays are for the few-sample
/// films of the bar they were made for (issue 36: 4 spp) and the editor's first frames,
/// and cost a film at most `AOV_RAY_SAMPLES * AOV_RAYS` rays per pixel: on the CPU, the
/// same time spent on more samples denoised better at 4 spp and at 16 spp alike.
pub const AOV_RAY_SAMPLES: u32 = 4;
/// The AOV rays draw from a sampler of their own (so the beauty's numbers, and image,
/// are those of a film without AOVs): ray `k` of sample `i` is sample
/// `i * AOV_RAYS + k` of a sampler whose seed hash is `pcg_hash(pcg_hash(seed) ^ AOV_SEED)`,
/// with the dimensions of a camera sample (`DIM_*`, [`bounce_dim`]).
pub const AOV_SEED: u32 = 0x9e37_79b9;

/// The multipliers of Burley's Laine-Karras style hash (his paper's improved
/// constants), which the Sobol sampler's nested uniform scrambling permutes with.
pub const LAINE_KARRAS_MULTIPLIERS: [u32; 4] = [0x6c50_b47c, 0xb82f_1e52, 0xc7af_e638, 0x8d22_f6e6];

/// Sobol dimensions in one padded group: each group of four sampler dimensions is the
/// first four Sobol dimensions with its own shuffle of the sample index (Burley 2020).
pub const SOBOL_GROUP_DIMS: usize = 4;

/// The generator matrices of the first four Sobol dimensions as 32 direction numbers
/// each (bit 31 the most significant): dimension 0 is van der Corput's, 1 to 3 follow
/// from the primitive polynomials and initial numbers of Joe & Kuo's `new-joe-kuo-6.21201`
/// (lines `2 1 0 1`, `3 2 1 1 3`, `4 3 1 1 3 1`: degree s, coefficients a, m_1..m_s).
pub const SOBOL_DIRECTIONS: [[u32; 32]; SOBOL_GROUP_DIMS] = [
    sobol_directions(0, 0, &[]),
    sobol_directions(1, 0, &[1]),
    sobol_directions(2, 1, &[1, 3]),
    sobol_directions(3, 1, &[1, 3, 1]),
];

/// Direction numbers `v_k = m_k / 2^k` (as 32-bit fractions) of the Sobol dimension with
/// primitive polynomial of degree `s` and inner coefficients `a`, initial `m`; `s = 0`
/// is van der Corput (`v_k = 2^-k`). Bratley & Fox's recurrence (Joe & Kuo 2008, eq. 3):
/// `v_k = a_1 v_(k-1) ^ ... ^ a_(s-1) v_(k-s+1) ^ v_(k-s) ^ (v_(k-s) >> s)`.
const fn sobol_directions(s: usize, a: u32, m: &[u32]) -> [u32; 32] {
    let mut v = [0u32; 32];
    let mut k = 0;
    while k < 32 {
        v[k] = if s == 0 {
            1 << (31 - k)
        } else if k < s {
            m[k] << (31 - k)
        } else {
            let mut x = v[k - s] ^ (v[k - s] >> s);
            let mut i = 1;
            while i < s {
                if (a >> (s - 1 - i)) & 1 != 0 {
                    x ^= v[k - i];
                }
                i += 1;
            }
            x
        };
        k += 1;
    }
    v
}

/// The full text of `kernels/constants.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("renderer/src/backend/constants.rs");
    let mut uint = |name: &str, value: u32| {
        let _ = writeln!(out, "static constexpr unsigned int {name} = {value}u;");
    };
    uint("PCG_MULTIPLIER", PCG_MULTIPLIER);
    uint("PCG_INCREMENT", PCG_INCREMENT);
    uint("PCG_OUTPUT_MULTIPLIER", PCG_OUTPUT_MULTIPLIER);
    uint("PCG_RXS_SELECT_SHIFT", PCG_RXS_SELECT_SHIFT);
    uint("PCG_RXS_MIN_SHIFT", PCG_RXS_MIN_SHIFT);
    uint("PCG_XS_SHIFT", PCG_XS_SHIFT);
    uint("UNIT_FLOAT_SHIFT", UNIT_FLOAT_SHIFT);
    uint("RR_START_DEPTH", RR_START_DEPTH);
    uint("TURBULENCE_DEPTH", TURBULENCE_DEPTH);
    let mut float = |name: &str, value: f32| {
        // `{:e}` prints the shortest decimal that reads back as the same f32.
        let _ = writeln!(out, "static constexpr float {name} = {value:e}f;");
    };
    float("UNIT_FLOAT_SCALE", UNIT_FLOAT_SCALE);
    float("DEGENERATE_DIR2", DEGENERATE_DIR2);
    float("SPHERE_ERR", SPHERE_ERR);
    float("BOX_ERR", BOX_ERR);
    float("TRIANGLE_ERR", TRIANGLE_ERR);
    for (n, value) in TRIANGLE_GAMMAS {
        float(&format!("GAMMA_{n}"), value);
    }
    float("SLAB_MIN_DIR", SLAB_MIN_DIR);
    float("SHADING_MIN_LEN2", SHADING_MIN_LEN2);
    float("UV_MIN_DET", UV_MIN_DET);
    float("BEND_VIEW_SHARE", BEND_VIEW_SHARE);
    float("BEND_MAX_MARGIN", BEND_MAX_MARGIN);
    float("BUMP_SHADOWING_MIN_COS", BUMP_SHADOWING_MIN_COS);
    float("BUMP_SHADOWING_ALPHA2_PER_TAN2", BUMP_SHADOWING_ALPHA2_PER_TAN2);
    float("ONE_MINUS_EPSILON", ONE_MINUS_EPSILON);
    float("MARBLE_TURBULENCE_WEIGHT", MARBLE_TURBULENCE_WEIGHT);
    float("PRINCIPLED_DELTA_ROUGHNESS", PRINCIPLED_DELTA_ROUGHNESS);
    float("QUANTIZE_SCALE", QUANTIZE_SCALE);
    float("SRGB_LINEAR_MAX", SRGB_LINEAR_MAX);
    float("SRGB_LINEAR_SLOPE", SRGB_LINEAR_SLOPE);
    float("SRGB_SCALE", SRGB_SCALE);
    float("SRGB_OFFSET", SRGB_OFFSET);
    float("SRGB_EXPONENT", SRGB_EXPONENT);
    float("AGX_LOG_FLOOR", AGX_LOG_FLOOR);
    // Matrices and polynomials as scalars (`AGX_INSET_01` is row 0, column 1): a
    // namespace-scope constexpr array cannot be read by device code.
    for (name, matrix) in [("AGX_INSET", AGX_INSET), ("AGX_OUTSET", AGX_OUTSET)] {
        for (i, row) in matrix.iter().enumerate() {
            for (j, &value) in row.iter().enumerate() {
                float(&format!("{name}_{i}{j}"), value);
            }
        }
    }
    float("AGX_MIN_EV", AGX_MIN_EV);
    float("AGX_MAX_EV", AGX_MAX_EV);
    for (k, &value) in AGX_SIGMOID.iter().enumerate() {
        float(&format!("AGX_SIGMOID_{k}"), value);
    }
    float("AGX_DISPLAY_GAMMA", AGX_DISPLAY_GAMMA);
    for (name, value) in [
        ("HABLE_A", HABLE_A),
        ("HABLE_B", HABLE_B),
        ("HABLE_C", HABLE_C),
        ("HABLE_D", HABLE_D),
        ("HABLE_E", HABLE_E),
        ("HABLE_F", HABLE_F),
        ("HABLE_WHITE", HABLE_WHITE),
        ("HABLE_EXPOSURE_BIAS", HABLE_EXPOSURE_BIAS),
    ] {
        float(name, value);
    }
    out.push_str("\n// Sampler dimensions (docs/path-tracing.md, \"Sobol sampler\").\n");
    let mut uint = |name: &str, value: u32| {
        let _ = writeln!(out, "static constexpr unsigned int {name} = {value}u;");
    };
    uint("CAMERA_DIMS", CAMERA_DIMS);
    uint("DIM_PIXEL_X", DIM_PIXEL_X);
    uint("DIM_PIXEL_Y", DIM_PIXEL_Y);
    uint("DIM_LENS_1", DIM_LENS_1);
    uint("DIM_LENS_2", DIM_LENS_2);
    uint("DIMS_PER_BOUNCE", DIMS_PER_BOUNCE);
    uint("DIM_SCATTER_R1", DIM_SCATTER_R1);
    uint("DIM_SCATTER_R2", DIM_SCATTER_R2);
    uint("DIM_SCATTER_LOBE", DIM_SCATTER_LOBE);
    uint("DIM_SCATTER_FRESNEL", DIM_SCATTER_FRESNEL);
    uint("DIM_NEE_U1", DIM_NEE_U1);
    uint("DIM_NEE_U2", DIM_NEE_U2);
    uint("DIM_NEE_PICK", DIM_NEE_PICK);
    uint("DIM_ROULETTE", DIM_ROULETTE);
    uint("SOBOL_GROUP_DIMS", SOBOL_GROUP_DIMS as u32);
    for (i, &value) in LAINE_KARRAS_MULTIPLIERS.iter().enumerate() {
        let _ = writeln!(out, "static constexpr unsigned int LAINE_KARRAS_MULTIPLIER_{i} = 0x{value:08x}u;");
    }
    // In constant memory: every lane of a warp reads the same direction number at once.
    let _ = writeln!(out, "__constant__ unsigned int SOBOL_DIRECTIONS[{SOBOL_GROUP_DIMS}][32] = {{");
    for dim in &SOBOL_DIRECTIONS {
        let numbers: Vec<String> = dim.iter().map(|v| format!("0x{v:08x}u")).collect();
        for (i, row) in numbers.chunks(8).enumerate() {
            let open = if i == 0 { "{" } else { " " };
            let close = if i == 3 { "}," } else { "," };
            let _ = writeln!(out, "    {open}{}{close}", row.join(", "));
        }
    }
    out.push_str("};\n");
    out.push_str("\n// The AOVs' own camera rays (docs/path-tracing.md, \"AOVs\").\n");
    let mut uint = |name: &str, value: u32| {
        let _ = writeln!(out, "static constexpr unsigned int {name} = {value}u;");
    };
    uint("AOV_RAYS", AOV_RAYS);
    uint("AOV_RAY_SAMPLES", AOV_RAY_SAMPLES);
    let _ = writeln!(out, "static constexpr unsigned int AOV_SEED = 0x{AOV_SEED:08x}u;");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sobol_directions_are_the_known_ones() {
        // The first direction numbers of dimensions 1-3 as printed by Joe & Kuo's
        // generator (m_k << (32 - k)).
        assert_eq!(SOBOL_DIRECTIONS[0][..3], [0x8000_0000, 0x4000_0000, 0x2000_0000]);
        assert_eq!(SOBOL_DIRECTIONS[1][..4], [0x8000_0000, 0xc000_0000, 0xa000_0000, 0xf000_0000]);
        assert_eq!(SOBOL_DIRECTIONS[2][..4], [0x8000_0000, 0xc000_0000, 0x6000_0000, 0x9000_0000]);
        assert_eq!(SOBOL_DIRECTIONS[3][..4], [0x8000_0000, 0xc000_0000, 0x2000_0000, 0x5000_0000]);
        // Direction number k is m_k / 2^(k+1) with m_k odd: its lowest set bit is 31 - k
        // (the generator matrices are triangular with a unit diagonal, so invertible).
        for dim in &SOBOL_DIRECTIONS {
            for (k, v) in dim.iter().enumerate() {
                assert_eq!(v.trailing_zeros() as usize, 31 - k);
            }
        }
    }

    #[test]
    fn unit_float_scale_is_two_to_the_minus_24() {
        assert_eq!(UNIT_FLOAT_SHIFT, 8);
        assert_eq!(UNIT_FLOAT_SCALE, 1.0 / 16_777_216.0);
        // The largest u32 maps to the largest float below 1.
        assert_eq!((u32::MAX >> UNIT_FLOAT_SHIFT) as f32 * UNIT_FLOAT_SCALE, ONE_MINUS_EPSILON);
    }

    #[test]
    fn one_minus_epsilon_is_the_largest_float_below_one() {
        assert_eq!(ONE_MINUS_EPSILON.to_bits() + 1, 1.0f32.to_bits());
    }

    #[test]
    fn bounce_blocks_do_not_overlap() {
        assert_eq!(bounce_dim(0, DIM_SCATTER_R1), CAMERA_DIMS);
        assert_eq!(bounce_dim(1, DIM_SCATTER_R1), bounce_dim(0, DIM_ROULETTE) + 1);
        assert_eq!(CAMERA_DIMS as usize % SOBOL_GROUP_DIMS, 0, "blocks start on a padded group");
        assert_eq!(DIMS_PER_BOUNCE as usize % SOBOL_GROUP_DIMS, 0);
    }
}
