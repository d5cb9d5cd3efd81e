//! The PCG functions against the spec's formulas (docs/path-tracing.md), and pinned
//! values: the CUDA tests pin the same numbers, so both backends draw one stream.

use renderer::backend::cpu::rng::{Rng, pcg_hash};

/// The spec's `pcg_hash`, in u64 arithmetic reduced mod 2^32 by hand.
fn spec_hash(v: u32) -> u32 {
    let state = (u64::from(v) * 747_796_405 + 2_891_336_453) % (1 << 32);
    spec_output(state)
}

/// The spec's output permutation of one state.
fn spec_output(state: u64) -> u32 {
    let word = (((state >> ((state >> 28) + 4)) ^ state) * 277_803_737) % (1 << 32);
    ((word >> 22) ^ word) as u32
}

/// The spec's stream: the state after `rng_init`, then each `next_u32`.
fn spec_stream(pixel: u32, sample: u32, seed: u32, n: usize) -> Vec<u32> {
    let mut state = u64::from(spec_hash(pixel ^ spec_hash(sample ^ spec_hash(seed))));
    (0..n)
        .map(|_| {
            state = (state * 747_796_405 + 2_891_336_453) % (1 << 32);
            spec_output(state)
        })
        .collect()
}

#[test]
fn pcg_hash_matches_the_spec_and_pinned_values() {
    let inputs = [0, 1, 2, 42, u32::MAX];
    let pinned = [129_708_002, 2_831_084_092, 2_055_130_248, 1_223_963_391, 3_861_530_882];
    for (v, want) in inputs.into_iter().zip(pinned) {
        assert_eq!(pcg_hash(v), want, "pcg_hash({v})");
        assert_eq!(spec_hash(v), want, "spec formula for {v}");
    }
    for v in (0..1_000_000u32).step_by(997).chain([u32::MAX - 1, 0x8000_0000]) {
        assert_eq!(pcg_hash(v), spec_hash(v), "pcg_hash({v})");
    }
}

#[test]
fn streams_match_the_spec_and_pinned_values() {
    // (pixel, sample, seed) and the first four next_u32 values.
    let cases: [((u32, u32, u32), [u32; 4]); 2] = [
        ((0, 0, 0), [2_368_882_721, 2_659_002_260, 1_321_422_457, 347_178_582]),
        ((12_345, 7, 42), [1_167_859_919, 1_471_409_849, 3_721_785_393, 1_595_144_526]),
    ];
    for ((pixel, sample, seed), pinned) in cases {
        let mut rng = Rng::new(pixel, sample, seed);
        let drawn: Vec<u32> = (0..4).map(|_| rng.next_u32()).collect();
        assert_eq!(drawn, pinned, "stream ({pixel}, {sample}, {seed})");
        assert_eq!(spec_stream(pixel, sample, seed, 4), pinned, "spec stream ({pixel}, {sample}, {seed})");
    }
    for (pixel, sample, seed) in [(1, 2, 3), (921_599, 29, 0), (5, 1 << 20, u32::MAX)] {
        let mut rng = Rng::new(pixel, sample, seed);
        let drawn: Vec<u32> = (0..64).map(|_| rng.next_u32()).collect();
        assert_eq!(drawn, spec_stream(pixel, sample, seed, 64));
    }
}

#[test]
fn next_f32_uses_the_top_24_bits() {
    let pinned = [0.271_913_53_f32, 0.342_589_26, 0.866_545_7, 0.371_398_5];
    let mut rng = Rng::new(12_345, 7, 42);
    for want in pinned {
        let got = rng.next_f32();
        assert!((got - want).abs() < 1e-7, "{got} != {want}");
    }
    let mut a = Rng::new(3, 4, 5);
    let mut b = a;
    for _ in 0..10_000 {
        let f = a.next_f32();
        assert_eq!(f, (b.next_u32() >> 8) as f32 / 16_777_216.0);
        assert!((0.0..1.0).contains(&f));
    }
}

#[test]
fn streams_of_neighbouring_pixels_and_samples_differ() {
    let first = |p, s| Rng::new(p, s, 9).next_u32();
    assert_ne!(first(0, 0), first(1, 0));
    assert_ne!(first(0, 0), first(0, 1));
    assert_ne!(Rng::new(0, 0, 1).next_u32(), Rng::new(0, 0, 2).next_u32());
}
