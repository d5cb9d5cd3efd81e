// The triangle, docs/path-tracing.md "Intersection", "Robust hits" and "Next-event
// estimation" (CPU twin: renderer/src/backend/cpu/shapes/triangle.rs): watertight
// intersection (Woop, Benthin and Wald, "Watertight Ray/Triangle Intersection", JCGT
// 2013), the hit re-computed from its barycentrics with pbrt-v4's error bound, and
// uniform area sampling as a light. shapes.cuh dispatches to it by kind.
#pragma once

#include "constants.cuh"
#include "params.cuh"
#include "sampling.cuh"
#include "surface.cuh"
#include "vec3.cuh"

// Triangle `i` (index within the kind); its section is LaunchParams::prims[BLOB_PRIM_TRIANGLE].
__device__ __forceinline__ const TriangleRecord* triangle_at(unsigned int i) {
    return &reinterpret_cast<const TriangleRecord*>(params.prims[BLOB_PRIM_TRIANGLE])[i];
}

__device__ __forceinline__ float tri_lane(float3 v, int axis) { return axis == 0 ? v.x : (axis == 1 ? v.y : v.z); }

// A vertex (relative to the ray origin) sheared into the ray's frame along axis `k`:
// p[k] - s p[kz], rounded twice as on the CPU.
__device__ __forceinline__ float shear(float3 p, int k, int kz, float s) {
    return __fsub_rn(tri_lane(p, k), __fmul_rn(s, tri_lane(p, kz)));
}

// The watertight test: true with the distance `t` in (0, t_max) and the barycentrics
// of v0, v1, v2 in `b`. Both faces are hit. The ray's frame has z along the largest
// component of dir (x and y after it, swapped when it is negative, to keep the
// winding); an edge function of exactly 0 is recomputed in double, where it is exact.
__device__ __forceinline__ bool intersect_triangle(float3 v0, float3 v1, float3 v2, float3 origin, float3 dir,
                                                   float t_max, float& t, float3& b) {
    const float3 ad = fabs3(dir);
    const int kz = ad.x > ad.y ? (ad.x > ad.z ? 0 : 2) : (ad.y > ad.z ? 1 : 2);
    int kx = kz == 2 ? 0 : kz + 1;
    int ky = kz == 0 ? 2 : kz - 1;
    if (tri_lane(dir, kz) < 0.0f) {
        const int swap = kx;
        kx = ky;
        ky = swap;
    }
    const float dz = tri_lane(dir, kz);
    const float sx = tri_lane(dir, kx) / dz, sy = tri_lane(dir, ky) / dz, sz = 1.0f / dz;
    const float3 a = v0 - origin, bb = v1 - origin, c = v2 - origin;
    // No fused multiply-adds from here to the signs: a shared edge must give the same
    // edge function, negated, in both of its triangles, as on the CPU (which fuses none).
    const float ax = shear(a, kx, kz, sx), ay = shear(a, ky, kz, sy);
    const float bx = shear(bb, kx, kz, sx), by = shear(bb, ky, kz, sy);
    const float cx = shear(c, kx, kz, sx), cy = shear(c, ky, kz, sy);
    float u = __fsub_rn(__fmul_rn(cx, by), __fmul_rn(cy, bx));
    float v = __fsub_rn(__fmul_rn(ax, cy), __fmul_rn(ay, cx));
    float w = __fsub_rn(__fmul_rn(bx, ay), __fmul_rn(by, ax));
    if (u == 0.0f || v == 0.0f || w == 0.0f) {
        u = static_cast<float>(static_cast<double>(cx) * by - static_cast<double>(cy) * bx);
        v = static_cast<float>(static_cast<double>(ax) * cy - static_cast<double>(ay) * cx);
        w = static_cast<float>(static_cast<double>(bx) * ay - static_cast<double>(by) * ax);
    }
    if ((u < 0.0f || v < 0.0f || w < 0.0f) && (u > 0.0f || v > 0.0f || w > 0.0f)) return false;
    const float det = u + v + w;
    if (det == 0.0f) return false;
    const float az = sz * tri_lane(a, kz), bz = sz * tri_lane(bb, kz), cz = sz * tri_lane(c, kz);
    const float t_scaled = u * az + v * bz + w * cz;
    const float t_signed = det < 0.0f ? -t_scaled : t_scaled;
    const float det_abs = fabsf(det);
    if (t_signed <= 0.0f || t_signed >= t_max * det_abs) return false;
    const float inv = 1.0f / det;
    // pbrt-v4's bound on t's rounding error: a hit closer than it may be behind the
    // origin (a ray leaving a triangle's plane, whose hit point is exact there and so
    // gets no offset, would meet the triangle again).
    const float max_xt = fmaxf(fmaxf(fabsf(ax), fabsf(bx)), fabsf(cx));
    const float max_yt = fmaxf(fmaxf(fabsf(ay), fabsf(by)), fabsf(cy));
    const float max_zt = fmaxf(fmaxf(fabsf(az), fabsf(bz)), fabsf(cz));
    const float delta_z = GAMMA_3 * max_zt;
    const float delta_x = GAMMA_5 * (max_xt + max_zt), delta_y = GAMMA_5 * (max_yt + max_zt);
    const float delta_e = 2.0f * (GAMMA_2 * max_xt * max_yt + delta_y * max_xt + delta_x * max_yt);
    const float max_e = fmaxf(fmaxf(fabsf(u), fabsf(v)), fabsf(w));
    const float delta_t = 3.0f * (GAMMA_3 * max_e * max_zt + delta_e * max_zt + delta_z * max_e) * fabsf(inv);
    t = t_scaled * inv;
    if (t <= delta_t) return false;
    b = make_float3(u * inv, v * inv, w * inv);
    return true;
}

// Triangle `i`'s vertex normals, when the blob has them (params.triangle_normals).
__device__ __forceinline__ const TriangleNormalsRecord* triangle_normals_at(unsigned int i) {
    return params.triangle_normals ? params.triangle_normals + i : nullptr;
}

// The hit with barycentrics `b`: the interpolated point, its error bound, the unit
// geometric normal ((v1 - v0) x (v2 - v0) points out) and the shading normal: the
// vertex normals `vn` (if any) interpolated, turned to the geometric normal's side.
__device__ __forceinline__ Surface triangle_surface(float3 v0, float3 v1, float3 v2, float3 b,
                                                    const TriangleNormalsRecord* vn) {
    const float3 p0 = v0 * b.x, p1 = v1 * b.y, p2 = v2 * b.z;
    Surface s;
    s.point = p0 + p1 + p2;
    s.error = TRIANGLE_ERR * (fabs3(p0) + fabs3(p1) + fabs3(p2));
    const float3 n = cross(v1 - v0, v2 - v0);
    // Times the reciprocal, as glam's normalize on the CPU.
    s.normal = n * (1.0f / sqrtf(dot(n, n)));
    s.shading = s.normal;
    if (vn) {
        const float3 m = xyz(__ldg(&vn->n0)) * b.x + xyz(__ldg(&vn->n1)) * b.y + xyz(__ldg(&vn->n2)) * b.z;
        const float len2 = dot(m, m);
        if (len2 > 0.0f) {
            const float3 unit = m * (1.0f / sqrtf(len2));
            s.shading = dot(unit, s.normal) < 0.0f ? -unit : unit;
        }
    }
    return s;
}

// The barycentrics (b0, b1, b2) of point `p` on the triangle's plane (CPU: `barycentrics`).
__device__ __forceinline__ float3 triangle_barycentrics(float3 v0, float3 v1, float3 v2, float3 p) {
    const float3 e1 = v1 - v0, e2 = v2 - v0, d = p - v0;
    const float d00 = dot(e1, e1), d01 = dot(e1, e2), d11 = dot(e2, e2);
    const float d20 = dot(d, e1), d21 = dot(d, e2);
    const float inv = 1.0f / (d00 * d11 - d01 * d01);
    const float b1 = (d11 * d20 - d01 * d21) * inv;
    const float b2 = (d00 * d21 - d01 * d20) * inv;
    return make_float3(1.0f - b1 - b2, b1, b2);
}

// The vertices' texture coordinates (params.triangle_uvs, when the blob has them)
// interpolated with the barycentrics of `p` (recovered from the point), or the
// barycentrics (b1, b2) themselves without any.
__device__ __forceinline__ float2 triangle_uv(float3 v0, float3 v1, float3 v2, unsigned int i, float3 p) {
    const float3 b = triangle_barycentrics(v0, v1, v2, p);
    if (!params.triangle_uvs) return make_float2(b.y, b.z);
    const float4 uv01 = __ldg(&params.triangle_uvs[i].uv01), uv2 = __ldg(&params.triangle_uvs[i].uv2);
    return make_float2(uv01.x * b.x + uv01.z * b.y + uv2.x * b.z, uv01.y * b.x + uv01.w * b.y + uv2.y * b.z);
}

// A normal map's frame at `hit`: with the blob's vertex tangents (params.triangle_tangents,
// glTF's convention), (T, -B) with T the tangents interpolated at the hit and B = w (n x T)
// glTF's bitangent (n the shading normal, w the sign of the interpolated signs), so that
// normal_mapped, which turns its bitangent away from dpdv, ends with B (CPU:
// `Triangle::tangent_dpduv`). Without them, the directions in which the texture
// coordinates grow, from the edges and their coordinates (per triangle); the edges
// themselves without coordinates or when they are degenerate.
__device__ __forceinline__ void triangle_dpduv(float3 v0, float3 v1, float3 v2, unsigned int i, const Surface& hit,
                                               float3& dpdu, float3& dpdv) {
    if (params.triangle_tangents) {
        const float3 b = triangle_barycentrics(v0, v1, v2, hit.point);
        const TriangleTangentsRecord* r = &params.triangle_tangents[i];
        const float4 t0 = __ldg(&r->t0), t1 = __ldg(&r->t1), t2 = __ldg(&r->t2);
        dpdu = xyz(t0) * b.x + xyz(t1) * b.y + xyz(t2) * b.z;
        const float w = t0.w * b.x + t1.w * b.y + t2.w * b.z;
        const float3 bitangent = cross(hit.shading, dpdu);
        dpdv = w < 0.0f ? bitangent : -bitangent;
        return;
    }
    const float3 e1 = v1 - v0, e2 = v2 - v0;
    dpdu = e1;
    dpdv = e2;
    if (!params.triangle_uvs) return;
    const float4 uv01 = __ldg(&params.triangle_uvs[i].uv01), uv2 = __ldg(&params.triangle_uvs[i].uv2);
    const float d1x = uv01.z - uv01.x, d1y = uv01.w - uv01.y, d2x = uv2.x - uv01.x, d2y = uv2.y - uv01.y;
    const float det = d1x * d2y - d2x * d1y;
    if (!(fabsf(det) >= UV_MIN_DET && fabsf(det) < PT_INFINITY)) return;
    const float inv = 1.0f / det;
    dpdu = (e1 * d2y - e2 * d1y) * inv;
    dpdv = (e2 * d1x - e1 * d2x) * inv;
}

// Next-event estimation: a point uniform by area (b0 = 1 - sqrt(u1), b1 = u2 sqrt(u1)),
// the direction to it from `p`, and the shadow ray's length from `o` to the triangle's
// plane; false when the direction grazes it. Both faces emit.
__device__ __forceinline__ bool triangle_sample(float3 v0, float3 v1, float3 v2, float3 p, float3 o, float u1,
                                                float u2, LightSample& s) {
    const float root = sqrtf(u1);
    const float3 x = v0 * (1.0f - root) + v1 * (u2 * root) + v2 * (root * (1.0f - u2));
    const float3 n = cross(v1 - v0, v2 - v0);
    const float area = 0.5f * sqrtf(dot(n, n));
    const float3 normal = n / (2.0f * area);
    const float3 to = x - p;
    const float dist2 = dot(to, to);
    s.wi = to / sqrtf(dist2);
    const float cos = dot(normal, s.wi);
    s.inv_pdf = area * fabsf(cos) / dist2;
    if (!(s.inv_pdf > 0.0f && s.inv_pdf < PT_INFINITY)) return false;
    s.t_max = dot(normal, v0 - o) / cos;
    return true;
}

// The solid-angle density with which triangle_sample from `from` picks the direction
// that reaches `hit` on the triangle.
__device__ __forceinline__ float triangle_pdf_towards(float3 v0, float3 v1, float3 v2, float3 from, const Surface& hit) {
    const float3 n = cross(v1 - v0, v2 - v0);
    return area_pdf_towards(0.5f * sqrtf(dot(n, n)), from, hit);
}
