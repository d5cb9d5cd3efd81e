//! How single values of the model are written where serde's derive would write them
//! otherwise: vectors as tuples, the defaults a field takes when a file leaves it out,
//! the values the writer leaves out, and the variant a value serializes as. Used by the
//! model's serde attributes (`model/mod.rs`, `material.rs`) and by `model/text.rs`.

use glam::{Vec2, Vec3};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A `Vec3` written `(x, y, z)`.
pub(crate) mod v3 {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Vec3, s: S) -> Result<S::Ok, S::Error> {
        v.to_array().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        <[f32; 3]>::deserialize(d).map(Vec3::from_array)
    }
}

/// A `Vec2` written `(x, y)`.
pub(crate) mod v2 {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Vec2, s: S) -> Result<S::Ok, S::Error> {
        v.to_array().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec2, D::Error> {
        <[f32; 2]>::deserialize(d).map(Vec2::from_array)
    }
}

/// `#[serde(default)]` of a strength, intensity, scale or cell size.
pub(crate) fn one() -> f32 {
    1.0
}

/// `#[serde(default)]` of a light's colour.
pub(crate) fn white() -> Vec3 {
    Vec3::ONE
}

/// `#[serde(default)]` of a camera's `up`.
pub(crate) fn up() -> Vec3 {
    Vec3::Y
}

/// `skip_serializing_if`: the value is zero.
pub(crate) fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

/// `skip_serializing_if`: the value is one.
pub(crate) fn is_one(x: &f32) -> bool {
    *x == 1.0
}

/// `skip_serializing_if`: every component is zero.
pub(crate) fn is_zero3(v: &Vec3) -> bool {
    *v == Vec3::ZERO
}

/// `skip_serializing_if`: the value is its type's default.
pub(crate) fn is_default<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}
