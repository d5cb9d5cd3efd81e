//! The material kinds as the scene has them: the model ([`MaterialKind`], whose serde
//! attributes are its form in a scene file, both ways) and the texture fields each
//! kind's text takes (docs/architecture.md, "Adding a material kind").
//!
//! Not here: the checks of its parameters (`validate.rs`, `Checker::material_kind`),
//! a material's name and textures, which every kind shares (`model/mod.rs`,
//! `validate.rs`), how textures are written inside a kind's parentheses (`model/text.rs`),
//! and a kind's blob record (`blob/materials.rs`).

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::values;

/// How a Principled surface's alpha (its `alpha` times its base colour texture's alpha)
/// cuts it out (glTF `alphaMode`): not at all, where it is below a cutoff, or with that
/// probability (stochastic transparency).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename = "AlphaMode", deny_unknown_fields)]
pub enum AlphaMode {
    #[default]
    Opaque,
    Mask(f32),
    Blend,
}

/// The glTF 2.0 metallic-roughness material (its specification's Appendix B, with the
/// transmission, ior and emissive-strength extensions; docs/path-tracing.md,
/// "Principled"). Its textures are the material's (`Material::texture` is the base
/// colour texture, `Material::maps` the others). Every field of a file's may be left
/// out, for glTF's default ([`Principled::default`]); the fields after `roughness` are
/// written only away from it, as an exporter leaves them out.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Principled", default, deny_unknown_fields)]
pub struct Principled {
    #[serde(with = "values::v3")]
    pub base_color: Vec3,
    pub metallic: f32,
    pub roughness: f32,
    #[serde(skip_serializing_if = "is_gltf_ior")]
    pub ior: f32,
    #[serde(skip_serializing_if = "values::is_zero")]
    pub transmission: f32,
    #[serde(with = "values::v3", skip_serializing_if = "values::is_zero3")]
    pub emission: Vec3,
    #[serde(skip_serializing_if = "values::is_one")]
    pub emission_strength: f32,
    #[serde(skip_serializing_if = "values::is_one")]
    pub normal_scale: f32,
    #[serde(skip_serializing_if = "values::is_one")]
    pub alpha: f32,
    #[serde(skip_serializing_if = "values::is_default")]
    pub alpha_mode: AlphaMode,
}

/// Whether `ior` is glTF's default.
fn is_gltf_ior(ior: &f32) -> bool {
    *ior == Principled::default().ior
}

impl Default for Principled {
    /// glTF's defaults: white, fully metallic and fully rough, ior 1.5, opaque.
    fn default() -> Principled {
        Principled {
            base_color: Vec3::ONE,
            metallic: 1.0,
            roughness: 1.0,
            ior: 1.5,
            transmission: 0.0,
            emission: Vec3::ZERO,
            emission_strength: 1.0,
            normal_scale: 1.0,
            alpha: 1.0,
            alpha_mode: AlphaMode::Opaque,
        }
    }
}

/// The material kinds a user can write. A file writes a material's textures inside its
/// kind's parentheses, after the kind's fields (`model/text.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Material", deny_unknown_fields)]
pub enum MaterialKind {
    Lambert {
        #[serde(with = "values::v3")]
        albedo: Vec3,
    },
    Metal {
        #[serde(with = "values::v3")]
        albedo: Vec3,
        #[serde(default)]
        fuzz: f32,
    },
    Dielectric {
        ior: f32,
    },
    /// An emitter; a non-zero `albedo` also reflects diffusely (a glowing Lambert
    /// surface), and is written only then.
    Emissive {
        #[serde(with = "values::v3")]
        color: Vec3,
        #[serde(default = "values::one")]
        strength: f32,
        #[serde(with = "values::v3", default, skip_serializing_if = "values::is_zero3")]
        albedo: Vec3,
    },
    Principled(Principled),
}

/// The textures of a material other than its colour texture: the Principled kind's maps
/// (`Material::maps`), in the order of [`MAP_FIELDS`].
pub const MAP_COUNT: usize = 3;
/// Their fields in a file, in [`crate::scene::Maps::slots`] order.
pub const MAP_FIELDS: [&str; MAP_COUNT] =
    ["metallic_roughness_texture", "emission_texture", "normal_texture"];

impl MaterialKind {
    /// The texture fields the kind named `kind` takes in a file: its colour texture's
    /// (`base_color_texture` for a Principled, glTF's name, `texture` for the others;
    /// none for glass), then a Principled's maps ([`MAP_FIELDS`]).
    pub(crate) fn texture_fields(kind: &str) -> &'static [&'static str] {
        const PRINCIPLED: [&str; 1 + MAP_COUNT] =
            ["base_color_texture", MAP_FIELDS[0], MAP_FIELDS[1], MAP_FIELDS[2]];
        match kind {
            "Dielectric" => &[],
            "Principled" => &PRINCIPLED,
            _ => &["texture"],
        }
    }

    /// Its name, as a file writes it.
    pub fn name(&self) -> &'static str {
        match self {
            MaterialKind::Lambert { .. } => "Lambert",
            MaterialKind::Metal { .. } => "Metal",
            MaterialKind::Dielectric { .. } => "Dielectric",
            MaterialKind::Emissive { .. } => "Emissive",
            MaterialKind::Principled(_) => "Principled",
        }
    }

    /// Whether a texture may multiply its colour (glass has none).
    pub fn takes_texture(&self) -> bool {
        !MaterialKind::texture_fields(self.name()).is_empty()
    }

    /// The field its colour texture is written in.
    pub fn texture_field(&self) -> &'static str {
        MaterialKind::texture_fields(self.name()).first().copied().unwrap_or("texture")
    }

    /// Whether it takes the other textures ([`MAP_FIELDS`]).
    pub fn takes_maps(&self) -> bool {
        MaterialKind::texture_fields(self.name()).len() > 1
    }
}

/// One material of every kind, every parameter away from its default and the blob's
/// neutral values: what the schema tests (`reflect.rs`) write, read back and validate,
/// and the record tests (`blob/materials.rs`) encode and read back.
#[cfg(test)]
pub(crate) fn every_kind() -> Vec<MaterialKind> {
    vec![
        MaterialKind::Lambert { albedo: Vec3::new(0.5, 0.25, 0.125) },
        MaterialKind::Metal { albedo: Vec3::splat(0.75), fuzz: 0.25 },
        MaterialKind::Dielectric { ior: 1.5 },
        MaterialKind::Emissive { color: Vec3::ONE, strength: 4.0, albedo: Vec3::splat(0.5) },
        MaterialKind::Principled(Principled {
            base_color: Vec3::new(0.5, 0.25, 0.125),
            metallic: 0.25,
            roughness: 0.5,
            ior: 1.25,
            transmission: 0.75,
            emission: Vec3::new(0.5, 0.5, 0.25),
            emission_strength: 2.0,
            normal_scale: 0.5,
            alpha: 0.75,
            alpha_mode: AlphaMode::Mask(0.25),
        }),
    ]
}

/// [`every_kind`] with every parameter NaN: each one is reported.
#[cfg(test)]
pub(super) fn every_kind_wrong() -> Vec<MaterialKind> {
    let nan = Vec3::NAN;
    vec![
        MaterialKind::Lambert { albedo: nan },
        MaterialKind::Metal { albedo: nan, fuzz: f32::NAN },
        MaterialKind::Dielectric { ior: f32::NAN },
        MaterialKind::Emissive { color: nan, strength: f32::NAN, albedo: nan },
        MaterialKind::Principled(Principled {
            base_color: nan,
            metallic: f32::NAN,
            roughness: f32::NAN,
            ior: f32::NAN,
            transmission: f32::NAN,
            emission: nan,
            emission_strength: f32::NAN,
            normal_scale: f32::NAN,
            alpha: f32::NAN,
            alpha_mode: AlphaMode::Mask(f32::NAN),
        }),
    ]
}
