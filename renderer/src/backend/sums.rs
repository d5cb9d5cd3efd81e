//! Film sums outside a backend: [`FilmSums`] as a backend read them back (f32, the
//! device's own accumulation), and [`HostFilm`], the f64 sum of several of them: the
//! GPUs of one frame ([`super::multi::MultiBackend`]) or the shards of a render farm
//! (`renderer merge`, [`crate::shard`]).
//!
//! Adding f32 films in f64 rounds by at most a relative 2^-53 per addition, far below
//! the f32 rounding inside each film's own running sum; what remains is the one
//! rounding of the average to f32. So a merged image differs from a one-film render
//! only by how the films' f32 running sums rounded (docs/shards.md, "How exact a
//! merge is").

use anyhow::{Context, bail};

use super::{FilmShape, Tonemap};
use crate::denoise::{AovSample, NO_AOVS_TO_DENOISE, NOTHING_DENOISED};

/// A film's per-pixel sums (rgb, top row first) and its shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilmSums {
    pub shape: FilmShape,
    pub sums: Vec<[f32; 3]>,
    /// The AOV sums, one per pixel, of a film that keeps them; else empty.
    pub aovs: Vec<AovSample>,
}

impl FilmSums {
    /// A black film of `shape`'s size (an empty shard: no samples, nothing to render).
    pub fn black(shape: FilmShape) -> FilmSums {
        FilmSums { shape, sums: vec![[0.0; 3]; shape.pixels() as usize], aovs: Vec::new() }
    }
}

/// The per-pixel averages of a film's sums: what the denoiser reads. `beauty` and
/// `aovs` divided by the film's samples (`aovs` empty without AOVs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilmAverages {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    pub beauty: Vec<[f32; 3]>,
    pub aovs: Vec<AovSample>,
}

impl FilmAverages {
    /// The denoised image (rgb), or an error when the film has no AOVs to guide it.
    pub fn denoised(&self) -> anyhow::Result<Vec<[f32; 3]>> {
        if self.aovs.is_empty() {
            bail!(NO_AOVS_TO_DENOISE);
        }
        Ok(crate::denoise::denoise(self.width, self.height, self.samples, &self.beauty, &self.aovs))
    }
}

/// A host film's image through the denoiser, kept until the next render: what the CPU
/// backend and [`super::multi::MultiBackend`] hand back as their denoised image.
#[derive(Clone, Debug, Default)]
pub struct HostDenoised {
    image: Option<Vec<[f32; 3]>>,
}

impl HostDenoised {
    /// Denoises `film` and keeps the image; the time of the filter, milliseconds.
    pub fn run(&mut self, film: &FilmAverages) -> anyhow::Result<f64> {
        let start = std::time::Instant::now();
        self.image = Some(film.denoised()?);
        Ok(start.elapsed().as_secs_f64() * 1e3)
    }

    /// Forgets the image (the film changed).
    pub fn clear(&mut self) {
        self.image = None;
    }

    fn image(&self) -> anyhow::Result<&[[f32; 3]]> {
        self.image.as_deref().context(NOTHING_DENOISED)
    }

    /// The image as RGBA8 through `tonemap`.
    pub fn rgba8(&self, tonemap: Tonemap) -> anyhow::Result<Vec<u8>> {
        Ok(tonemap.image(self.image()?.iter().copied()))
    }

    /// The image, linear, alpha 1.
    pub fn linear(&self) -> anyhow::Result<Vec<[f32; 4]>> {
        Ok(self.image()?.iter().map(|&[r, g, b]| [r, g, b, 1.0]).collect())
    }
}

/// Sums of films of one size added on the host in f64, and the samples they hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostFilm {
    pub width: u32,
    pub height: u32,
    /// Samples per pixel in all the films added.
    pub samples: u32,
    pub sums: Vec<[f64; 3]>,
    /// The AOV sums (f32: they guide the denoiser, no merge needs them exact), when
    /// every film added had them; else empty.
    pub aovs: Vec<AovSample>,
    /// Films added so far.
    films: u32,
}

impl HostFilm {
    /// A black `width × height` film with no samples.
    pub fn new(width: u32, height: u32) -> HostFilm {
        let pixels = width as usize * height as usize;
        HostFilm { width, height, samples: 0, sums: vec![[0.0; 3]; pixels], aovs: Vec::new(), films: 0 }
    }

    /// Adds a film's sums and its AOV sums: the result keeps AOVs when every film
    /// added has them.
    pub fn add_film(&mut self, film: &FilmSums) -> anyhow::Result<()> {
        let first = self.films == 0;
        self.add(&film.sums, film.shape.samples)?;
        if first {
            self.aovs = film.aovs.clone();
        } else if self.aovs.len() == film.aovs.len() {
            for (acc, a) in self.aovs.iter_mut().zip(&film.aovs) {
                acc.add(a);
            }
        } else {
            self.aovs.clear();
        }
        Ok(())
    }

    /// Adds the sums of a film of `samples` samples per pixel (`sums` top row first).
    pub fn add(&mut self, sums: &[[f32; 3]], samples: u32) -> anyhow::Result<()> {
        if sums.len() != self.sums.len() {
            bail!("cannot add a film of {} pixels to a {}x{} film", sums.len(), self.width, self.height);
        }
        let Some(total) = self.samples.checked_add(samples) else {
            bail!("{} + {samples} samples per pixel overflow 32 bits", self.samples);
        };
        for (acc, s) in self.sums.iter_mut().zip(sums) {
            for ch in 0..3 {
                acc[ch] += f64::from(s[ch]);
            }
        }
        self.samples = total;
        self.films += 1;
        Ok(())
    }

    /// The linear average per pixel, `f32(sum / samples)` computed in f64 (black for
    /// no samples). For one film added this is bit for bit the f32 `sum / samples` a
    /// backend computes: an f64 quotient of two f32 values rounds to the same f32.
    pub fn average(&self) -> impl Iterator<Item = [f32; 3]> + '_ {
        let n = f64::from(self.samples.max(1));
        self.sums.iter().map(move |s| s.map(|c| (c / n) as f32))
    }

    /// The linear average per pixel with alpha 1, as [`super::Backend::read_linear`] gives it.
    pub fn linear(&self) -> Vec<[f32; 4]> {
        self.average().map(|[r, g, b]| [r, g, b, 1.0]).collect()
    }

    /// 8-bit RGBA through `tonemap`, the tonemap every host image uses ([`super::tonemap`]).
    pub fn rgba8(&self, tonemap: Tonemap) -> Vec<u8> {
        tonemap.image(self.average())
    }

    /// The sums rounded to f32, with `shape` (sample range) for their film.
    pub fn to_film_sums(&self, shape: FilmShape) -> FilmSums {
        FilmSums {
            shape,
            sums: self.sums.iter().map(|s| s.map(|c| c as f32)).collect(),
            aovs: self.aovs.clone(),
        }
    }

    /// What divides the sums: the sample count, 1 for an empty film.
    pub fn divisor(&self) -> f32 {
        self.samples.max(1) as f32
    }

    /// The per-pixel averages, with the AOVs' when the film has them.
    pub fn averages(&self) -> FilmAverages {
        let inv_n = 1.0 / self.divisor();
        FilmAverages {
            width: self.width,
            height: self.height,
            samples: self.samples,
            beauty: self.average().collect(),
            aovs: self.aovs.iter().map(|a| a.scaled(inv_n)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_film_averages_exactly_like_an_f32_division() {
        let sums = [[1.0f32, 3.0, 7.0], [0.1, 1e-7, 123.456], [0.0, 2.5, 1e30]];
        let mut film = HostFilm::new(3, 1);
        film.add(&sums, 7).expect("same size");
        for (got, s) in film.average().zip(sums) {
            assert_eq!(got, s.map(|c| c / 7.0));
        }
        assert_eq!(film.rgba8(Tonemap::STANDARD).len(), 12);
    }

    #[test]
    fn sizes_must_match_and_empty_is_black() {
        let mut film = HostFilm::new(2, 2);
        assert!(film.add(&[[1.0; 3]; 3], 1).is_err());
        assert_eq!(film.linear(), vec![[0.0, 0.0, 0.0, 1.0]; 4]);
        film.add(&[[2.0; 3]; 4], 1).expect("same size");
        film.add(&[[4.0; 3]; 4], 3).expect("same size");
        assert_eq!(film.samples, 4);
        assert_eq!(film.linear(), vec![[1.5, 1.5, 1.5, 1.0]; 4]);
    }
}
