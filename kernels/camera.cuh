// Camera rays, docs/path-tracing.md "generate_camera_ray" (CPU: integrator.rs).
#pragma once

#include "params.cuh"
#include "sampler.cuh"
#include "vec3.cuh"

struct Ray {
    float3 origin;
    // Unit length: the sphere test relies on it.
    float3 dir;
};

// A jittered thin-lens ray through pixel (x, y), y = 0 the top row. Draws its four
// random numbers even for a pinhole, so every stream stays aligned with the CPU's.
__device__ __forceinline__ Ray generate_camera_ray(unsigned int x, unsigned int y, Sampler& sampler) {
    const float jx = sample_dim(sampler, DIM_PIXEL_X);
    const float jy = sample_dim(sampler, DIM_PIXEL_Y);
    const float l1 = sample_dim(sampler, DIM_LENS_1);
    const float l2 = sample_dim(sampler, DIM_LENS_2);
    const float s = ((float)x + jx) / (float)params.width;
    const float t = 1.0f - ((float)y + jy) / (float)params.height;
    const float3 cam_origin = xyz(params.cam_origin_lens);
    const float lens_radius = params.cam_origin_lens.w;
    float3 offset = make_float3(0.0f, 0.0f, 0.0f);
    // Uniform branch; a pinhole's offset is exactly zero, so skipping the sincos changes no bit.
    if (lens_radius > 0.0f) {
        const float r = lens_radius * sqrtf(l1);
        float sin_phi, cos_phi;
        sincosf(PT_TWO_PI * l2, &sin_phi, &cos_phi);
        offset = xyz(params.cam_u) * (r * cos_phi) + xyz(params.cam_v) * (r * sin_phi);
    }
    const float3 target = xyz(params.cam_lower_left) + s * xyz(params.cam_horizontal) + t * xyz(params.cam_vertical);
    return Ray{cam_origin + offset, normalize(target - cam_origin - offset)};
}
