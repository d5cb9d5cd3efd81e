// The view transforms: a film's exposed linear average to 8-bit display values, the
// twin of renderer/src/backend/tonemap.rs (docs/path-tracing.md "Accumulation and
// output"). Standard is gamma 2.0 (the RTIOW convention, approximating the sRGB curve);
// Agx is Blender's AgX base for an sRGB display in Benjamin Wrensch's minimal form
// (iolite, 2023, https://iolite-engine.com/blog_posts/minimal_agx_implementation);
// Filmic is John Hable's filmic curve ("Uncharted 2: HDR Lighting", GDC 2010), not
// Blender's LUT-based Filmic. Their numbers are generated into constants.cuh.
#pragma once

#include "blob_layout.cuh"
#include "constants.cuh"

// A display value to 8 bits: u8(QUANTIZE_SCALE clamp(v, 0, 1)); NaN gives 0.
__device__ __forceinline__ unsigned char quantize(float v) {
    return (unsigned char)(QUANTIZE_SCALE * fminf(fmaxf(v, 0.0f), 1.0f));
}

// The sRGB encoding (IEC 61966-2-1) of a linear value in [0, 1].
__device__ __forceinline__ float srgb_encode(float c) {
    return c <= SRGB_LINEAR_MAX ? SRGB_LINEAR_SLOPE * c : SRGB_SCALE * powf(c, 1.0f / SRGB_EXPONENT) - SRGB_OFFSET;
}

// AgX's contrast sigmoid: Wrensch's 6th-order polynomial, by Horner's rule.
__device__ __forceinline__ float agx_sigmoid(float x) {
    float acc = AGX_SIGMOID_6;
    acc = acc * x + AGX_SIGMOID_5;
    acc = acc * x + AGX_SIGMOID_4;
    acc = acc * x + AGX_SIGMOID_3;
    acc = acc * x + AGX_SIGMOID_2;
    acc = acc * x + AGX_SIGMOID_1;
    return acc * x + AGX_SIGMOID_0;
}

// One channel after the inset: log2 encoding over [AGX_MIN_EV, AGX_MAX_EV], then the
// sigmoid. Zero, negative and NaN values are the bottom of the range.
__device__ __forceinline__ float agx_encode(float c) {
    const float ev = fminf(fmaxf(log2f(fmaxf(c, AGX_LOG_FLOOR)), AGX_MIN_EV), AGX_MAX_EV);
    return agx_sigmoid((ev - AGX_MIN_EV) / (AGX_MAX_EV - AGX_MIN_EV));
}

// One channel after the outset: the 2.2 power back to linear, then sRGB.
__device__ __forceinline__ float agx_display(float c) {
    return srgb_encode(powf(fminf(fmaxf(c, 0.0f), 1.0f), AGX_DISPLAY_GAMMA));
}

__device__ __forceinline__ float3 agx(float3 c) {
    const float r = agx_encode(AGX_INSET_00 * c.x + AGX_INSET_01 * c.y + AGX_INSET_02 * c.z);
    const float g = agx_encode(AGX_INSET_10 * c.x + AGX_INSET_11 * c.y + AGX_INSET_12 * c.z);
    const float b = agx_encode(AGX_INSET_20 * c.x + AGX_INSET_21 * c.y + AGX_INSET_22 * c.z);
    return make_float3(agx_display(AGX_OUTSET_00 * r + AGX_OUTSET_01 * g + AGX_OUTSET_02 * b),
                       agx_display(AGX_OUTSET_10 * r + AGX_OUTSET_11 * g + AGX_OUTSET_12 * b),
                       agx_display(AGX_OUTSET_20 * r + AGX_OUTSET_21 * g + AGX_OUTSET_22 * b));
}

// Hable's curve: (x(Ax + CB) + DE) / (x(Ax + B) + DF) - E/F.
__device__ __forceinline__ float hable(float x) {
    return (x * (HABLE_A * x + HABLE_C * HABLE_B) + HABLE_D * HABLE_E) / (x * (HABLE_A * x + HABLE_B) + HABLE_D * HABLE_F) -
           HABLE_E / HABLE_F;
}

// Hable's filmic view of one channel: f(bias c) / f(W), clipped, then sRGB.
__device__ __forceinline__ float filmic(float c) {
    const float mapped = hable(HABLE_EXPOSURE_BIAS * fmaxf(c, 0.0f)) / hable(HABLE_WHITE);
    return srgb_encode(fminf(fmaxf(mapped, 0.0f), 1.0f));
}

// An exposed linear pixel (the average times 2^exposure) through `view`
// (BLOB_VIEW_*) to RGBA8, alpha 255.
__device__ __forceinline__ uchar4 view_transform_rgba8(float3 c, unsigned int view) {
    if (view == BLOB_VIEW_AGX) {
        const float3 d = agx(c);
        return make_uchar4(quantize(d.x), quantize(d.y), quantize(d.z), 255);
    }
    if (view == BLOB_VIEW_FILMIC) {
        return make_uchar4(quantize(filmic(c.x)), quantize(filmic(c.y)), quantize(filmic(c.z)), 255);
    }
    // The host passes a ViewTransform's code (blob::layout::view_code), and the blob
    // loader refuses views it does not know.
    if (view != BLOB_VIEW_STANDARD) __builtin_unreachable();
    return make_uchar4(quantize(sqrtf(c.x)), quantize(sqrtf(c.y)), quantize(sqrtf(c.z)), 255);
}
