//! The environment sky's sections: its texels (radiance and per-cell sampling
//! density) and the alias tables that sample it in proportion to luminance × sin θ
//! (docs/path-tracing.md, "Environment"; docs/blob-format.md, "Environment").
//!
//! Not here: reading the image (`scene/environment.rs`), lookups and sampling (the
//! renderers: `cpu/environment.rs`, `kernels/environment.cuh`).

use std::f64::consts::PI;

use rayon::prelude::*;

use super::layout::{EnvAliasRecord, EnvTexelRecord};
use super::lights::alias_table;
use crate::scene::Environment;

/// The bilinear filter's average over one texel's cell, per neighbour offset -1, 0, 1:
/// the tent between neighbouring centres integrates to 1/8, 3/4, 1/8 over the cell.
const CELL_AVERAGE: [f64; 3] = [0.125, 0.75, 0.125];

/// An environment as the blob stores it.
pub(crate) struct EnvTables {
    pub width: u32,
    pub height: u32,
    /// Row by row from the top: radiance (image × strength), w the cell's density.
    pub texels: Vec<EnvTexelRecord>,
    /// The rows' alias table (`height` cells), then each row's (`width` cells each).
    pub sampling: Vec<EnvAliasRecord>,
    /// `∫ lum(L(ω)) dω` over the sphere of directions, from the cell averages: the
    /// light table's power is `π R²` times this (as a directional light's is `π R² lum(E)`).
    pub luminance_integral: f64,
}

/// Mean of the channels, the measure lights are picked by (`lights::luminance`).
fn luminance(c: [f32; 3]) -> f64 {
    (f64::from(c[0]) + f64::from(c[1]) + f64::from(c[2])) / 3.0
}

/// The texels and sampling tables of `env`.
///
/// A cell's weight is the average of the bilinearly filtered luminance over the cell
/// (exact: the filter is linear, so the average is a 3 x 3 stencil of texel luminances,
/// columns wrapping, rows clamped as the lookup clamps them) times `sin θ` at the
/// cell's centre. A cell the filtered image lights anywhere has a positive weight, so
/// sampling reaches all of a small bright source, not only its own texel.
pub(crate) fn build(env: &Environment) -> EnvTables {
    let image = &env.data;
    let (width, height) = (image.width as usize, image.height as usize);
    let radiance: Vec<[f32; 3]> = image.texels.iter().map(|t| t.map(|c| c * env.strength)).collect();
    let lum: Vec<f64> = radiance.iter().map(|&c| luminance(c)).collect();
    let weights: Vec<f64> = (0..height)
        .into_par_iter()
        .flat_map_iter(|j| {
            let lum = &lum;
            let sin_theta = (PI * (j as f64 + 0.5) / height as f64).sin();
            (0..width).map(move |i| {
                let mut sum = 0.0;
                for (b, wb) in CELL_AVERAGE.iter().enumerate() {
                    let row = (j + b).saturating_sub(1).min(height - 1);
                    for (a, wa) in CELL_AVERAGE.iter().enumerate() {
                        let column = (i + width + a - 1) % width;
                        sum += wa * wb * lum[row * width + column];
                    }
                }
                sum * sin_theta
            })
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let cells = (width * height) as f64;
    // The stored density; one too small for a normal f32 is 0 (that cell is never
    // sampled, and 1 / pdf stays finite).
    let density: Vec<f32> = weights
        .iter()
        .map(|&w| {
            let d = if total > 0.0 { (w / total * cells) as f32 } else { 0.0 };
            if d < f32::MIN_POSITIVE { 0.0 } else { d }
        })
        .collect();
    let texels = radiance
        .iter()
        .zip(&density)
        .map(|(&[r, g, b], &d)| EnvTexelRecord { rgb_pdf: [r, g, b, d] })
        .collect();
    EnvTables {
        width: image.width,
        height: image.height,
        texels,
        sampling: sampling_tables(&density, width, height),
        luminance_integral: total * 2.0 * PI * PI / cells,
    }
}

/// The alias tables of the densities as stored (so a cell of density 0 is never
/// picked and every other is picked with its stored density, to f32 rounding).
fn sampling_tables(density: &[f32], width: usize, height: usize) -> Vec<EnvAliasRecord> {
    let rows: Vec<&[f32]> = density.chunks(width).collect();
    let row_sums: Vec<f64> = rows.iter().map(|row| row.iter().map(|&d| f64::from(d)).sum()).collect();
    let total: f64 = row_sums.iter().sum();
    let normalized = |values: Vec<f64>, sum: f64| -> Vec<f64> {
        values.into_iter().map(|v| if sum > 0.0 { v / sum } else { 0.0 }).collect()
    };
    let record = |(threshold, alias): (f64, u32)| EnvAliasRecord { threshold: threshold as f32, alias };
    let mut out: Vec<EnvAliasRecord> = Vec::with_capacity(height + width * height);
    out.extend(alias_table(&normalized(row_sums.clone(), total)).into_iter().map(record));
    let row_tables: Vec<Vec<EnvAliasRecord>> = rows
        .par_iter()
        .zip(&row_sums)
        .map(|(row, &sum)| {
            let values = row.iter().map(|&d| f64::from(d)).collect();
            alias_table(&normalized(values, sum)).into_iter().map(record).collect()
        })
        .collect();
    out.extend(row_tables.into_iter().flatten());
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::scene::EnvImage;

    fn env(width: u32, height: u32, texels: Vec<[f32; 3]>) -> Environment {
        let data = EnvImage { path: Default::default(), width, height, texels };
        Environment { image: String::new(), data: Arc::new(data), strength: 2.0, rotation_deg: 0.0 }
    }

    #[test]
    fn a_uniform_image_integrates_to_4_pi_and_has_sin_theta_densities() {
        let tables = build(&env(8, 4, vec![[0.5; 3]; 32]));
        // Radiance 1 (0.5 x strength 2) everywhere: 4π by the midpoint rule over 4 rows,
        // 2π · π/4 · 2 (sin π/8 + sin 3π/8).
        let midpoint = 2.0 * PI * PI / 4.0 * 2.0 * ((PI / 8.0).sin() + (3.0 * PI / 8.0).sin());
        assert!((tables.luminance_integral - midpoint).abs() < 1e-9, "{}", tables.luminance_integral);
        let sum: f64 = tables.texels.iter().map(|t| f64::from(t.rgb_pdf[3])).sum();
        assert!((sum / 32.0 - 1.0).abs() < 1e-6);
        assert_eq!(tables.texels[0].rgb_pdf[..3], [1.0; 3]);
        // Rows 0 and 1 differ by sin(π/8) : sin(3π/8).
        let ratio = f64::from(tables.texels[0].rgb_pdf[3] / tables.texels[8].rgb_pdf[3]);
        assert!((ratio - (PI / 8.0).sin() / (3.0 * PI / 8.0).sin()).abs() < 1e-6);
        assert_eq!(tables.sampling.len(), 4 + 32);
    }

    #[test]
    fn a_single_bright_texel_lights_its_neighbours_cells_and_no_others() {
        let mut texels = vec![[0.0; 3]; 8 * 4];
        texels[8 + 3] = [1.0; 3];
        let tables = build(&env(8, 4, texels));
        for (k, t) in tables.texels.iter().enumerate() {
            let (i, j) = (k % 8, k / 8);
            let near = (2..=4).contains(&i) && j <= 2;
            assert_eq!(t.rgb_pdf[3] > 0.0, near, "cell ({i}, {j})");
        }
        // Rows 3 is dark: the rows' table never picks it (threshold 0, nothing aliases to it).
        let rows = &tables.sampling[..4];
        assert_eq!(rows[3].threshold, 0.0);
        assert!(rows.iter().all(|r| r.alias != 3 || r.threshold == 1.0));
    }

    #[test]
    fn a_black_image_has_no_power() {
        let tables = build(&env(4, 2, vec![[0.0; 3]; 8]));
        assert_eq!(tables.luminance_integral, 0.0);
        assert!(tables.texels.iter().all(|t| t.rgb_pdf[3] == 0.0));
    }
}
