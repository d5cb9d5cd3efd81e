// Per-launch parameters: one struct in __constant__ memory, written by the host before
// every render launch. renderer/src/backend/cuda/params.rs mirrors it field for field;
// both sides assert the offsets, so a drift fails to compile instead of misrendering.
#pragma once

#include "blob_layout.cuh"
#include "device_nodes.cuh"

struct LaunchParams {
    // Camera frame (renderer/src/camera.rs): xyz each; cam_origin_lens.w = lens radius.
    float4 cam_origin_lens;
    float4 cam_lower_left;
    float4 cam_horizontal;
    float4 cam_vertical;
    float4 cam_u;
    float4 cam_v;
    // Sky radiance at dir.y = -1 and +1 (rgb), from the blob's globals.
    float4 sky_bottom;
    float4 sky_top;
    // Blob sections on the device (one allocation, every section 16-byte aligned) and the
    // inner nodes repacked from them.
    const SphereRecord* spheres;
    const unsigned int* sphere_materials;
    const MaterialRecord* materials;
    const DeviceNode* nodes;
    // The film: per-pixel sums of samples (rgb, w unused), and the ray counter.
    float4* accum;
    unsigned long long* ray_count;
    unsigned int width;
    unsigned int height;
    unsigned int max_depth;
    unsigned int seed;
    // Samples already in `accum` (0: overwrite it) and samples to add in this launch.
    unsigned int first_sample;
    unsigned int samples;
    // The BVH's root link: inner node 0, or a leaf when the whole scene is one.
    unsigned int bvh_root;
    unsigned int padding[1];
};
static_assert(sizeof(LaunchParams) == 208, "params.rs: LaunchParams drifted");
// NVRTC has no __builtin_offsetof; nvcc checks these (tools/gpu-run.sh compiles this file with it).
#ifndef __CUDACC_RTC__
static_assert(__builtin_offsetof(LaunchParams, spheres) == 128, "params.rs: LaunchParams drifted");
static_assert(__builtin_offsetof(LaunchParams, accum) == 160, "params.rs: LaunchParams drifted");
static_assert(__builtin_offsetof(LaunchParams, width) == 176, "params.rs: LaunchParams drifted");
static_assert(__builtin_offsetof(LaunchParams, samples) == 196, "params.rs: LaunchParams drifted");
static_assert(__builtin_offsetof(LaunchParams, bvh_root) == 200, "params.rs: LaunchParams drifted");
#endif

// Uniform across the launch: constant memory broadcasts it to a warp in one access.
__constant__ LaunchParams params;
