//! The CPU film: per-pixel f32 sums of samples, and the output conversions
//! (docs/path-tracing.md, "Accumulation and output").

use glam::Vec3A;

use crate::backend::{FilmAverages, FilmShape, FilmSums, Tonemap};
use crate::denoise::AovSample;

/// Accumulated radiance sums, top row first, and the AOV sums of a film that keeps them.
#[derive(Clone, Debug, Default)]
pub struct Film {
    pub shape: FilmShape,
    pub sums: Vec<Vec3A>,
    /// One per pixel when the film keeps AOVs, else empty.
    pub aovs: Vec<AovSample>,
}

impl Film {
    /// Clears the film to `width × height` black pixels with no samples, with AOV
    /// sums when `aovs`.
    pub fn reset(&mut self, width: u32, height: u32, aovs: bool) {
        self.shape = FilmShape { width, height, samples: 0, end: 0 };
        let pixels = width as usize * height as usize;
        self.sums.clear();
        self.sums.resize(pixels, Vec3A::ZERO);
        self.aovs.clear();
        if aovs {
            self.aovs.resize(pixels, AovSample::default());
        }
    }

    /// The sums themselves, with the film's shape.
    pub fn sums(&self) -> FilmSums {
        FilmSums {
            shape: self.shape,
            sums: self.sums.iter().map(|s| [s.x, s.y, s.z]).collect(),
            aovs: self.aovs.clone(),
        }
    }

    /// The per-pixel averages, with the AOVs' when the film keeps them.
    pub fn averages(&self) -> FilmAverages {
        let n = self.shape.divisor();
        FilmAverages {
            width: self.shape.width,
            height: self.shape.height,
            samples: self.shape.samples,
            beauty: self.sums.iter().map(|s| (*s / n).to_array()).collect(),
            aovs: self.aovs.iter().map(|a| a.scaled(1.0 / n)).collect(),
        }
    }

    /// The linear average per pixel, alpha 1.
    pub fn linear(&self) -> Vec<[f32; 4]> {
        let n = self.shape.divisor();
        self.sums
            .iter()
            .map(|s| {
                let c = *s / n;
                [c.x, c.y, c.z, 1.0]
            })
            .collect()
    }

    /// 8-bit RGBA through `tonemap` (the host's one, [`crate::backend::tonemap`]), alpha
    /// 255; the Standard view at exposure 0 is `u8(255.99 * clamp(sqrt(c), 0, 1))`.
    pub fn rgba8(&self, tonemap: Tonemap) -> Vec<u8> {
        let n = self.shape.divisor();
        tonemap.image(self.sums.iter().map(|s| {
            let c = *s / n;
            [c.x, c.y, c.z]
        }))
    }
}
