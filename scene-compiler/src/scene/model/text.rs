//! What serde's derive on the model cannot say by itself about how a scene is written
//! (docs/scene-format.md), both ways: vectors as tuples, material references as the
//! materials' names, enums whose newtype variants holding a struct are written as
//! struct variants (`Environment(image: ...)`, `Principled(base_color: ...)`), and
//! records with fields the model keeps elsewhere (a material's textures, a terrain's
//! surface), written inside the record's parentheses. What a text says that the model
//! cannot hold (the names of unknown materials, a camera's `focus_dist` left out, a
//! terrain with both a material and a palette) is kept in [`Written`] for the checks.
//!
//! Everything else about the format is the model's serde attributes (`model/mod.rs`,
//! `material.rs`): field names, defaults, and which values the writer leaves out.
//!
//! Not here: the layout of the text (`write.rs`), reading the files a scene names
//! (`load.rs`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use serde::de::{
    self, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::ser::{self, Impossible, SerializeStruct, SerializeStructVariant};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smol_str::SmolStr;

use super::{Band, Maps, Material, PlacedInstance, Scene, Terrain, TerrainSurface, Texture, Transform};
use crate::scene::material::{MAP_FIELDS, MaterialKind};

/// What a text says that its model cannot hold, gathered while ron reads it.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// The material names the text refers to, each once, in the order first met: a
    /// reference reads as its name's position here, until [`Written::resolve`].
    names: Vec<SmolStr>,
    ids: HashMap<SmolStr, u32>,
    /// After [`Written::resolve`], the names no material has, by the index that stands
    /// for them in the model.
    unknown: HashMap<u32, SmolStr>,
    /// Whether the camera's `focus_dist` was written (else it is the distance to
    /// `look_at`, and has nothing of its own to check).
    pub focus_dist: bool,
    /// The terrains that name both a `material` and a `palette` (the model keeps the
    /// palette).
    pub terrains_with_both: Vec<usize>,
}

/// The indices that stand for unknown material names count down from here: far above
/// the materials a scene may have (`limits::MAX_MATERIALS`).
const UNKNOWN: u32 = u32::MAX;

/// A walk over every material reference of a scene, calling its function with each
/// (`list.rs`'s `each_material_reference`).
pub(crate) type EachReference = fn(&mut Scene, &mut dyn FnMut(&mut u32));

impl Written {
    /// The index that stands for material `name` until [`Written::resolve`].
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// Turns the scene's material references into indices of its materials (the first
    /// definition of a name wins); a name no material has becomes an index past them,
    /// which the checks report by name ([`Written::unknown_name`]). A camera that left
    /// `focus_dist` out gets the distance to `look_at`. `each_reference` calls its
    /// function with every material reference of the scene (`list.rs`'s walk).
    pub(crate) fn resolve(&mut self, scene: &mut Scene, each_reference: EachReference) {
        let mut index: HashMap<&str, u32> = HashMap::with_capacity(scene.materials.len());
        for (i, m) in scene.materials.iter().enumerate() {
            index.entry(m.name.as_str()).or_insert(i as u32);
        }
        let resolved: Vec<u32> = self
            .names
            .iter()
            .enumerate()
            .map(|(id, name)| match index.get(name.as_str()) {
                Some(&m) => m,
                None => {
                    let stand_in = UNKNOWN - id as u32;
                    self.unknown.insert(stand_in, name.clone());
                    stand_in
                }
            })
            .collect();
        each_reference(scene, &mut |m| *m = resolved[*m as usize]);
        if !self.focus_dist {
            let camera = &mut scene.camera;
            camera.focus_dist = (camera.look_at - camera.look_from).length();
        }
    }

    /// The name the text wrote for material index `m`, when no material has it.
    pub(crate) fn unknown_name(&self, m: u32) -> Option<&str> {
        self.unknown.get(&m).map(SmolStr::as_str)
    }
}

/// The material names of the scene being written or read: serde's derive gives a
/// field no way to reach the scene's materials, and a name means nothing without them.
enum Names {
    /// Each material's name, by index.
    Writing(Vec<String>),
    Reading(Written),
}

thread_local! {
    static NAMES: RefCell<Option<Names>> = const { RefCell::new(None) };
}

/// Runs `run` with `names` as what [`material`] reads or writes; returns them after.
fn with_names<T>(names: Names, run: impl FnOnce() -> T) -> (T, Names) {
    let previous = NAMES.with(|n| n.replace(Some(names)));
    let result = run();
    let names = NAMES.with(|n| n.replace(previous)).expect("set above");
    (result, names)
}

/// Runs `write` with `materials`' names as what [`material`] writes.
pub(crate) fn writing<T>(materials: &[Material], write: impl FnOnce() -> T) -> T {
    with_names(Names::Writing(materials.iter().map(|m| m.name.clone()).collect()), write).0
}

/// Runs `read` (ron reading a scene) and returns with it what the text said that the
/// model cannot hold.
pub(crate) fn reading<T>(read: impl FnOnce() -> T) -> (T, Written) {
    match with_names(Names::Reading(Written::default()), read) {
        (result, Names::Reading(written)) => (result, written),
        (_, Names::Writing(_)) => unreachable!("`with_names` hands back what it was given"),
    }
}

/// What is being read, to note what the model cannot hold.
fn written<T>(note: impl FnOnce(&mut Written) -> T) -> Option<T> {
    NAMES.with(|n| match n.borrow_mut().as_mut() {
        Some(Names::Reading(written)) => Some(note(written)),
        _ => None,
    })
}

/// The camera's `focus_dist`, noting that it was written (`Some(8)` or `8`).
pub(crate) fn focus_dist<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    let value = Option::<f32>::deserialize(d)?;
    if value.is_some() {
        written(|w| w.focus_dist = true);
    }
    Ok(value.unwrap_or(0.0))
}

/// A material index written as its material's name. An index with no material (only
/// possible in a hand-built `Scene`) is written `"#<index>"`, which reads back as an
/// unknown name. Read, a name stands for itself until [`Written::resolve`].
pub(crate) mod material {
    use super::*;

    pub fn serialize<S: Serializer>(index: &u32, s: S) -> Result<S::Ok, S::Error> {
        NAMES.with(|names| match names.borrow().as_ref() {
            Some(Names::Writing(names)) if (*index as usize) < names.len() => {
                s.serialize_str(&names[*index as usize])
            }
            _ => s.serialize_str(&format!("#{index}")),
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        d.deserialize_str(NameVisitor)
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

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
            Ok(Option::<Name>::deserialize(d)?.map(|n| n.0))
        }
    }

    /// `Vec<u32>`: a sphere file's materials.
    pub mod list {
        use super::*;

        pub fn serialize<S: Serializer>(indices: &[u32], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(indices.iter().map(|&i| Name(i)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
            Ok(Vec::<Name>::deserialize(d)?.into_iter().map(|n| n.0).collect())
        }
    }

    /// One material index, as [`serialize`] writes it and [`deserialize`] reads it.
    pub(super) struct Name(pub u32);

    impl Serialize for Name {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            serialize(&self.0, s)
        }
    }

    impl<'de> Deserialize<'de> for Name {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
            deserialize(d).map(Name)
        }
    }

    struct NameVisitor;

    impl Visitor<'_> for NameVisitor {
        type Value = u32;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a material's name")
        }

        fn visit_str<E: de::Error>(self, name: &str) -> Result<u32, E> {
            written(|w| w.intern(name))
                .ok_or_else(|| E::custom("a material name is read only with its scene"))
        }
    }
}

/// A mesh's instance as written: a transform's fields, and the `material` that replaces
/// the mesh's. `Transform` cannot be flattened into it: serde's `flatten` does not go
/// with `deny_unknown_fields`, which a misspelt field needs for its message.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename = "Instance", default, deny_unknown_fields)]
pub(crate) struct InstanceText {
    #[serde(with = "crate::scene::values::v3")]
    translate: glam::Vec3,
    #[serde(with = "crate::scene::values::v3")]
    rotate_deg: glam::Vec3,
    #[serde(with = "crate::scene::values::scale")]
    scale: glam::Vec3,
    #[serde(with = "material::option", skip_serializing_if = "Option::is_none")]
    material: Option<u32>,
}

impl Default for InstanceText {
    fn default() -> InstanceText {
        PlacedInstance::default().into()
    }
}

impl From<InstanceText> for PlacedInstance {
    fn from(i: InstanceText) -> PlacedInstance {
        let transform = Transform { translate: i.translate, rotate_deg: i.rotate_deg, scale: i.scale };
        PlacedInstance { transform, material: i.material }
    }
}

impl From<PlacedInstance> for InstanceText {
    fn from(p: PlacedInstance) -> InstanceText {
        let Transform { translate, rotate_deg, scale } = p.transform;
        InstanceText { translate, rotate_deg, scale, material: p.material }
    }
}

/// Fields a record's text has besides those of the model type that serde writes for it.
/// A unit variant has none.
trait ExtraFields {
    /// Writes them after the record's own fields.
    fn serialize_fields<V: SerializeStructVariant>(&self, v: &mut V) -> Result<(), V::Error>;
}

/// Reads the fields [`ExtraFields`] writes: the reading side of a record with fields the
/// model keeps elsewhere.
trait TakeFields {
    /// The fields variant `variant` has besides its own.
    fn fields(&self, variant: &str) -> &'static [&'static str];

    /// Reads field `name`'s value (one of [`TakeFields::fields`]) from `map`.
    fn take<'de, A: MapAccess<'de>>(&mut self, name: &'static str, map: A) -> Result<(), A::Error>;
}

/// No extra fields: only newtype variants holding a struct are written as struct variants.
struct NoExtra;

impl ExtraFields for NoExtra {
    fn serialize_fields<V: SerializeStructVariant>(&self, _: &mut V) -> Result<(), V::Error> {
        Ok(())
    }
}

impl TakeFields for NoExtra {
    fn fields(&self, _: &str) -> &'static [&'static str] {
        &[]
    }

    fn take<'de, A: MapAccess<'de>>(&mut self, _: &'static str, _: A) -> Result<(), A::Error> {
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

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        read_enum(d, &mut NoExtra)
    }
}

/// A material's kind with its textures inside the kind's parentheses.
struct Textures<'a>(&'a Material);

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

/// The textures read with a material's kind.
#[derive(Default)]
struct TexturesRead {
    texture: Option<Texture>,
    maps: [Option<Texture>; MAP_FIELDS.len()],
}

impl TakeFields for TexturesRead {
    fn fields(&self, variant: &str) -> &'static [&'static str] {
        MaterialKind::texture_fields(variant)
    }

    /// A texture field may be written `None`, or `Some(...)`, as any optional field.
    fn take<'de, A: MapAccess<'de>>(&mut self, name: &'static str, mut map: A) -> Result<(), A::Error> {
        let texture = map.next_value()?;
        match MAP_FIELDS.iter().position(|&f| f == name) {
            Some(i) => self.maps[i] = texture,
            None => self.texture = texture,
        }
        Ok(())
    }
}

/// `#[serde(with)]` for the scene's materials: a map of names to kinds with their
/// textures, in the scene's order, a name written twice kept twice (for its message).
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

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Material>, D::Error> {
        d.deserialize_map(MaterialsVisitor)
    }

    struct MaterialsVisitor;

    impl<'de> Visitor<'de> for MaterialsVisitor {
        type Value = Vec<Material>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map of material names to materials")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Material>, A::Error> {
            let mut materials = Vec::new();
            while let Some(name) = map.next_key::<String>()? {
                let mut textures = TexturesRead::default();
                let kind = map.next_value_seed(Kind(&mut textures))?;
                let TexturesRead { texture, maps } = textures;
                materials.push(Material { name, kind, texture, maps: Maps::from_slots(maps) });
            }
            Ok(materials)
        }
    }

    /// A material's kind, its textures read into the `TexturesRead`.
    struct Kind<'t>(&'t mut TexturesRead);

    impl<'de> DeserializeSeed<'de> for Kind<'_> {
        type Value = MaterialKind;

        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<MaterialKind, D::Error> {
            read_enum(d, self.0)
        }
    }
}

/// A terrain's kind: the text writes a terrain as `Heightmap(...)`, the one kind there is.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Terrain", deny_unknown_fields)]
pub(crate) enum TerrainKind<T> {
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

/// A terrain's `material` and `palette` as read.
#[derive(Default)]
struct SurfaceRead {
    material: Option<u32>,
    palette: Vec<Band>,
}

/// The fields of a terrain's surface.
pub(crate) const SURFACE_FIELDS: &[&str] = &["material", "palette"];

impl TakeFields for SurfaceRead {
    fn fields(&self, _: &str) -> &'static [&'static str] {
        SURFACE_FIELDS
    }

    fn take<'de, A: MapAccess<'de>>(&mut self, name: &'static str, mut map: A) -> Result<(), A::Error> {
        if name == "material" {
            self.material = map.next_value::<Option<material::Name>>()?.map(|n| n.0);
        } else {
            self.palette = map.next_value()?;
        }
        Ok(())
    }
}

/// `#[serde(with)]` for the scene's terrains: each a `Heightmap(...)` with its surface.
/// A terrain with neither a material nor a palette gets an empty palette, one with
/// both its palette (noted in [`Written`]): the checks report them.
pub(crate) mod terrains {
    use super::*;

    pub fn serialize<S: Serializer>(terrains: &[Terrain], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(terrains.iter().map(|t| Spliced(TerrainKind::Heightmap(t), Surface(&t.surface))))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Terrain>, D::Error> {
        d.deserialize_seq(TerrainsVisitor)
    }

    struct TerrainsVisitor;

    impl<'de> Visitor<'de> for TerrainsVisitor {
        type Value = Vec<Terrain>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of terrains")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Terrain>, A::Error> {
            let mut terrains = Vec::new();
            while let Some((terrain, both)) = seq.next_element_seed(OneTerrain)? {
                if both {
                    written(|w| w.terrains_with_both.push(terrains.len()));
                }
                terrains.push(terrain);
            }
            Ok(terrains)
        }
    }

    /// One terrain, and whether it named both a material and a palette.
    struct OneTerrain;

    impl<'de> DeserializeSeed<'de> for OneTerrain {
        type Value = (Terrain, bool);

        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(Terrain, bool), D::Error> {
            let mut surface = SurfaceRead::default();
            let TerrainKind::Heightmap::<Terrain>(mut terrain) = read_enum(d, &mut surface)?;
            let both = surface.material.is_some() && !surface.palette.is_empty();
            terrain.surface = match (surface.material, both) {
                (Some(m), false) => TerrainSurface::Material(m),
                _ => TerrainSurface::Palette(surface.palette),
            };
            Ok((terrain, both))
        }
    }
}

/// `value` (an enum) with `extra`'s fields in its variant, and a newtype variant holding
/// a struct written as a struct variant.
struct Spliced<T, X>(T, X);

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
        match value.serialize(Probe) {
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

/// What [`Probe`] found.
#[derive(Debug)]
enum Probed {
    /// A struct of this many fields.
    Struct(usize),
    /// An enum's variant.
    Variant,
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

/// A serializer that only finds out what kind of value it is given, and stops.
struct Probe;

impl Serializer for Probe {
    type Ok = ();
    type Error = Probed;
    type SerializeSeq = Impossible<(), Probed>;
    type SerializeTuple = Impossible<(), Probed>;
    type SerializeTupleStruct = Impossible<(), Probed>;
    type SerializeTupleVariant = Impossible<(), Probed>;
    type SerializeMap = Impossible<(), Probed>;
    type SerializeStruct = Impossible<(), Probed>;
    type SerializeStructVariant = Impossible<(), Probed>;

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

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Probed> {
        Err(Probed::Other)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<(), Probed> {
        Err(Probed::Other)
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Probed> {
        Err(Probed::Variant)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Probed> {
        Err(Probed::Variant)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Probed> {
        Err(Probed::Variant)
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self::SerializeStruct, Probed> {
        Err(Probed::Struct(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Probed> {
        Err(Probed::Variant)
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

/// Reads the enum `T` as [`Spliced`] writes it: a newtype variant holding a struct from
/// a struct variant of the struct's fields, and the fields `extra` takes from within
/// the variant's parentheses. Everything else is ron's, so its messages and positions
/// are those of any other value.
fn read_enum<'de, T, D, X>(d: D, extra: &mut X) -> Result<T, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
    X: TakeFields,
{
    T::deserialize(Enum { de: d, extra })
}

/// The deserializer [`read_enum`] hands the enum's `Deserialize`.
struct Enum<'x, D, X> {
    de: D,
    extra: &'x mut X,
}

impl<'de, D: Deserializer<'de>, X: TakeFields> Deserializer<'de> for Enum<'_, D, X> {
    type Error = D::Error;

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_enum(name, variants, EnumVisitor { visitor, extra: self.extra })
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, D::Error> {
        Err(de::Error::custom("`read_enum` reads enums only"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Reads the variant's name, so the variant knows which extra fields it takes.
struct EnumVisitor<'x, V, X> {
    visitor: V,
    extra: &'x mut X,
}

impl<'de, V: Visitor<'de>, X: TakeFields> Visitor<'de> for EnumVisitor<'_, V, X> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        let (Identifier(variant), access) = data.variant()?;
        self.visitor.visit_enum(Named { variant, access, extra: self.extra })
    }
}

/// A name as ron reads field and variant names.
struct Identifier(String);

impl<'de> Deserialize<'de> for Identifier {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Identifier, D::Error> {
        d.deserialize_identifier(IdentifierVisitor)
    }
}

struct IdentifierVisitor;

impl Visitor<'_> for IdentifierVisitor {
    type Value = Identifier;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Identifier, E> {
        Ok(Identifier(name.to_owned()))
    }
}

/// A variant whose name was read: the enum's `Deserialize` is handed the name again.
struct Named<'x, A, X> {
    variant: String,
    access: A,
    extra: &'x mut X,
}

impl<'de, 'x, A: VariantAccess<'de>, X: TakeFields> EnumAccess<'de> for Named<'x, A, X> {
    type Error = A::Error;
    type Variant = Variant<'x, A, X>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        let value = seed.deserialize(self.variant.as_str().into_deserializer())?;
        let fields = self.extra.fields(&self.variant);
        Ok((value, Variant { access: self.access, fields, extra: self.extra }))
    }
}

/// The variant's contents, with the extra fields it takes.
struct Variant<'x, A, X> {
    access: A,
    fields: &'static [&'static str],
    extra: &'x mut X,
}

impl<'de, A: VariantAccess<'de>, X: TakeFields> VariantAccess<'de> for Variant<'_, A, X> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.access.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        seed.deserialize(Contents(self))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.access.tuple_variant(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        own: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let fields = Fields { visitor, own, extra_fields: self.fields, extra: self.extra };
        self.access.struct_variant(own, fields)
    }
}

/// A newtype variant's contents: a struct is read from the variant's own parentheses,
/// anything else (`Constant((r, g, b))`) as the newtype it is.
struct Contents<'x, A, X>(Variant<'x, A, X>);

impl<'de, A: VariantAccess<'de>, X: TakeFields> Deserializer<'de> for Contents<'_, A, X> {
    type Error = A::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        own: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(own, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.access.newtype_variant_seed(Tuple { len, visitor })
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        self.0.access.newtype_variant_seed(Any(visitor))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple_struct map enum identifier ignored_any
    }
}

/// A newtype variant's tuple.
struct Tuple<V> {
    len: usize,
    visitor: V,
}

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Tuple<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_tuple(self.len, self.visitor)
    }
}

/// A newtype variant's value of any other kind.
struct Any<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Any<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// A struct variant's fields: its own go to its visitor, the extra ones to the
/// [`TakeFields`].
struct Fields<'x, V, X> {
    visitor: V,
    own: &'static [&'static str],
    extra_fields: &'static [&'static str],
    extra: &'x mut X,
}

impl<'de, V: Visitor<'de>, X: TakeFields> Visitor<'de> for Fields<'_, V, X> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let Fields { visitor, own, extra_fields, extra } = self;
        visitor.visit_map(Filter { map, own, extra_fields, extra, taken: Vec::new() })
    }
}

/// The map of a struct variant's fields with the extra ones taken out.
struct Filter<'x, A, X> {
    map: A,
    own: &'static [&'static str],
    extra_fields: &'static [&'static str],
    extra: &'x mut X,
    taken: Vec<&'static str>,
}

impl<'de, A: MapAccess<'de>, X: TakeFields> MapAccess<'de> for Filter<'_, A, X> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        while let Some(Identifier(key)) = self.map.next_key()? {
            if let Some(&name) = self.extra_fields.iter().find(|&&f| f == key) {
                if self.taken.contains(&name) {
                    return Err(de::Error::duplicate_field(name));
                }
                self.taken.push(name);
                self.extra.take(name, &mut self.map)?;
                continue;
            }
            if !self.own.contains(&key.as_str()) {
                return Err(de::Error::unknown_field(&key, all_fields(self.own, self.extra_fields)));
            }
            return seed.deserialize(key.into_deserializer()).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A record's own fields and its extra ones, as one list for "expected one of" messages:
/// made once per pair (a handful: one per material kind and the terrain) and kept, as
/// serde's messages take `'static` names.
fn all_fields(own: &'static [&'static str], extra: &'static [&'static str]) -> &'static [&'static str] {
    if extra.is_empty() {
        return own;
    }
    type Lists = Vec<((usize, usize), &'static [&'static str])>;
    static MADE: Mutex<Lists> = Mutex::new(Vec::new());
    let key = (own.as_ptr() as usize, extra.as_ptr() as usize);
    let mut made = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&(_, all)) = made.iter().find(|(k, _)| *k == key) {
        return all;
    }
    let all: &'static [&'static str] = Vec::leak([own, extra].concat());
    made.push((key, all));
    all
}
