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

/// A transform's scale, `Vec3` per axis, written as one number when it is the same on
/// every axis (as every file was before scales per axis, and as `to_ron` keeps writing
/// those) and as `(x, y, z)` otherwise.
pub(crate) mod scale {
    use std::fmt;

    use serde::de::{self, SeqAccess, Visitor};

    use super::*;

    /// The scale's one value when every axis has it, bit for bit (so `to_ron` writes one
    /// number exactly when reading it back gives the same three).
    pub fn uniform(v: Vec3) -> Option<f32> {
        let [x, y, z] = v.to_array().map(f32::to_bits);
        (x == y && y == z).then_some(v.x)
    }

    pub fn serialize<S: Serializer>(v: &Vec3, s: S) -> Result<S::Ok, S::Error> {
        match uniform(*v) {
            Some(x) => x.serialize(s),
            None => v.to_array().serialize(s),
        }
    }

    /// Only the text says which form it is: ron tells `deserialize_any` what it finds.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        d.deserialize_any(ScaleVisitor)
    }

    struct ScaleVisitor;

    impl<'de> Visitor<'de> for ScaleVisitor {
        type Value = Vec3;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number, or three numbers `(x, y, z)`")
        }

        fn visit_f32<E: de::Error>(self, v: f32) -> Result<Vec3, E> {
            Ok(Vec3::splat(v))
        }

        // ron hands a float over as f64 when f32 cannot hold it exactly. Rounding that
        // to f32 reads `to_ron`'s text of every positive f32 back to its bits but one,
        // 7.038531e-26, far below a scale's range (checked over all of them once: the
        // decimal's f64 lands on a tie of two f32s there).
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vec3, E> {
            Ok(Vec3::splat(v as f32))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec3, E> {
            Ok(Vec3::splat(v as f32))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec3, E> {
            Ok(Vec3::splat(v as f32))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec3, A::Error> {
            let mut v = [0.0; 3];
            for (k, x) in v.iter_mut().enumerate() {
                *x = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(k, &self))?;
            }
            if seq.next_element::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::invalid_length(4, &self));
            }
            Ok(Vec3::from_array(v))
        }
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
