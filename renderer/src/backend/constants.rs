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
    // `{:e}` prints the shortest decimal that reads back as the same f32.
    let _ = writeln!(out, "static constexpr float DEGENERATE_DIR2 = {DEGENERATE_DIR2:e}f;");
    out
}
