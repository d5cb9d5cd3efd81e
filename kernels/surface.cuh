// A hit point on a surface, what every shape's surface function returns (CPU twin:
// `Surface` in renderer/src/backend/cpu/shapes/mod.rs): on it as exactly as f32
// allows, a per-component bound of its error, and the unit normal pointing out of the
// primitive (docs/path-tracing.md "Robust hits").
#pragma once

struct Surface {
    float3 point;
    float3 error;
    float3 normal;
};
