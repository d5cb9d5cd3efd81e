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
/// Russian roulette starts once a path has this many segments (`depth + 1`): after the
/// first bounce, as in the reference CUDA port (docs/path-tracing.md says why).
pub const RR_START_DEPTH: u32 = 1;
/// A Lambert direction `n + u` with a squared length below this is taken as `n`: a
/// sample exactly opposite the normal would give a zero direction.
pub const DEGENERATE_DIR2: f32 = 1e-12;

// The view transforms (`backend/tonemap.rs` ↔ `kernels/view_transform.cuh`;
// docs/path-tracing.md, "Accumulation and output").

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

/// The full text of `kernels/constants.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("renderer/src/backend/constants.rs");
    let mut uint = |name: &str, value: u32| {
        let _ = writeln!(out, "static constexpr unsigned int {name} = {value}u;");
    };
    uint("PCG_MULTIPLIER", PCG_MULTIPLIER);
    uint("PCG_INCREMENT", PCG_INCREMENT);
    uint("PCG_OUTPUT_MULTIPLIER", PCG_OUTPUT_MULTIPLIER);
    uint("RR_START_DEPTH", RR_START_DEPTH);
    let mut float = |name: &str, value: f32| {
        // `{:e}` prints the shortest decimal that reads back as the same f32.
        let _ = writeln!(out, "static constexpr float {name} = {value:e}f;");
    };
    float("DEGENERATE_DIR2", DEGENERATE_DIR2);
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
    out
}
