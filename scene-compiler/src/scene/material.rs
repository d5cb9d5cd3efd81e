//! The material kinds, each in one place: the model ([`MaterialKind`]), the form a file
//! writes ([`MaterialFile`], ron's serde type), the checks of its parameters, the
//! lowering between the two, its RON text and its blob record (written for the blob,
//! read back and checked when a blob is loaded). Adding a kind here and its twins in
//! the backends is all a new kind needs (docs/architecture.md, "Adding a material kind").
//!
//! Not here: a material's name and texture, which every kind shares (`model.rs`,
//! `validate.rs`).

use glam::Vec3;
use serde::Deserialize;

use super::schema::{TextureFile, V3, one};
use super::spans::ValuePath;
use super::validate::Checker;
use super::write::v3;
use crate::blob::layout::{
    MATERIAL_DIELECTRIC, MATERIAL_EMISSIVE, MATERIAL_LAMBERT, MATERIAL_METAL, MaterialRecord, NO_TEXTURE,
};

/// The four material kinds a user can write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MaterialKind {
    Lambert {
        albedo: Vec3,
    },
    Metal {
        albedo: Vec3,
        fuzz: f32,
    },
    Dielectric {
        ior: f32,
    },
    /// An emitter; a non-zero `albedo` also reflects diffusely (a glowing Lambert surface).
    Emissive {
        color: Vec3,
        strength: f32,
        albedo: Vec3,
    },
}

/// One material kind with its parameters, e.g. `Metal(albedo: (0.7, 0.6, 0.5), fuzz: 0.1)`.
#[derive(Debug, Deserialize)]
#[serde(rename = "Material", deny_unknown_fields)]
pub(crate) enum MaterialFile {
    Lambert {
        albedo: V3,
        #[serde(default)]
        texture: Option<TextureFile>,
    },
    Metal {
        albedo: V3,
        #[serde(default)]
        fuzz: f32,
        #[serde(default)]
        texture: Option<TextureFile>,
    },
    Dielectric {
        ior: f32,
    },
    Emissive {
        color: V3,
        #[serde(default = "one")]
        strength: f32,
        #[serde(default)]
        albedo: V3,
        #[serde(default)]
        texture: Option<TextureFile>,
    },
}

impl MaterialFile {
    /// A kind as a file would write it, with `texture` where the kind takes one.
    pub(super) fn of(kind: MaterialKind, texture: Option<TextureFile>) -> MaterialFile {
        match kind {
            MaterialKind::Lambert { albedo } => MaterialFile::Lambert { albedo: albedo.to_array(), texture },
            MaterialKind::Metal { albedo, fuzz } => {
                MaterialFile::Metal { albedo: albedo.to_array(), fuzz, texture }
            }
            MaterialKind::Dielectric { ior } => MaterialFile::Dielectric { ior },
            MaterialKind::Emissive { color, strength, albedo } => MaterialFile::Emissive {
                color: color.to_array(),
                strength,
                albedo: albedo.to_array(),
                texture,
            },
        }
    }

    /// The kind it writes (after [`MaterialFile::check`] found nothing wrong).
    pub(super) fn lower(&self) -> MaterialKind {
        match *self {
            MaterialFile::Lambert { albedo, .. } => {
                MaterialKind::Lambert { albedo: Vec3::from_array(albedo) }
            }
            MaterialFile::Metal { albedo, fuzz, .. } => {
                MaterialKind::Metal { albedo: Vec3::from_array(albedo), fuzz }
            }
            MaterialFile::Dielectric { ior } => MaterialKind::Dielectric { ior },
            MaterialFile::Emissive { color, strength, albedo, .. } => MaterialKind::Emissive {
                color: Vec3::from_array(color),
                strength,
                albedo: Vec3::from_array(albedo),
            },
        }
    }

    /// Its texture; `None` also for a kind that takes none.
    pub(super) fn texture(&self) -> Option<&TextureFile> {
        match self {
            MaterialFile::Lambert { texture, .. }
            | MaterialFile::Metal { texture, .. }
            | MaterialFile::Emissive { texture, .. } => texture.as_ref(),
            MaterialFile::Dielectric { .. } => None,
        }
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
            MaterialFile::Lambert { albedo, .. } => c.non_negative3(albedo, &what("albedo"), &at("albedo")),
            MaterialFile::Metal { albedo, fuzz, .. } => {
                c.non_negative3(albedo, &what("albedo"), &at("albedo"));
                let unit = |f| (0.0..=1.0).contains(&f);
                c.check(fuzz, &what("fuzz"), &at("fuzz"), unit, "between 0 and 1");
            }
            MaterialFile::Dielectric { ior } => {
                if let Some(issue) = c.check(ior, &what("ior"), &at("ior"), |v| v >= 1.0, "at least 1") {
                    issue.set_hint("the index of refraction of glass is about 1.5, of water 1.33");
                }
            }
            MaterialFile::Emissive { color, strength, albedo, .. } => {
                c.non_negative3(color, &what("color"), &at("color"));
                c.non_negative(strength, &what("strength"), &at("strength"));
                c.non_negative3(albedo, &what("albedo"), &at("albedo"));
            }
        }
    }
}

impl MaterialKind {
    /// Its RON text, `Metal(albedo: (1.0, 0.5, 0.25), fuzz: 0.1`, left open for the
    /// material's texture and the closing parenthesis. An Emissive's `albedo` is
    /// written only when it is not black, its default.
    pub(super) fn ron(&self) -> String {
        match *self {
            MaterialKind::Lambert { albedo } => format!("Lambert(albedo: {}", v3(albedo)),
            MaterialKind::Metal { albedo, fuzz } => format!("Metal(albedo: {}, fuzz: {fuzz:?}", v3(albedo)),
            MaterialKind::Dielectric { ior } => format!("Dielectric(ior: {ior:?}"),
            MaterialKind::Emissive { color, strength, albedo } if albedo == Vec3::ZERO => {
                format!("Emissive(color: {}, strength: {strength:?}", v3(color))
            }
            MaterialKind::Emissive { color, strength, albedo } => {
                format!("Emissive(color: {}, strength: {strength:?}, albedo: {}", v3(color), v3(albedo))
            }
        }
    }

    /// Whether a texture may multiply its colour (glass has none).
    pub fn takes_texture(&self) -> bool {
        !matches!(self, MaterialKind::Dielectric { .. })
    }

    /// Its blob record, without a texture. Lanes the kind does not use hold neutral
    /// values (albedo 1, roughness 0, emission 0, ior 1), so a material has one encoding
    /// and blobs compare byte for byte.
    pub fn record(&self) -> MaterialRecord {
        let (kind, albedo, roughness, emission, ior) = match *self {
            MaterialKind::Lambert { albedo } => (MATERIAL_LAMBERT, albedo, 0.0, Vec3::ZERO, 1.0),
            MaterialKind::Metal { albedo, fuzz } => (MATERIAL_METAL, albedo, fuzz, Vec3::ZERO, 1.0),
            MaterialKind::Dielectric { ior } => (MATERIAL_DIELECTRIC, Vec3::ONE, 0.0, Vec3::ZERO, ior),
            MaterialKind::Emissive { color, strength, albedo } => {
                (MATERIAL_EMISSIVE, albedo, 0.0, color * strength, 1.0)
            }
        };
        MaterialRecord {
            albedo_roughness: albedo.extend(roughness).to_array(),
            emission_ior: emission.extend(ior).to_array(),
            kind,
            texture: NO_TEXTURE,
            reserved: [0; 2],
        }
    }

    /// The kind a blob's record holds, or why the record cannot be rendered: an unknown
    /// kind, a lane that is not finite or is negative, a parameter out of range, or a
    /// lane the kind does not use that is not [`MaterialKind::record`]'s neutral value.
    /// An emitter comes back as `color` its radiance with `strength` 1. The record's
    /// texture and reserved lanes are the blob reader's to check.
    pub fn from_record(m: &MaterialRecord) -> Result<MaterialKind, String> {
        let lanes = [m.albedo_roughness, m.emission_ior];
        if !lanes.iter().flatten().all(|x| x.is_finite()) {
            return Err("non-finite parameter".into());
        }
        if lanes.iter().any(|l| l[..3].iter().any(|&x| x < 0.0)) {
            return Err("negative albedo or emission".into());
        }
        let [r, g, b, roughness] = m.albedo_roughness;
        let [er, eg, eb, ior] = m.emission_ior;
        let (albedo, emission) = (Vec3::new(r, g, b), Vec3::new(er, eg, eb));
        let kind = match m.kind {
            MATERIAL_LAMBERT => MaterialKind::Lambert { albedo },
            MATERIAL_METAL if (0.0..=1.0).contains(&roughness) => {
                MaterialKind::Metal { albedo, fuzz: roughness }
            }
            MATERIAL_DIELECTRIC if ior >= 1.0 => MaterialKind::Dielectric { ior },
            MATERIAL_EMISSIVE => MaterialKind::Emissive { color: emission, strength: 1.0, albedo },
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
            for lane in 0..8 {
                let mut changed = record;
                let x = match lane {
                    0..4 => &mut changed.albedo_roughness[lane],
                    _ => &mut changed.emission_ior[lane - 4],
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
