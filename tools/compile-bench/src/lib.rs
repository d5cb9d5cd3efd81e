//! Only the benchmarks in `benches/` (see Cargo.toml for why this is a crate of its own).
