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

// Triangle `i` (index within the kind; its section is LaunchParams::prims[BLOB_PRIM_TRIANGLE]):
// its corners gathered from the vertices its record names (params.vertices), with their
// normal codes (the w lane of each 16-byte vertex) and their indices.
struct TriangleVertices {
    float3 v0, v1, v2;
    unsigned int n0, n1, n2;
    uint3 index;
};

__device__ __forceinline__ TriangleVertices triangle_at(unsigned int i) {
    const TriangleRecord* tri = &reinterpret_cast<const TriangleRecord*>(params.prims[BLOB_PRIM_TRIANGLE])[i];
    TriangleVertices t;
    t.index = make_uint3(__ldg(&tri->v[0]), __ldg(&tri->v[1]), __ldg(&tri->v[2]));
    const float4* vertices = reinterpret_cast<const float4*>(params.vertices);
    const float4 a = __ldg(&vertices[t.index.x]), b = __ldg(&vertices[t.index.y]), c = __ldg(&vertices[t.index.z]);
    t.v0 = xyz(a);
    t.v1 = xyz(b);
    t.v2 = xyz(c);
    t.n0 = __float_as_uint(a.w);
    t.n1 = __float_as_uint(b.w);
    t.n2 = __float_as_uint(c.w);
    return t;
}

// The unit normal of octahedral code `code` (not BLOB_NO_NORMAL), as the CPU decodes it
// (scene_compiler::records::normal::decode).
__device__ __forceinline__ float3 decode_normal(unsigned int code) {
    const float x = static_cast<float>(static_cast<short>(code & 0xffffu)) * (1.0f / 32767.0f);
    const float y = static_cast<float>(static_cast<short>(code >> 16)) * (1.0f / 32767.0f);
    const float z = 1.0f - fabsf(x) - fabsf(y);
    float3 n = make_float3(x, y, z);
    if (z < 0.0f) {
        n.x = (1.0f - fabsf(y)) * (x >= 0.0f ? 1.0f : -1.0f);
        n.y = (1.0f - fabsf(x)) * (y >= 0.0f ? 1.0f : -1.0f);
    }
    return n * (1.0f / sqrtf(dot(n, n)));
}

// The texture coordinates of the triangle's vertices (params.vertex_uvs); false when the
// blob has none or its mesh has none (NaN in its first vertex's).
__device__ __forceinline__ bool triangle_uvs(uint3 index, float2& a, float2& b, float2& c) {
    if (!params.vertex_uvs) return false;
    const float2* uvs = reinterpret_cast<const float2*>(params.vertex_uvs);
    a = __ldg(&uvs[index.x]);
    if (isnan(a.x)) return false;
    b = __ldg(&uvs[index.y]);
    c = __ldg(&uvs[index.z]);
    return true;
}

__device__ __forceinline__ float tri_lane(float3 v, int axis) { return axis == 0 ? v.x : (axis == 1 ? v.y : v.z); }

// A vertex (relative to the ray origin) sheared into the ray's frame along axis `k`:
// p[k] - s p[kz], rounded twice as on the CPU.
__device__ __forceinline__ float shear(float3 p, int k, int kz, float s) {
    return __fsub_rn(tri_lane(p, k), __fmul_rn(s, tri_lane(p, kz)));
}

// The distance along `dir` from `origin` to the triangle's plane, in f64 (CPU:
// `plane_distance_f64`); out of line, as it is taken only for hits within t's error bound.
__device__ __noinline__ double plane_distance_f64(float3 v0, float3 v1, float3 v2, float3 origin, float3 dir) {
    const double e1x = static_cast<double>(v1.x) - v0.x, e1y = static_cast<double>(v1.y) - v0.y,
                 e1z = static_cast<double>(v1.z) - v0.z;
    const double e2x = static_cast<double>(v2.x) - v0.x, e2y = static_cast<double>(v2.y) - v0.y,
                 e2z = static_cast<double>(v2.z) - v0.z;
    const double nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
    const double to = nx * (static_cast<double>(v0.x) - origin.x) + ny * (static_cast<double>(v0.y) - origin.y) +
                      nz * (static_cast<double>(v0.z) - origin.z);
    return to / (nx * dir.x + ny * dir.y + nz * dir.z);
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
    // Within the bound the sign of t is in doubt: decided in f64 (CPU: the same), where a
    // neighbour that a grazing ray crosses just ahead of its origin is hit and the
    // triangle the ray left stays behind.
    if (t <= delta_t && plane_distance_f64(v0, v1, v2, origin, dir) <= 0.0) return false;
    b = make_float3(u * inv, v * inv, w * inv);
    return true;
}

// The hit with barycentrics `b`: the interpolated point, its error bound, the unit
// geometric normal ((v1 - v0) x (v2 - v0) points out) and the shading normal: the
// vertex normals (if its mesh has them) interpolated, turned to the geometric normal's side.
__device__ __forceinline__ Surface triangle_surface(const TriangleVertices& t, float3 b) {
    const float3 p0 = t.v0 * b.x, p1 = t.v1 * b.y, p2 = t.v2 * b.z;
    Surface s;
    s.point = p0 + p1 + p2;
    s.error = TRIANGLE_ERR * (fabs3(p0) + fabs3(p1) + fabs3(p2));
    const float3 n = cross(t.v1 - t.v0, t.v2 - t.v0);
    // Times the reciprocal, as glam's normalize on the CPU.
    s.normal = n * (1.0f / sqrtf(dot(n, n)));
    s.shading = s.normal;
    if (t.n0 != BLOB_NO_NORMAL) {
        const float3 m = decode_normal(t.n0) * b.x + decode_normal(t.n1) * b.y + decode_normal(t.n2) * b.z;
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

// The vertices' texture coordinates (when the triangle has them) interpolated with the
// barycentrics of `p` (recovered from the point), or the barycentrics (b1, b2) themselves
// without any.
__device__ __forceinline__ float2 triangle_uv(const TriangleVertices& t, float3 p) {
    const float3 b = triangle_barycentrics(t.v0, t.v1, t.v2, p);
    float2 uv0, uv1, uv2;
    if (!triangle_uvs(t.index, uv0, uv1, uv2)) return make_float2(b.y, b.z);
    return make_float2(uv0.x * b.x + uv1.x * b.y + uv2.x * b.z, uv0.y * b.x + uv1.y * b.y + uv2.y * b.z);
}

// A normal map's frame at `hit`: with the blob's vertex tangents (params.triangle_tangents,
// glTF's convention), (T, -B) with T the tangents interpolated at the hit and B = w (n x T)
// glTF's bitangent (n the shading normal, w the sign of the interpolated signs), so that
// normal_mapped, which turns its bitangent away from dpdv, ends with B (CPU:
// `Triangle::tangent_dpduv`). Without them, the directions in which the texture
// coordinates grow, from the edges and their coordinates (per triangle); the edges
// themselves without coordinates or when they are degenerate.
__device__ __forceinline__ void triangle_dpduv(const TriangleVertices& t, unsigned int i, const Surface& hit,
                                               float3& dpdu, float3& dpdv) {
    if (params.triangle_tangents) {
        const float3 b = triangle_barycentrics(t.v0, t.v1, t.v2, hit.point);
        const TriangleTangentsRecord* r = &params.triangle_tangents[i];
        const float4 t0 = __ldg(&r->t0), t1 = __ldg(&r->t1), t2 = __ldg(&r->t2);
        dpdu = xyz(t0) * b.x + xyz(t1) * b.y + xyz(t2) * b.z;
        const float w = t0.w * b.x + t1.w * b.y + t2.w * b.z;
        const float3 bitangent = cross(hit.shading, dpdu);
        dpdv = w < 0.0f ? bitangent : -bitangent;
        return;
    }
    const float3 e1 = t.v1 - t.v0, e2 = t.v2 - t.v0;
    dpdu = e1;
    dpdv = e2;
    float2 uv0, uv1, uv2;
    if (!triangle_uvs(t.index, uv0, uv1, uv2)) return;
    const float d1x = uv1.x - uv0.x, d1y = uv1.y - uv0.y, d2x = uv2.x - uv0.x, d2y = uv2.y - uv0.y;
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
