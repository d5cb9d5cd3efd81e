//! Device memory before an upload: what a scene and its film need on the GPU
//! ([`MemoryNeeds`]: the blob's payload, the repacked BVH nodes, the triangles' gathered
//! corners, the film's sums, its
//! RGBA8 buffer, its AOV sums and the denoiser's images when it has them, and working
//! space) against what the device has free, so that a
//! scene that cannot fit is one clear error with both sizes before any work, not an
//! out-of-memory failure halfway through an upload.
//!
//! The free figure comes from the driver (`cuMemGetInfo`) or from the fault plan
//! (`RENDERER_FAULTS=free-memory:BYTES`, crate::fault), so the check is tested
//! without a GPU. Not here: the allocations themselves (scene.rs, film.rs).

use std::fmt;

use anyhow::bail;

use crate::backend::{FilmLayers, FilmSize};

/// Bytes per pixel of a film on the device: float4 sums and uchar4 RGBA8 (film.rs).
pub const FILM_BYTES_PER_PIXEL: u64 = 16 + 4;
/// Bytes per pixel of a film's AOV sums: two float4 (film.rs, `denoise::AovSample`).
pub const AOV_BYTES_PER_PIXEL: u64 = 2 * 16;
/// Bytes per pixel of the denoiser's images: five float4 and one float
/// (film.rs, `DenoiseBuffers`).
pub const DENOISE_BYTES_PER_PIXEL: u64 = 5 * 16 + 4;

/// Bytes per pixel of a film with `layers`.
pub fn film_bytes_per_pixel(layers: FilmLayers) -> u64 {
    match layers {
        FilmLayers::Beauty => FILM_BYTES_PER_PIXEL,
        FilmLayers::Aovs => FILM_BYTES_PER_PIXEL + AOV_BYTES_PER_PIXEL,
        FilmLayers::Denoised => FILM_BYTES_PER_PIXEL + AOV_BYTES_PER_PIXEL + DENOISE_BYTES_PER_PIXEL,
    }
}
/// Bytes per triangle of its gathered corners: three float4 (scene.rs, `gather_corners`).
pub const CORNER_BYTES_PER_TRIANGLE: u64 = 3 * 16;
/// Kept free beyond the buffers: the kernels' local memory (the traversal stack) and
/// the allocator's rounding. 64 MiB is what a 1280x720 render's stacks need at full
/// occupancy on an H100 with room to spare (local memory is per resident thread).
pub const WORKING_SPACE: u64 = 64 << 20;

/// What one GPU needs for a scene and a film.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryNeeds {
    /// The blob's payload, copied once.
    pub blob: u64,
    /// The BVH nodes repacked for the kernels.
    pub nodes: u64,
    /// The triangles' corners gathered for the hit test.
    pub corners: u64,
    /// The film: sums and RGBA8, and AOVs and the denoiser's images when it has them.
    pub film: u64,
    pub width: u32,
    pub height: u32,
}

impl MemoryNeeds {
    /// The needs of a `payload_bytes` blob with `node_count` nodes of `node_bytes` and
    /// `triangles` triangles, and a film of `film`'s size and layers.
    pub fn new(
        payload_bytes: u64,
        node_count: u32,
        node_bytes: u64,
        triangles: u32,
        film: FilmSize,
    ) -> MemoryNeeds {
        let pixels = u64::from(film.width) * u64::from(film.height);
        MemoryNeeds {
            blob: payload_bytes,
            nodes: node_bytes.saturating_mul(u64::from(node_count.max(1))),
            corners: CORNER_BYTES_PER_TRIANGLE * u64::from(triangles),
            film: pixels.saturating_mul(film_bytes_per_pixel(film.layers)),
            width: film.width,
            height: film.height,
        }
    }

    /// Everything, working space included.
    pub fn total(&self) -> u64 {
        self.blob
            .saturating_add(self.nodes)
            .saturating_add(self.corners)
            .saturating_add(self.film)
            .saturating_add(WORKING_SPACE)
    }

    /// Fails unless `total()` fits in `free` bytes (of `capacity`) on `device`.
    pub fn check(&self, free: u64, capacity: u64, device: &str) -> anyhow::Result<()> {
        if self.total() <= free {
            return Ok(());
        }
        bail!(
            "the scene does not fit on {device}: it needs {} ({self}) but {} is free of {}; \
             render at a lower resolution, on a GPU with more memory, or with fewer programs on this one",
            Bytes(self.total()),
            Bytes(free),
            Bytes(capacity)
        )
    }
}

impl fmt::Display for MemoryNeeds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "scene blob {}, BVH nodes {}, triangle corners {}, {}x{} film {}, working space {}",
            Bytes(self.blob),
            Bytes(self.nodes),
            Bytes(self.corners),
            self.width,
            self.height,
            Bytes(self.film),
            Bytes(WORKING_SPACE)
        )
    }
}

/// A byte count for people: `512 B`, `3.2 MiB`, `71.4 GiB`.
#[derive(Clone, Copy, Debug)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
        if self.0 < 1024 {
            return write!(f, "{} B", self.0);
        }
        let mut value = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        write!(f, "{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scene_that_fits_passes_and_one_that_does_not_names_both_sizes() {
        let film = FilmSize { width: 1920, height: 1080, layers: FilmLayers::Beauty };
        let needs = MemoryNeeds::new(100 << 20, 1000, 128, 2000, film);
        assert_eq!(needs.film, 20 * 1920 * 1080);
        assert_eq!(needs.nodes, 128_000);
        assert_eq!(needs.corners, 96_000);
        assert!(needs.check(needs.total(), 80 << 30, "GPU 0").is_ok());
        let error =
            needs.check(needs.total() - 1, 80 << 30, "GPU 0 · NVIDIA H100 (sm_90)").expect_err("too small");
        let text = format!("{error}");
        assert!(
            text.starts_with("the scene does not fit on GPU 0 · NVIDIA H100 (sm_90): it needs 203.8 MiB"),
            "{text}"
        );
        assert!(
            text.contains("scene blob 100.0 MiB, BVH nodes 125.0 KiB, triangle corners 93.8 KiB, 1920x1080 film 39.6 MiB"),
            "{text}"
        );
        assert!(text.contains("but 203.8 MiB is free of 80.0 GiB"), "{text}");
    }

    #[test]
    fn aovs_and_the_denoiser_are_counted() {
        let needs =
            |layers| MemoryNeeds::new(0, 1, 0, 0, FilmSize { width: 1920, height: 1080, layers }).film;
        let pixels = 1920 * 1080;
        assert_eq!(needs(FilmLayers::Aovs), pixels * (20 + 32));
        // 4K denoised: 264 MiB of film where the image alone is 158 MiB.
        assert_eq!(needs(FilmLayers::Denoised), pixels * (20 + 32 + 84));
        assert_eq!(FilmLayers::of(false, true), FilmLayers::Denoised);
        assert_eq!(FilmLayers::of(true, false), FilmLayers::Aovs);
        assert_eq!(FilmLayers::of(false, false), FilmLayers::Beauty);
    }

    #[test]
    fn the_largest_film_is_counted_without_overflow() {
        let film = FilmSize { width: u32::MAX, height: u32::MAX, layers: FilmLayers::Denoised };
        let needs = MemoryNeeds::new(1 << 40, u32::MAX, 128, u32::MAX, film);
        assert!(needs.total() > 1 << 40);
        assert!(needs.check(80 << 30, 80 << 30, "GPU 0").is_err());
        assert_eq!(Bytes(512).to_string(), "512 B");
        assert_eq!(Bytes(3 << 20).to_string(), "3.0 MiB");
    }
}
