//! The ranges every number of a scene stays in, checked where values enter (scene
//! validation: the RON text, model files, sphere files, images) and again by the blob
//! check (`blob::read`), so that a blob `build` writes always passes `verify` and every
//! product a renderer forms stays finite (issue 37; docs/scene-format.md, "Ranges").
//!
//! Why these bounds: a coordinate of at most 10^9 keeps a triangle's edge products
//! (cross products of edges, ~10^18, dotted with an edge, ~10^27) and a sphere's
//! squared distances (~10^18) far inside f32's 3.4·10^38; a radiance of at most 10^9
//! times an emitter's area (~10^19) stays ~10^28. Beyond 10^9, f32 resolves steps of
//! 64 units anyway.

use glam::{Affine3A, Mat3A, Vec3};

/// The largest coordinate magnitude of any point of the scene: vertices, sphere and box
/// extents, camera points, point lights.
pub const MAX_COORDINATE: f32 = 1e9;
/// The range of a mesh's or sphere file's `scale`.
pub const MIN_SCALE: f32 = 1e-6;
pub const MAX_SCALE: f32 = 1e6;
/// The largest value of a colour channel, strength, intensity or radiance, and of the
/// products of colour and strength the blob stores (emission, light radiance, sky,
/// environment texels).
pub const MAX_RADIANCE: f32 = 1e9;
/// The largest exposure magnitude, in stops (`settings: (exposure: ...)`, the renderer's
/// `--exposure`): 2^20 is about 10^6 either way, past any image a display shows.
pub const MAX_EXPOSURE: f32 = 20.0;
/// `|up × forward|` (both unit length) at or below this: `up` gives no camera basis.
pub const PARALLEL_SINE: f32 = 1e-6;

/// A point whose every coordinate is finite and within [`MAX_COORDINATE`].
pub fn coordinate_ok(p: Vec3) -> bool {
    p.is_finite() && p.abs().max_element() <= MAX_COORDINATE
}

/// A colour or quantity whose every channel is finite, not negative and at most
/// [`MAX_RADIANCE`].
pub fn radiance_ok(c: &[f32]) -> bool {
    c.iter().all(|&x| (0.0..=MAX_RADIANCE).contains(&x))
}

/// A sphere that lies within the coordinate range, with a positive radius. (No lower
/// bound: the BVH tests nest spheres down to 10^-40, and a sphere too small for f32 is
/// missed by every ray, not a NaN.)
pub fn sphere_problem(center: Vec3, radius: f32) -> Option<&'static str> {
    if !center.is_finite() || !radius.is_finite() || radius <= 0.0 {
        Some("a non-finite center or a radius that is not positive")
    } else if center.abs().max_element() + radius > MAX_COORDINATE {
        Some("it reaches past 1e9 from the origin")
    } else {
        None
    }
}

/// What the renderers cannot use in a triangle: a vertex out of range, or no area in
/// f32 (its normal would be NaN). The cross product is the one both renderers form.
pub fn triangle_problem(v: [Vec3; 3]) -> Option<&'static str> {
    if !v.iter().all(|&p| coordinate_ok(p)) {
        return Some("a vertex is not finite or is past 1e9 from the origin");
    }
    let n = (v[1] - v[0]).cross(v[2] - v[0]);
    if n == Vec3::ZERO || !n.is_finite() || n.length_squared() == 0.0 {
        return Some("it has no area in 32-bit floats");
    }
    None
}

/// How far an instance's object-to-world map times its world-to-object map, both in
/// f32 as the blob holds them, may be from the identity: in its linear part, and in its
/// translation relative to the larger of 1 and the maps' translations. The blob check's
/// bound (`shapes/instance.rs`).
pub const MAX_INVERSE_ERROR: f32 = 1e-3;

/// Whether the renderers can take rays into an instance's space and back: `to_world`
/// and its inverse in f32 undo each other within [`MAX_INVERSE_ERROR`]. A map stretched
/// very unevenly along axes that are not its own (two scales per axis with a rotation
/// between them shear) loses its inverse to rounding.
pub fn placement_invertible(to_world: &Affine3A) -> bool {
    maps_undo_each_other(to_world, &to_world.inverse())
}

/// Whether `to_world` and `to_object` undo each other within [`MAX_INVERSE_ERROR`]
/// (their product's linear part off the identity, its translation relative to the
/// larger of 1 and their translations): what an instance record's two maps must do
/// (`shapes/instance.rs`), and what [`placement_invertible`] asks of a placement and
/// its f32 inverse.
pub fn maps_undo_each_other(to_world: &Affine3A, to_object: &Affine3A) -> bool {
    let product = *to_world * *to_object;
    let linear =
        (product.matrix3 - Mat3A::IDENTITY).to_cols_array().into_iter().map(f32::abs).fold(0.0, f32::max);
    let reach =
        to_world.translation.abs().max_element().max(to_object.translation.abs().max_element()).max(1.0);
    let moved = product.translation.abs().max_element() / reach;
    // `f32::max` passes over NaN: a map without an inverse is caught here.
    product.is_finite() && linear <= MAX_INVERSE_ERROR && moved <= MAX_INVERSE_ERROR
}

/// Why a camera looking from `from` at `at` with `up` has no view basis, if it has none
/// (the renderers normalize `at - from` and `up` and cross them).
pub fn camera_problem(from: Vec3, at: Vec3, up: Vec3) -> Option<&'static str> {
    if !coordinate_ok(from) || !coordinate_ok(at) {
        return Some("`look_from` or `look_at` is not finite or is past 1e9 from the origin");
    }
    let view = at - from;
    let (forward, up) = (view.normalize_or_zero(), up.normalize_or_zero());
    if view == Vec3::ZERO {
        Some("`look_at` equals `look_from`")
    } else if forward == Vec3::ZERO {
        Some("`look_at - look_from` is not a usable direction")
    } else if up == Vec3::ZERO {
        Some("`up` is not a non-zero, normalizable vector")
    } else if forward.cross(up).length() <= PARALLEL_SINE {
        Some("`up` is parallel to the view direction")
    } else {
        None
    }
}
