// Per-launch parameters: one struct in __constant__ memory, written by the host before
// every render launch. The struct is generated from renderer/src/backend/cuda/params.rs
// into launch_params.cuh (`cargo run -p tools --bin layout-header`), which asserts its
// size and offsets, so host and kernels cannot disagree about a byte. The scene features
// compiled in (features.cuh) come with it: every kernel file includes this one.
#pragma once

#include "features.cuh"
#include "launch_params.cuh"

// Uniform across the launch: constant memory broadcasts it to a warp in one access.
__constant__ LaunchParams params;
