//! A material kind's blob record, both ways: [`MaterialKind::record`] for the blob
//! writer, [`MaterialKind::from_record`] for the blob reader's check and for the
//! renderer's scene read back from a blob. The lanes are `layout::MaterialRecord`'s.
//!
//! Not here: the kinds themselves, their form in a scene file and their checks
//! (`scene/material.rs`); a material's textures' records (`textures.rs`).

use glam::Vec3;

use super::layout::{
    ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, MATERIAL_DIELECTRIC, MATERIAL_EMISSIVE, MATERIAL_LAMBERT,
    MATERIAL_METAL, MATERIAL_PRINCIPLED, MaterialRecord, NO_TEXTURE,
};
use crate::scene::{AlphaMode, MaterialKind, Principled};

impl MaterialKind {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::every_kind;

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
