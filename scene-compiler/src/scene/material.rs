//! The material kinds, each in one place: the model ([`MaterialKind`], whose serde
//! attributes are its form in a scene file, both ways), the texture fields each kind's
//! text takes, the checks of its parameters and its blob record (written for the blob,
//! read back and checked when a blob is loaded). Adding a kind here and its twins in
//! the backends is all a new kind needs (docs/architecture.md, "Adding a material kind").
//!
//! Not here: a material's name and textures, which every kind shares (`model.rs`,
//! `validate.rs`), and how textures are written inside a kind's parentheses (`text.rs`).

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::spans::ValuePath;
use super::text;
use super::validate::Checker;
use crate::blob::layout::{
    ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, MATERIAL_DIELECTRIC, MATERIAL_EMISSIVE, MATERIAL_LAMBERT,
    MATERIAL_METAL, MATERIAL_PRINCIPLED, MaterialRecord, NO_TEXTURE,
};

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
    #[serde(with = "text::v3")]
    pub base_color: Vec3,
    pub metallic: f32,
    pub roughness: f32,
    #[serde(skip_serializing_if = "is_gltf_ior")]
    pub ior: f32,
    #[serde(skip_serializing_if = "text::is_zero")]
    pub transmission: f32,
    #[serde(with = "text::v3", skip_serializing_if = "text::is_zero3")]
    pub emission: Vec3,
    #[serde(skip_serializing_if = "text::is_one")]
    pub emission_strength: f32,
    #[serde(skip_serializing_if = "text::is_one")]
    pub normal_scale: f32,
    #[serde(skip_serializing_if = "text::is_one")]
    pub alpha: f32,
    #[serde(skip_serializing_if = "text::is_default")]
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

impl Principled {
    /// [`MaterialKind::check`] of a Principled.
    fn check(
        &self,
        c: &mut Checker,
        what: &dyn Fn(&str) -> String,
        path: &dyn Fn(&'static str) -> ValuePath,
    ) {
        let at = |name: &'static str| move || path(name);
        let unit = |f: f32| (0.0..=1.0).contains(&f);
        for (k, channel) in self.base_color.to_array().into_iter().enumerate() {
            c.check(channel, &what("base_color"), &|| path("base_color").index(k), unit, "between 0 and 1");
        }
        for (value, name) in [
            (self.metallic, "metallic"),
            (self.roughness, "roughness"),
            (self.transmission, "transmission"),
            (self.alpha, "alpha"),
        ] {
            c.check(value, &what(name), &at(name), unit, "between 0 and 1");
        }
        if let Some(issue) = c.check(self.ior, &what("ior"), &at("ior"), |v| v >= 1.0, "at least 1") {
            issue.set_hint("the index of refraction of glass is about 1.5, of water 1.33");
        }
        c.non_negative3(self.emission, &what("emission"), &at("emission"));
        c.non_negative(self.emission_strength, &what("emission_strength"), &at("emission_strength"));
        let product = what("emission` times `emission_strength");
        c.radiance_product(self.emission, self.emission_strength, &product, &at("emission_strength"));
        c.non_negative(self.normal_scale, &what("normal_scale"), &at("normal_scale"));
        if let AlphaMode::Mask(cutoff) = self.alpha_mode {
            c.check(cutoff, &what("alpha_mode"), &at("alpha_mode"), unit, "a cutoff between 0 and 1");
        }
    }
}

/// The material kinds a user can write. A file writes a material's textures inside its
/// kind's parentheses, after the kind's fields (`text.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Material", deny_unknown_fields)]
pub enum MaterialKind {
    Lambert {
        #[serde(with = "text::v3")]
        albedo: Vec3,
    },
    Metal {
        #[serde(with = "text::v3")]
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
        #[serde(with = "text::v3")]
        color: Vec3,
        #[serde(default = "text::one")]
        strength: f32,
        #[serde(with = "text::v3", default, skip_serializing_if = "text::is_zero3")]
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
        text::variant_name(self)
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

    /// Reports every parameter out of range. `what` names one of its fields in a
    /// message, `path` gives that field's path.
    pub(super) fn check(
        &self,
        c: &mut Checker,
        what: &dyn Fn(&str) -> String,
        path: &dyn Fn(&'static str) -> ValuePath,
    ) {
        let at = |name: &'static str| move || path(name);
        match *self {
            MaterialKind::Lambert { albedo } => c.non_negative3(albedo, &what("albedo"), &at("albedo")),
            MaterialKind::Metal { albedo, fuzz } => {
                c.non_negative3(albedo, &what("albedo"), &at("albedo"));
                let unit = |f| (0.0..=1.0).contains(&f);
                c.check(fuzz, &what("fuzz"), &at("fuzz"), unit, "between 0 and 1");
            }
            MaterialKind::Dielectric { ior } => {
                if let Some(issue) = c.check(ior, &what("ior"), &at("ior"), |v| v >= 1.0, "at least 1") {
                    issue.set_hint("the index of refraction of glass is about 1.5, of water 1.33");
                }
            }
            MaterialKind::Emissive { color, strength, albedo } => {
                c.non_negative3(color, &what("color"), &at("color"));
                c.non_negative(strength, &what("strength"), &at("strength"));
                c.non_negative3(albedo, &what("albedo"), &at("albedo"));
                c.radiance_product(color, strength, &what("color` times `strength"), &at("strength"));
            }
            MaterialKind::Principled(p) => p.check(c, what, path),
        }
    }

    /// Its blob record, without textures. Lanes the kind does not use hold neutral
    /// values (albedo 1, roughness 0, emission 0, ior 1, metallic and transmission 0,
    /// normal scale and alpha 1, opaque), so a material has one encoding and blobs
    /// compare byte for byte.
    pub fn record(&self) -> MaterialRecord {
        let neutral_pbr = [0.0, 0.0, 1.0, 1.0];
        let (kind, albedo, roughness, emission, ior) = match *self {
            MaterialKind::Lambert { albedo } => (MATERIAL_LAMBERT, albedo, 0.0, Vec3::ZERO, 1.0),
            MaterialKind::Metal { albedo, fuzz } => (MATERIAL_METAL, albedo, fuzz, Vec3::ZERO, 1.0),
            MaterialKind::Dielectric { ior } => (MATERIAL_DIELECTRIC, Vec3::ONE, 0.0, Vec3::ZERO, ior),
            MaterialKind::Emissive { color, strength, albedo } => {
                (MATERIAL_EMISSIVE, albedo, 0.0, color * strength, 1.0)
            }
            MaterialKind::Principled(p) => {
                let (alpha_mode, alpha_cutoff) = match p.alpha_mode {
                    AlphaMode::Opaque => (ALPHA_OPAQUE, 0.0),
                    AlphaMode::Mask(cutoff) => (ALPHA_MASK, cutoff),
                    AlphaMode::Blend => (ALPHA_BLEND, 0.0),
                };
                return MaterialRecord {
                    albedo_roughness: p.base_color.extend(p.roughness).to_array(),
                    emission_ior: (p.emission * p.emission_strength).extend(p.ior).to_array(),
                    pbr: [p.metallic, p.transmission, p.normal_scale, p.alpha],
                    textures: [NO_TEXTURE; 4],
                    kind: MATERIAL_PRINCIPLED,
                    alpha_mode,
                    alpha_cutoff,
                    reserved: 0,
                };
            }
        };
        MaterialRecord {
            albedo_roughness: albedo.extend(roughness).to_array(),
            emission_ior: emission.extend(ior).to_array(),
            pbr: neutral_pbr,
            textures: [NO_TEXTURE; 4],
            kind,
            alpha_mode: ALPHA_OPAQUE,
            alpha_cutoff: 0.0,
            reserved: 0,
        }
    }

    /// The kind a blob's record holds, or why the record cannot be rendered: an unknown
    /// kind, a lane that is not finite or is negative, a parameter out of range, or a
    /// lane the kind does not use that is not [`MaterialKind::record`]'s neutral value.
    /// An emitter comes back as `color` its radiance with `strength` 1. The record's
    /// texture and reserved lanes are the blob reader's to check.
    pub fn from_record(m: &MaterialRecord) -> Result<MaterialKind, String> {
        let lanes = [m.albedo_roughness, m.emission_ior, m.pbr];
        if !lanes.iter().flatten().chain([&m.alpha_cutoff]).all(|x| x.is_finite()) {
            return Err("non-finite parameter".into());
        }
        if lanes.iter().any(|l| l[..3].iter().any(|&x| x < 0.0)) {
            return Err("negative albedo or emission".into());
        }
        let [r, g, b, roughness] = m.albedo_roughness;
        let [er, eg, eb, ior] = m.emission_ior;
        let (albedo, emission) = (Vec3::new(r, g, b), Vec3::new(er, eg, eb));
        let unit = |x: f32| (0.0..=1.0).contains(&x);
        let kind = match m.kind {
            MATERIAL_LAMBERT => MaterialKind::Lambert { albedo },
            MATERIAL_METAL if (0.0..=1.0).contains(&roughness) => {
                MaterialKind::Metal { albedo, fuzz: roughness }
            }
            MATERIAL_DIELECTRIC if ior >= 1.0 => MaterialKind::Dielectric { ior },
            MATERIAL_EMISSIVE => MaterialKind::Emissive { color: emission, strength: 1.0, albedo },
            MATERIAL_PRINCIPLED => {
                let [metallic, transmission, normal_scale, alpha] = m.pbr;
                let alpha_mode = match m.alpha_mode {
                    ALPHA_OPAQUE => AlphaMode::Opaque,
                    ALPHA_MASK => AlphaMode::Mask(m.alpha_cutoff),
                    ALPHA_BLEND => AlphaMode::Blend,
                    mode => return Err(format!("unknown alpha mode {mode}")),
                };
                let cutoff = if let AlphaMode::Mask(c) = alpha_mode { c } else { 0.0 };
                if !(albedo
                    .to_array()
                    .into_iter()
                    .chain([roughness, metallic, transmission, alpha, cutoff])
                    .all(unit)
                    && ior >= 1.0
                    && normal_scale >= 0.0)
                {
                    return Err("a Principled parameter out of range".into());
                }
                MaterialKind::Principled(Principled {
                    base_color: albedo,
                    metallic,
                    roughness,
                    ior,
                    transmission,
                    emission,
                    emission_strength: 1.0,
                    normal_scale,
                    alpha,
                    alpha_mode,
                })
            }
            MATERIAL_METAL => return Err(format!("roughness {roughness} of a Metal is not between 0 and 1")),
            MATERIAL_DIELECTRIC => return Err(format!("ior {ior} below 1 for a Dielectric")),
            kind => return Err(format!("unknown material kind {kind}")),
        };
        // What each lane holds, to compare with the kind's own record by name.
        let parts = |r: &MaterialRecord| {
            let ([ar, ag, ab, roughness], [er, eg, eb, ior]) = (r.albedo_roughness, r.emission_ior);
            [
                ("albedo", vec![ar, ag, ab]),
                ("roughness", vec![roughness]),
                ("emission", vec![er, eg, eb]),
                ("ior", vec![ior]),
                ("pbr", r.pbr.to_vec()),
                ("alpha_mode", vec![r.alpha_mode as f32, r.alpha_cutoff]),
            ]
        };
        match parts(m).into_iter().zip(parts(&kind.record())).find(|(got, want)| got != want) {
            Some(((lane, got), (_, want))) => {
                Err(format!("{lane} {got:?} is not what material kind {} holds there ({want:?})", m.kind))
            }
            None => Ok(kind),
        }
    }
}

/// One material of every kind, every parameter away from its default and the blob's
/// neutral values: what the schema tests (`reflect.rs`) write, read back and validate.
#[cfg(test)]
pub(super) fn every_kind() -> Vec<MaterialKind> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind's record reads back as the kind (an emitter with its radiance as
    /// colour), and a record with any lane changed is refused or reads as another kind.
    #[test]
    fn records_read_back_and_refuse_stray_lanes() {
        for kind in every_kind() {
            let record = kind.record();
            let back = MaterialKind::from_record(&record).expect("a kind's own record");
            assert_eq!(back.record(), record, "{kind:?}");
            for lane in 0..12 {
                let mut changed = record;
                let x = match lane {
                    0..4 => &mut changed.albedo_roughness[lane],
                    4..8 => &mut changed.emission_ior[lane - 4],
                    _ => &mut changed.pbr[lane - 8],
                };
                *x = 2.0 * *x + 0.5;
                if let Ok(other) = MaterialKind::from_record(&changed) {
                    assert_eq!(other.record(), changed, "{kind:?}, lane {lane}");
                    assert_ne!(other, back, "{kind:?}, lane {lane}");
                }
            }
        }
    }
}
