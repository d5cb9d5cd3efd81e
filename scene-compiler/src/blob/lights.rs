//! The lights section: every light next-event estimation can pick, with its pick
//! probability (proportional to power) and an alias table (docs/blob-format.md,
//! "Lights"; docs/path-tracing.md, "Next-event estimation").

use std::f64::consts::PI;

use glam::Vec3;

use super::layout::{LIGHT_AREA, LIGHT_DIRECTIONAL, LIGHT_ENVIRONMENT, LIGHT_POINT, LightRecord};
use crate::scene::Light;

/// An emissive primitive, in leaf order.
pub(crate) struct Emitter {
    /// Its primitive reference.
    pub prim: u32,
    /// Its place in the per-primitive sections.
    pub slot: usize,
    /// Its whole surface's area.
    pub area: f64,
    /// Emitted radiance (the material's colour times strength).
    pub emission: Vec3,
}

/// The lights section and, per emitter slot, its pick probability.
pub(crate) struct LightTable {
    pub records: Vec<LightRecord>,
    pub prim_pdfs: Vec<(usize, f32)>,
}

/// Mean of the channels: the power measure lights are picked by.
fn luminance(c: Vec3) -> f64 {
    (f64::from(c.x) + f64::from(c.y) + f64::from(c.z)) / 3.0
}

/// The table for the scene's `lights`, the environment (when the sky is one: its
/// `∫ lum(L) dω`), then `emitters`; `scene_radius` (the bounding sphere's) turns a
/// directional light's irradiance, and the environment's radiance, into power.
pub(crate) fn build(
    lights: &[Light],
    environment: Option<f64>,
    emitters: &[Emitter],
    scene_radius: f64,
) -> LightTable {
    let scene_radius = scene_radius.max(1e-3);
    let mut records = Vec::with_capacity(lights.len() + emitters.len() + 1);
    let mut powers = Vec::with_capacity(records.capacity());
    for light in lights {
        let (record, power) = match *light {
            Light::Point { position, color, intensity } => {
                let radiance = color * intensity;
                (
                    record(LIGHT_POINT, [position.x, position.y, position.z, 1.0], radiance, 0),
                    4.0 * PI * luminance(radiance),
                )
            }
            Light::Directional { direction, color, intensity, angular_radius_deg } => {
                // The scene gives the direction light travels; shading wants the way to it.
                let towards = -direction.normalize();
                let cos = f64::from(angular_radius_deg).to_radians().cos() as f32;
                let radiance = color * intensity;
                let power = PI * scene_radius * scene_radius * luminance(radiance);
                (record(LIGHT_DIRECTIONAL, [towards.x, towards.y, towards.z, cos], radiance, 0), power)
            }
        };
        records.push(record);
        powers.push(power);
    }
    if let Some(luminance_integral) = environment {
        records.push(record(LIGHT_ENVIRONMENT, [0.0, 0.0, 0.0, 1.0], Vec3::ZERO, 0));
        // What crosses the scene's disc from every direction: π R² ∫ lum(L) dω (a
        // directional light of irradiance E, radiance concentrated in its disc, gives π R² E).
        powers.push(PI * scene_radius * scene_radius * luminance_integral);
    }
    let first_emitter = records.len();
    for e in emitters {
        records.push(record(LIGHT_AREA, [0.0, 0.0, 0.0, 1.0], e.emission, e.prim));
        // A Lambertian emitter of radiance L and area A sends out π A L.
        powers.push(PI * e.area * luminance(e.emission));
    }
    let pdfs = pick_pdfs(&powers);
    // The table is built from the pdfs as stored, so that a light stored with pdf 0 is
    // never picked and every other gets its stored pdf (to f32 rounding of the table).
    let stored: Vec<f64> = pdfs.iter().map(|&p| f64::from(p)).collect();
    let stored_total: f64 = stored.iter().sum();
    let exact: Vec<f64> =
        stored.iter().map(|&p| if stored_total > 0.0 { p / stored_total } else { 0.0 }).collect();
    for ((record, &pdf), (threshold, alias)) in records.iter_mut().zip(&pdfs).zip(alias_table(&exact)) {
        record.radiance_pdf[3] = pdf;
        record.alias_threshold = threshold as f32;
        record.alias = alias;
    }
    let prim_pdfs = emitters.iter().enumerate().map(|(i, e)| (e.slot, pdfs[first_emitter + i])).collect();
    LightTable { records, prim_pdfs }
}

/// Each power over the total, in f32; a probability too small for a normal f32 is 0
/// (that light is never picked: kernels may flush subnormals, and 1 / pdf must be
/// finite). All 0 when no light has power.
fn pick_pdfs(powers: &[f64]) -> Vec<f32> {
    let total: f64 = powers.iter().sum();
    powers
        .iter()
        .map(|&p| {
            let pdf = if total > 0.0 { (p / total) as f32 } else { 0.0 };
            if pdf < f32::MIN_POSITIVE { 0.0 } else { pdf }
        })
        .collect()
}

fn record(kind: u32, vector_cos: [f32; 4], radiance: Vec3, prim: u32) -> LightRecord {
    LightRecord {
        vector_cos,
        radiance_pdf: [radiance.x, radiance.y, radiance.z, 0.0],
        kind,
        prim,
        alias_threshold: 1.0,
        alias: 0,
    }
}

/// Vose's alias method: per cell `(threshold, alias)` such that picking cell
/// `i = floor(u n)` and keeping it when `u n - i < threshold`, else taking `alias`,
/// picks each index with its probability. All-zero probabilities give a table that
/// keeps every cell (the renderer samples no light then).
pub(crate) fn alias_table(pdfs: &[f64]) -> Vec<(f64, u32)> {
    let n = pdfs.len();
    let mut table: Vec<(f64, u32)> = (0..n).map(|i| (1.0, i as u32)).collect();
    if pdfs.iter().all(|&p| p <= 0.0) {
        return table;
    }
    let mut scaled: Vec<f64> = pdfs.iter().map(|&p| p * n as f64).collect();
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| scaled[i] < 1.0);
    while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        table[s] = (scaled[s], l as u32);
        scaled[l] -= 1.0 - scaled[s];
        if scaled[l] < 1.0 {
            large.pop();
            small.push(l);
        }
    }
    // What is left holds probability 1 up to rounding: keep it. A zero-power cell left
    // over by rounding must still never be kept, so it aliases to a powered light.
    let powered = pdfs.iter().position(|&p| p > 0.0).expect("some pdf is positive") as u32;
    for i in small.into_iter().chain(large) {
        table[i] = if pdfs[i] > 0.0 { (1.0, i as u32) } else { (0.0, powered) };
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probability the table gives each index.
    fn picked(table: &[(f64, u32)]) -> Vec<f64> {
        let n = table.len() as f64;
        let mut mass = vec![0.0; table.len()];
        for (i, &(threshold, alias)) in table.iter().enumerate() {
            mass[i] += threshold.clamp(0.0, 1.0) / n;
            mass[alias as usize] += (1.0 - threshold.clamp(0.0, 1.0)) / n;
        }
        mass
    }

    #[test]
    fn the_alias_table_picks_every_light_with_its_pdf() {
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for n in [1usize, 2, 3, 7, 64, 1000] {
            let weights: Vec<f64> =
                (0..n).map(|i| if i % 5 == 3 { 0.0 } else { next() * next() * 100.0 }).collect();
            let total: f64 = weights.iter().sum();
            let pdfs: Vec<f64> = weights.iter().map(|w| w / total).collect();
            let mass = picked(&alias_table(&pdfs));
            for (i, (m, p)) in mass.iter().zip(&pdfs).enumerate() {
                assert!((m - p).abs() < 1e-9, "n {n}, light {i}: picked with {m}, pdf {p}");
                if *p == 0.0 {
                    assert_eq!(*m, 0.0, "n {n}: light {i} has no power but can be picked");
                }
            }
        }
    }

    #[test]
    fn a_light_too_weak_for_an_f32_pdf_is_never_picked() {
        let emitters: Vec<Emitter> = [(1e-30f32, 1e-30f32), (1e30, 1e30), (1.0, 1.0)]
            .iter()
            .enumerate()
            .map(|(i, &(radius, e))| Emitter {
                prim: i as u32,
                slot: i,
                area: 4.0 * PI * f64::from(radius) * f64::from(radius),
                emission: Vec3::splat(e),
            })
            .collect();
        let table = build(&[], None, &emitters, 1.0);
        let tiny = &table.records[0];
        assert_eq!((tiny.radiance_pdf[3], tiny.alias_threshold), (0.0, 0.0));
        assert_ne!(table.records[tiny.alias as usize].radiance_pdf[3], 0.0);
        assert_eq!(table.prim_pdfs[0], (0, 0.0));
        let cells: Vec<(f64, u32)> =
            table.records.iter().map(|r| (f64::from(r.alias_threshold), r.alias)).collect();
        assert_eq!(picked(&cells), [0.0, 1.0, 0.0], "only the light with an f32 pdf is picked");
    }

    #[test]
    fn no_power_gives_zero_pdfs() {
        let lights = [Light::Point { position: Vec3::ZERO, color: Vec3::ONE, intensity: 0.0 }];
        let table = build(&lights, None, &[], 0.0);
        assert_eq!(table.records[0].radiance_pdf[3], 0.0);
    }

    #[test]
    fn lights_are_picked_in_proportion_to_their_power() {
        let lights = [
            Light::Point { position: Vec3::Y, color: Vec3::ONE, intensity: 2.0 },
            Light::Directional {
                direction: Vec3::new(0.0, -2.0, 0.0),
                color: Vec3::new(1.0, 2.0, 3.0),
                intensity: 0.5,
                angular_radius_deg: 0.0,
            },
        ];
        let emitters: Vec<Emitter> = [0.5f64, 1.0, 2.0]
            .iter()
            .enumerate()
            .map(|(i, &radius)| Emitter {
                prim: i as u32,
                slot: 10 + i,
                area: 4.0 * PI * radius * radius,
                emission: Vec3::splat(3.0),
            })
            .collect();
        let table = build(&lights, None, &emitters, 10.0);
        let powers = [
            4.0 * PI * 2.0,
            PI * 100.0 * 1.0,
            4.0 * PI * PI * 0.25 * 3.0,
            4.0 * PI * PI * 3.0,
            4.0 * PI * PI * 4.0 * 3.0,
        ];
        let total: f64 = powers.iter().sum();
        for (record, power) in table.records.iter().zip(powers) {
            let pdf = f64::from(record.radiance_pdf[3]);
            assert!((pdf - power / total).abs() < 1e-6, "pdf {pdf}, expected {}", power / total);
        }
        assert_eq!(table.records[1].vector_cos, [0.0, 1.0, 0.0, 1.0]);
        assert_eq!(table.records[4].kind, LIGHT_AREA);
        assert_eq!(table.records[4].prim, 2);
        let prim_pdfs: Vec<(usize, f32)> = table.prim_pdfs;
        assert_eq!(prim_pdfs.len(), 3);
        for (i, (slot, pdf)) in prim_pdfs.into_iter().enumerate() {
            assert_eq!((slot, pdf), (10 + i, table.records[2 + i].radiance_pdf[3]));
        }
    }
}
