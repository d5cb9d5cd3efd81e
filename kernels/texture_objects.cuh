// Experiment (issue 26): image textures read through CUDA texture objects (hardware
// bilinear filtering, the texture cache) instead of textures.cuh's four plain float4
// loads from the blob's texels and the bilinear in f32. Compiled in only with
// PT_TEXTURE_OBJECTS set (RENDERER_KERNEL_DEFINES=PT_TEXTURE_OBJECTS=1): 1 looks up with
// tex2D<float4>, 2 with the same instruction written as inline PTX (for an NVRTC that
// lacks the texture templates). The host (renderer/src/backend/cuda/texture_objects.rs)
// reads `texture_objects_enabled`, then makes one CUDA array (float4 texels) and one
// texture object per image texture record at upload (normalized coordinates, linear
// filtering, the record's wrap as CU_TR_ADDRESS_MODE_WRAP or _CLAMP), and writes the
// address of their handles, by texture record index, into `texture_objects` before
// each launch.
//
// The same texel centres as texture_image: with normalized coordinates and linear
// filtering the hardware looks up x = u * width - 0.5 (and y likewise, row 0 the top),
// blending texels floor(x) and floor(x) + 1 by the fraction, wrapped or clamped to the
// edge: what texture_image computes, except that the hardware's weights carry 8
// fractional bits (CUDA C++ Programming Guide, "Linear Filtering"), so a lookup may
// differ from the f32 bilinear by up to 1/256 of two neighbours' difference.
#pragma once

#include "vec3.cuh"

#ifndef PT_TEXTURE_OBJECTS
#define PT_TEXTURE_OBJECTS 0
#endif

// Read by the host after loading the module.
__constant__ unsigned int texture_objects_enabled = PT_TEXTURE_OBJECTS;

#if PT_TEXTURE_OBJECTS
// By texture record index: the texture object of an image record, 0 for the others.
__constant__ const unsigned long long* texture_objects;

// Texture record `index`'s image at (u, v), filtered by the texture unit.
__device__ __forceinline__ float3 texture_image_object(unsigned int index, float u, float v) {
    const unsigned long long object = __ldg(&texture_objects[index]);
#if PT_TEXTURE_OBJECTS == 2
    float4 c;
    asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
        : "=f"(c.x), "=f"(c.y), "=f"(c.z), "=f"(c.w)
        : "l"(object), "f"(u), "f"(v));
    return make_float3(c.x, c.y, c.z);
#else
    const float4 c = tex2D<float4>((cudaTextureObject_t)object, u, v);
    return make_float3(c.x, c.y, c.z);
#endif
}
#endif
