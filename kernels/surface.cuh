// A hit point on a surface, what every shape's surface function returns (CPU twin:
// `Surface` in renderer/src/backend/cpu/shapes/mod.rs): on it as exactly as f32
// allows, a per-component bound of its error, and the unit normal pointing out of the
// primitive (docs/path-tracing.md "Robust hits").
#pragma once

struct Surface {
    float3 point;
    float3 error;
    // Decides inside and outside, and where a ray leaving the surface starts.
    float3 normal;
    // Shades: `normal`, but for a mesh with vertex normals their interpolation.
    float3 shading;
};
