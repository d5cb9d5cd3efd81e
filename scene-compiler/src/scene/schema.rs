//! The scene file as a user writes it: serde types for ron, with defaults.
//!
//! These mirror [`super::model`] but keep what only the text has: material names
//! in file order (duplicates included, so they can be reported), sphere material
//! references by name, and which optional fields were left out. Nothing here is
//! checked beyond its type; [`super::validate`] turns a [`SceneFile`] into a
//! [`super::Scene`]. The type names are the optional struct names a file may write
//! (`Scene(...)`, `camera: Camera(...)`), and appear in ron's messages.

use std::fmt;

use serde::{
    Deserialize, Deserializer,
    de::{MapAccess, Visitor},
};
use smol_str::SmolStr;

use super::list::ListItem;
use super::material::MaterialFile;
use super::model::{RenderSettings, Sky};
use super::validate::{settings_file, sky_file};

/// A vector written `(x, y, z)`.
pub(crate) type V3 = [f32; 3];

/// Declares [`SceneFile`] with the lists that [`scene_lists!`](crate::scene_lists)
/// names as written, in that order (ron's "expected one of" lists them so).
macro_rules! declare_scene_file {
    (written { $($(#[$doc:meta])* $written:ident: $W:ty,)* } compiled { $($compiled:tt)* }) => {
        /// The whole file: `Scene(camera: ..., materials: ..., spheres: ...)`.
        #[derive(Debug, Deserialize)]
        #[serde(rename = "Scene", deny_unknown_fields)]
        pub(crate) struct SceneFile {
            pub camera: CameraFile,
            #[serde(default)]
            pub settings: SettingsFile,
            #[serde(default)]
            pub sky: SkyFile,
            pub materials: MaterialEntries,
            $(
                #[serde(default)]
                pub $written: Vec<<$W as ListItem>::File>,
            )*
            #[serde(default)]
            pub lights: Vec<LightFile>,
        }
    };
}

crate::scene_lists!(declare_scene_file);

/// `camera: (look_from: ..., look_at: ..., vfov_deg: ...)`.
#[derive(Debug, Deserialize)]
#[serde(rename = "Camera", deny_unknown_fields)]
pub(crate) struct CameraFile {
    pub look_from: V3,
    pub look_at: V3,
    #[serde(default = "default_up")]
    pub up: V3,
    pub vfov_deg: f32,
    #[serde(default)]
    pub aperture: f32,
    /// `None` when left out: the loader uses `|look_from - look_at|`.
    #[serde(default)]
    pub focus_dist: Option<f32>,
}

/// `settings: (width: ..., ...)`; every field may be left out.
#[derive(Debug, Deserialize)]
#[serde(rename = "Settings", default, deny_unknown_fields)]
pub(crate) struct SettingsFile {
    pub width: u32,
    pub height: u32,
    pub spp: u32,
    pub max_depth: u32,
    pub seed: u32,
    /// Stops.
    pub exposure: f32,
    pub view: ViewFile,
    pub sampler: SamplerFile,
}

/// The settings' `view`: `Standard` (the default), `Agx` or `Filmic`
/// ([`super::model::ViewTransform`]).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename = "View")]
pub(crate) enum ViewFile {
    Standard,
    Agx,
    Filmic,
}

/// The settings' `sampler`: `Independent` (the default) or `Sobol`
/// ([`super::model::SamplerKind`]).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename = "Sampler")]
pub(crate) enum SamplerFile {
    Independent,
    Sobol,
}

impl Default for SettingsFile {
    fn default() -> SettingsFile {
        settings_file(RenderSettings::default())
    }
}

/// `sky: Gradient(bottom: ..., top: ...)`, `sky: Constant((r, g, b))` or
/// `sky: Environment(image: "sky.exr", strength: 1.0, rotation_deg: 0.0)`.
#[derive(Debug, Deserialize)]
#[serde(rename = "Sky", deny_unknown_fields)]
pub(crate) enum SkyFile {
    Gradient {
        bottom: V3,
        top: V3,
    },
    Constant(V3),
    Environment {
        image: String,
        #[serde(default = "one")]
        strength: f32,
        #[serde(default)]
        rotation_deg: f32,
    },
}

impl Default for SkyFile {
    fn default() -> SkyFile {
        sky_file(&Sky::default())
    }
}

/// A material's `texture`: `Image(file: "wood.png")`, `Checker(size: 1, even: ..., odd:
/// ...)` or `Noise(scale: 4)`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename = "Texture", deny_unknown_fields)]
pub(crate) enum TextureFile {
    Image {
        /// Relative to the scene file's folder.
        file: String,
        #[serde(default)]
        wrap: WrapFile,
        #[serde(default)]
        uv_transform: UvTransformFile,
    },
    Checker {
        size: f32,
        even: V3,
        odd: V3,
    },
    Noise {
        scale: f32,
    },
}

/// An image texture's `wrap`: `Repeat` (the default) or `Clamp`.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(rename = "Wrap")]
pub(crate) enum WrapFile {
    #[default]
    Repeat,
    Clamp,
}

/// An image texture's `uv_transform: (offset: (x, y), rotation_deg: a, scale: (sx, sy))`
/// (glTF's `KHR_texture_transform`); every field may be left out (the identity).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename = "UvTransform", default, deny_unknown_fields)]
pub(crate) struct UvTransformFile {
    pub offset: [f32; 2],
    pub rotation_deg: f32,
    pub scale: [f32; 2],
}

impl Default for UvTransformFile {
    fn default() -> UvTransformFile {
        UvTransformFile { offset: [0.0; 2], rotation_deg: 0.0, scale: [1.0; 2] }
    }
}

/// The `materials: { "name": kind, ... }` map as written: file order, duplicates kept.
#[derive(Debug)]
pub(crate) struct MaterialEntries(pub Vec<(String, MaterialFile)>);

impl<'de> Deserialize<'de> for MaterialEntries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MaterialEntries, D::Error> {
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// Collects map entries into a list instead of a map, so order and duplicates survive.
struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = MaterialEntries;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of material names to materials")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MaterialEntries, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(MaterialEntries(entries))
    }
}

/// `(file: "grid.ply", materials: ["ground", "glass"], transform: (...))`: the spheres of
/// a PLY point list (`scene/sphere_file.rs`).
#[derive(Debug, Deserialize)]
#[serde(rename = "SphereFile", deny_unknown_fields)]
pub(crate) struct SphereListFile {
    pub file: String,
    /// What the file's `material` indices name; exactly one when it has none.
    pub materials: Vec<SmolStr>,
    #[serde(default)]
    pub transform: TransformFile,
}

/// `(file: "models/bunny.ply", material: "clay", transform: (...))`: a model file's triangles.
#[derive(Debug, Deserialize)]
#[serde(rename = "Mesh", deny_unknown_fields)]
pub(crate) struct MeshFile {
    pub file: String,
    /// Required until a model's own materials are mapped (docs/scene-format.md).
    #[serde(default)]
    pub material: Option<SmolStr>,
    #[serde(default)]
    pub transform: TransformFile,
}

/// `transform: (translate: (x, y, z), rotate_deg: (x, y, z), scale: s)`; every field
/// may be left out (identity).
#[derive(Debug, Deserialize)]
#[serde(rename = "Transform", default, deny_unknown_fields)]
pub(crate) struct TransformFile {
    pub translate: V3,
    pub rotate_deg: V3,
    pub scale: f32,
}

impl Default for TransformFile {
    fn default() -> TransformFile {
        TransformFile { translate: [0.0; 3], rotate_deg: [0.0; 3], scale: 1.0 }
    }
}

/// `Heightmap(image: "city.png", ...)`: a grayscale image whose pixels are columns of boxes.
#[derive(Debug, Deserialize)]
#[serde(rename = "Terrain", deny_unknown_fields)]
pub(crate) enum TerrainFile {
    Heightmap {
        /// Relative to the scene file's folder.
        image: String,
        #[serde(default)]
        origin: V3,
        #[serde(default = "one")]
        cell: f32,
        #[serde(default = "one")]
        height_scale: f32,
        /// One material for every column; or `palette`, not both.
        #[serde(default)]
        material: Option<String>,
        #[serde(default)]
        palette: Vec<BandFile>,
    },
}

/// `(from: 10.0, material: "brick")`: columns at least this tall (in scene units) and
/// below the next band's `from` take this material.
#[derive(Debug, Deserialize)]
#[serde(rename = "Band", deny_unknown_fields)]
pub(crate) struct BandFile {
    pub from: f32,
    pub material: String,
}

/// `Point(position: ...)` or `Directional(direction: ...)`.
#[derive(Debug, Deserialize)]
#[serde(rename = "Light", deny_unknown_fields)]
pub(crate) enum LightFile {
    Point {
        position: V3,
        #[serde(default = "white")]
        color: V3,
        #[serde(default = "one")]
        intensity: f32,
    },
    Directional {
        direction: V3,
        #[serde(default = "white")]
        color: V3,
        #[serde(default = "one")]
        intensity: f32,
        #[serde(default)]
        angular_radius_deg: f32,
    },
}

pub(super) fn default_up() -> V3 {
    [0.0, 1.0, 0.0]
}

pub(super) fn white() -> V3 {
    [1.0, 1.0, 1.0]
}

pub(super) fn one() -> f32 {
    1.0
}
