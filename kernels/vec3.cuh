// float3 arithmetic (NVRTC has no helper_math.h). All of it inlines: the kernels are
// one translation unit, so none of these is ever a call.
#pragma once

// +inf (NVRTC has no math.h and so no INFINITY).
#define PT_INFINITY __int_as_float(0x7f800000)
#define PT_TWO_PI 6.28318530717958647692f
#define PT_INV_PI 0.31830988618379067154f

__device__ __forceinline__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ __forceinline__ float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ __forceinline__ float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
__device__ __forceinline__ float3 operator*(float3 a, float3 b) { return make_float3(a.x * b.x, a.y * b.y, a.z * b.z); }
__device__ __forceinline__ float3 operator*(float s, float3 a) { return make_float3(s * a.x, s * a.y, s * a.z); }
__device__ __forceinline__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
__device__ __forceinline__ float3 operator/(float3 a, float s) { return make_float3(a.x / s, a.y / s, a.z / s); }
__device__ __forceinline__ void operator+=(float3& a, float3 b) { a = a + b; }
__device__ __forceinline__ void operator*=(float3& a, float3 b) { a = a * b; }

__device__ __forceinline__ float dot(float3 a, float3 b) { return fmaf(a.x, b.x, fmaf(a.y, b.y, a.z * b.z)); }
__device__ __forceinline__ float3 cross(float3 a, float3 b) {
    return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// float4 (bilinear texel blends, rgb and alpha together).
__device__ __forceinline__ float4 operator+(float4 a, float4 b) {
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }
__device__ __forceinline__ float4 make_float4(float3 v, float w) { return make_float4(v.x, v.y, v.z, w); }

// `v / |v|` with one reciprocal square root instead of a sqrt and three divisions.
__device__ __forceinline__ float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }

__device__ __forceinline__ float3 fabs3(float3 v) { return make_float3(fabsf(v.x), fabsf(v.y), fabsf(v.z)); }

__device__ __forceinline__ float max_component(float3 v) { return fmaxf(v.x, fmaxf(v.y, v.z)); }
__device__ __forceinline__ float3 fminf3(float3 v, float m) {
    return make_float3(fminf(v.x, m), fminf(v.y, m), fminf(v.z, m));
}

// `a + t (b - a)`.
__device__ __forceinline__ float3 lerp(float3 a, float3 b, float t) { return a + t * (b - a); }

// The xyz lanes of a blob float4 (the w lane holds another field).
__device__ __forceinline__ float3 xyz(float4 v) { return make_float3(v.x, v.y, v.z); }

// True when no component is NaN or infinite. Tested on the bits so that no compiler
// flag can assume it away.
__device__ __forceinline__ bool all_finite(float3 v) {
    const unsigned int exponent = 0x7f800000u;
    return (__float_as_uint(v.x) & exponent) != exponent && (__float_as_uint(v.y) & exponent) != exponent &&
           (__float_as_uint(v.z) & exponent) != exponent;
}
