//! What serde's derive on the model cannot say by itself about how a scene is written
//! (docs/scene-format.md): vectors as tuples, material references as the materials'
//! names, enums whose newtype variants holding a struct are written as struct variants
//! (`Environment(image: ...)`, `Principled(base_color: ...)`), and records with fields
//! the model keeps elsewhere (a material's textures, a terrain's surface), which
//! [`ExtraFields`] writes inside the record's parentheses.
//!
//! Everything else about the format is the model's serde attributes (`model.rs`,
//! `material.rs`): field names, defaults, and which values the writer leaves out.
//!
//! Not here: the layout of the text (`write.rs`).

use std::cell::RefCell;
use std::fmt;

use glam::{Vec2, Vec3};
use serde::ser::{self, Impossible, SerializeStruct, SerializeStructVariant};
use serde::{Serialize, Serializer};

use super::material::MAP_FIELDS;
use super::model::{Material, Terrain, TerrainSurface};

/// A `Vec3` written `(x, y, z)`.
pub(crate) mod v3 {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Vec3, s: S) -> Result<S::Ok, S::Error> {
        v.to_array().serialize(s)
    }
}

/// A `Vec2` written `(x, y)`.
pub(crate) mod v2 {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Vec2, s: S) -> Result<S::Ok, S::Error> {
        v.to_array().serialize(s)
    }
}

thread_local! {
    /// The scene's material names while [`writing`] runs: a material index is written
    /// as its material's name, which serde's derive gives a field no way to reach.
    static NAMES: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Runs `write` with `materials`' names as what [`material`] writes.
pub(crate) fn writing<T>(materials: &[Material], write: impl FnOnce() -> T) -> T {
    let names = materials.iter().map(|m| m.name.clone()).collect();
    let previous = NAMES.with(|n| n.replace(Some(names)));
    let result = write();
    NAMES.with(|n| n.replace(previous));
    result
}

/// A material index written as its material's name. An index with no material (only
/// possible in a hand-built `Scene`) is written `"#<index>"`, which loading reports as
/// unknown.
pub(crate) mod material {
    use super::*;

    pub fn serialize<S: Serializer>(index: &u32, s: S) -> Result<S::Ok, S::Error> {
        NAMES.with(|names| match names.borrow().as_ref().and_then(|n| n.get(*index as usize)) {
            Some(name) => s.serialize_str(name),
            None => s.serialize_str(&format!("#{index}")),
        })
    }

    /// `Option<u32>`: a mesh's material, when it overrides the model's.
    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(index: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
            match index {
                Some(index) => s.serialize_some(&Name(*index)),
                None => s.serialize_none(),
            }
        }
    }

    /// `Vec<u32>`: a sphere file's materials.
    pub mod list {
        use super::*;

        pub fn serialize<S: Serializer>(indices: &[u32], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(indices.iter().map(|&i| Name(i)))
        }
    }

    /// One material index, as [`serialize`] writes it.
    pub(crate) struct Name(pub u32);

    impl Serialize for Name {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            serialize(&self.0, s)
        }
    }
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

/// Fields a record's text has besides those of the model type that serde writes for it.
pub(crate) trait ExtraFields {
    /// Writes them after the record's own fields.
    fn serialize_fields<V: SerializeStructVariant>(&self, v: &mut V) -> Result<(), V::Error>;
}

/// No extra fields: only newtype variants holding a struct are written as struct variants.
pub(crate) struct NoExtra;

impl ExtraFields for NoExtra {
    fn serialize_fields<V: SerializeStructVariant>(&self, _: &mut V) -> Result<(), V::Error> {
        Ok(())
    }
}

/// `#[serde(with)]` for an enum whose newtype variants that hold a struct are written as
/// struct variants of the struct's fields (`sky: Environment(image: ...)`).
pub(crate) mod variants {
    use super::*;

    pub fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        Spliced(value, NoExtra).serialize(s)
    }
}

/// A material's kind with its textures inside the kind's parentheses.
pub(crate) struct Textures<'a>(pub &'a Material);

impl ExtraFields for Textures<'_> {
    fn serialize_fields<V: SerializeStructVariant>(&self, v: &mut V) -> Result<(), V::Error> {
        let m = self.0;
        if let Some(texture) = &m.texture {
            v.serialize_field(m.kind.texture_field(), texture)?;
        }
        for (texture, field) in m.maps.slots().into_iter().zip(MAP_FIELDS) {
            if let Some(texture) = texture {
                v.serialize_field(field, texture)?;
            }
        }
        Ok(())
    }
}

/// `#[serde(with)]` for the scene's materials: a map of names to kinds with their
/// textures, in the scene's order.
pub(crate) mod materials {
    use super::*;
    use serde::ser::SerializeMap;

    pub fn serialize<S: Serializer>(materials: &[Material], s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(materials.len()))?;
        for m in materials {
            map.serialize_entry(&m.name, &Spliced(&m.kind, Textures(m)))?;
        }
        map.end()
    }
}

/// A terrain's kind: the text writes a terrain as `Heightmap(...)`, the one kind there is.
#[derive(Serialize)]
#[serde(rename = "Terrain")]
enum TerrainKind<T> {
    Heightmap(T),
}

/// A terrain's surface, written as its `material` or its `palette`.
struct Surface<'a>(&'a TerrainSurface);

impl ExtraFields for Surface<'_> {
    fn serialize_fields<V: SerializeStructVariant>(&self, v: &mut V) -> Result<(), V::Error> {
        match self.0 {
            TerrainSurface::Material(m) => v.serialize_field("material", &material::Name(*m)),
            TerrainSurface::Palette(bands) => v.serialize_field("palette", bands),
        }
    }
}

/// `#[serde(with)]` for the scene's terrains: each a `Heightmap(...)` with its surface.
pub(crate) mod terrains {
    use super::*;

    pub fn serialize<S: Serializer>(terrains: &[Terrain], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(terrains.iter().map(|t| Spliced(TerrainKind::Heightmap(t), Surface(&t.surface))))
    }
}

/// `value` (an enum) with `extra`'s fields in its variant, and a newtype variant holding
/// a struct written as a struct variant.
pub(crate) struct Spliced<T, X>(pub T, pub X);

impl<T: Serialize, X: ExtraFields> Serialize for Spliced<T, X> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Splice { inner: s, extra: &self.1 })
    }
}

/// The serializer [`Spliced`] hands its enum: it forwards the variant to `inner` with
/// the extra fields added.
struct Splice<'x, S, X> {
    inner: S,
    extra: &'x X,
}

/// An error for what the adapters here are never given (the model's enums are made of
/// struct, newtype and unit variants).
fn unsupported<E: ser::Error>(what: &str) -> E {
    E::custom(format!("{what} is not written by the scene format's adapters"))
}

/// Serializer methods an adapter refuses.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $out:ident;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self::$out, Self::Error> {
            Err(unsupported(stringify!($method)))
        })*
    };
}

/// The methods of every value that is not an enum or a struct.
macro_rules! refuse_values {
    () => {
        refuse! {
            serialize_bool(bool) -> Ok; serialize_i8(i8) -> Ok; serialize_i16(i16) -> Ok;
            serialize_i32(i32) -> Ok; serialize_i64(i64) -> Ok; serialize_u8(u8) -> Ok;
            serialize_u16(u16) -> Ok; serialize_u32(u32) -> Ok; serialize_u64(u64) -> Ok;
            serialize_f32(f32) -> Ok; serialize_f64(f64) -> Ok; serialize_char(char) -> Ok;
            serialize_str(&str) -> Ok; serialize_bytes(&[u8]) -> Ok; serialize_none() -> Ok;
            serialize_unit() -> Ok; serialize_unit_struct(&'static str) -> Ok;
            serialize_seq(Option<usize>) -> SerializeSeq; serialize_tuple(usize) -> SerializeTuple;
            serialize_tuple_struct(&'static str, usize) -> SerializeTupleStruct;
            serialize_map(Option<usize>) -> SerializeMap;
        }

        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Self::Ok, Self::Error> {
            Err(unsupported("serialize_some"))
        }

        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Self::Error> {
            Err(unsupported("serialize_newtype_struct"))
        }

        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Self::Error> {
            Err(unsupported("serialize_tuple_variant"))
        }
    };
}

impl<'x, S: Serializer, X: ExtraFields> Serializer for Splice<'x, S, X> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Impossible<S::Ok, S::Error>;
    type SerializeStruct = Impossible<S::Ok, S::Error>;
    type SerializeStructVariant = WithExtra<'x, S::SerializeStructVariant, X>;

    refuse_values!();

    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit_variant(name, index, variant)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        match value.serialize(IsStruct) {
            Err(Probed::Struct(len)) => {
                let v = self.inner.serialize_struct_variant(name, index, variant, len)?;
                let mut with = WithExtra { v, extra: self.extra };
                value.serialize(FieldsOf(&mut with.v))?;
                with.end()
            }
            _ => self.inner.serialize_newtype_variant(name, index, variant, value),
        }
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, S::Error> {
        Err(unsupported("serialize_struct"))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        let v = self.inner.serialize_struct_variant(name, index, variant, len)?;
        Ok(WithExtra { v, extra: self.extra })
    }
}

/// A struct variant that writes the extra fields before it ends.
struct WithExtra<'x, V, X> {
    v: V,
    extra: &'x X,
}

impl<V: SerializeStructVariant, X: ExtraFields> SerializeStructVariant for WithExtra<'_, V, X> {
    type Ok = V::Ok;
    type Error = V::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), V::Error> {
        self.v.serialize_field(key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), V::Error> {
        self.v.skip_field(key)
    }

    fn end(mut self) -> Result<V::Ok, V::Error> {
        self.extra.serialize_fields(&mut self.v)?;
        self.v.end()
    }
}

/// What [`IsStruct`] found.
#[derive(Debug)]
enum Probed {
    /// A struct of this many fields.
    Struct(usize),
    Other,
}

impl fmt::Display for Probed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for Probed {}

impl ser::Error for Probed {
    fn custom<T: fmt::Display>(_: T) -> Probed {
        Probed::Other
    }
}

/// A serializer that only finds out whether a value is a struct, and stops.
struct IsStruct;

impl Serializer for IsStruct {
    type Ok = ();
    type Error = Probed;
    type SerializeSeq = Impossible<(), Probed>;
    type SerializeTuple = Impossible<(), Probed>;
    type SerializeTupleStruct = Impossible<(), Probed>;
    type SerializeTupleVariant = Impossible<(), Probed>;
    type SerializeMap = Impossible<(), Probed>;
    type SerializeStruct = Impossible<(), Probed>;
    type SerializeStructVariant = Impossible<(), Probed>;

    refuse_values!();

    refuse! {
        serialize_unit_variant(&'static str, u32, &'static str) -> Ok;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> SerializeStructVariant;
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Probed> {
        Err(Probed::Other)
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self::SerializeStruct, Probed> {
        Err(Probed::Struct(len))
    }
}

/// A serializer that writes a struct's fields into a struct variant.
struct FieldsOf<'v, V>(&'v mut V);

impl<'v, V: SerializeStructVariant> Serializer for FieldsOf<'v, V> {
    type Ok = ();
    type Error = V::Error;
    type SerializeSeq = Impossible<(), V::Error>;
    type SerializeTuple = Impossible<(), V::Error>;
    type SerializeTupleStruct = Impossible<(), V::Error>;
    type SerializeTupleVariant = Impossible<(), V::Error>;
    type SerializeMap = Impossible<(), V::Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), V::Error>;

    refuse_values!();

    refuse! {
        serialize_unit_variant(&'static str, u32, &'static str) -> Ok;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> SerializeStructVariant;
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), V::Error> {
        Err(unsupported("serialize_newtype_variant"))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, V::Error> {
        Ok(self)
    }
}

impl<V: SerializeStructVariant> SerializeStruct for FieldsOf<'_, V> {
    type Ok = ();
    type Error = V::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), V::Error> {
        self.0.serialize_field(key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), V::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<(), V::Error> {
        Ok(())
    }
}
