//! The CPU film: per-pixel f32 sums of samples, and the output conversions
//! (docs/path-tracing.md, "Accumulation and output").

use glam::Vec3A;

use crate::backend::FilmShape;

/// Accumulated radiance sums, top row first.
#[derive(Clone, Debug, Default)]
pub struct Film {
    pub shape: FilmShape,
    pub sums: Vec<Vec3A>,
}

impl Film {
    /// Clears the film to `width × height` black pixels with no samples.
    pub fn reset(&mut self, width: u32, height: u32) {
        self.shape = FilmShape { width, height, samples: 0 };
        self.sums.clear();
        self.sums.resize(width as usize * height as usize, Vec3A::ZERO);
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

    /// 8-bit RGBA, gamma 2: `u8(255.99 * clamp(sqrt(c), 0, 1))`, alpha 255.
    pub fn rgba8(&self) -> Vec<u8> {
        let n = self.shape.divisor();
        let mut out = Vec::with_capacity(self.sums.len() * 4);
        for s in &self.sums {
            let c = *s / n;
            out.extend([tonemap(c.x), tonemap(c.y), tonemap(c.z), u8::MAX]);
        }
        out
    }
}

/// One linear channel to gamma-2 8-bit; NaN maps to 0 (`as` saturates).
#[inline]
pub fn tonemap(c: f32) -> u8 {
    (255.99 * c.sqrt().clamp(0.0, 1.0)) as u8
}
