// Differences between GPU architectures, in one place (as candle-kernels keeps its
// compatibility header), so a new GPU generation means editing this file only.
// Everything else in kernels/ is architecture-neutral.
#pragma once

// Render block shape. The host passes both (renderer/src/backend/cuda/options.rs,
// env RENDERER_CUDA_BLOCK); the defaults only serve tools that compile this file alone.
#ifndef PT_BLOCK_W
#define PT_BLOCK_W 16
#endif
#ifndef PT_BLOCK_H
#define PT_BLOCK_H 8
#endif
#define PT_BLOCK_THREADS (PT_BLOCK_W * PT_BLOCK_H)
static_assert(PT_BLOCK_THREADS % 32 == 0, "the ray-count reduction needs whole warps");

// Most resident threads per SM (CUDA C++ Programming Guide, "Compute Capabilities"):
// 1024 on Turing, 1536 on GA10x/Ada/consumer Blackwell, 2048 on A100/H100/B200.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define PT_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define PT_THREADS_PER_SM 1536
#else
#define PT_THREADS_PER_SM 2048
#endif

// __launch_bounds__ minimum blocks per SM: enough blocks for half the SM's threads.
// That caps registers at 64 per thread on sm_80/sm_90 (65536 / 1024), which the render
// kernel fits without spilling (NVRTC 12.9, sm_90: 64 registers, 0 spill bytes; with
// no cap ptxas takes 72, i.e. 44% occupancy instead of 50%); 85 on sm_86, 128 on
// sm_75. More blocks spill: 20 per SM on sm_90 gives 48 registers and 28 bytes of
// spills. Override with -DPT_MIN_BLOCKS_PER_SM=n and measure.
#ifndef PT_MIN_BLOCKS_PER_SM
#define PT_MIN_BLOCKS_PER_SM (PT_THREADS_PER_SM / 2 / PT_BLOCK_THREADS > 0 ? PT_THREADS_PER_SM / 2 / PT_BLOCK_THREADS : 1)
#endif
