//! What to render: the scene's [`RenderSettings`] with the user's [`Overrides`] applied
//! (the one place flags meet scene settings), and the [`RenderJob`] a backend runs
//! (the one place a job is made).

use std::ops::Range;

use scene_compiler::limits;
use scene_compiler::scene::{Camera, RenderSettings, SamplerKind, ViewTransform};

use crate::camera::CameraFrame;

/// Settings the user gave on the command line or in the editor; `None` keeps the scene's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overrides {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub spp: Option<u32>,
    pub max_depth: Option<u32>,
    pub seed: Option<u32>,
    /// Stops (`--exposure`).
    pub exposure: Option<f32>,
    /// `--view`.
    pub view: Option<ViewTransform>,
    /// `--sampler`.
    pub sampler: Option<SamplerKind>,
}

impl Overrides {
    /// The scene's settings with every given value replacing the scene's. A width
    /// without a height (or the reverse) keeps the scene's aspect ratio: the other side
    /// is scaled to match, rounded, within 1..=`MAX_IMAGE_SIDE`.
    pub fn apply(&self, scene: RenderSettings) -> RenderSettings {
        let (width, height) = match (self.width, self.height) {
            (Some(width), Some(height)) => (width, height),
            (Some(width), None) => (width, scale_side(width, scene.height, scene.width)),
            (None, Some(height)) => (scale_side(height, scene.width, scene.height), height),
            (None, None) => (scene.width, scene.height),
        };
        RenderSettings {
            width,
            height,
            spp: self.spp.unwrap_or(scene.spp),
            max_depth: self.max_depth.unwrap_or(scene.max_depth),
            seed: self.seed.unwrap_or(scene.seed),
            exposure: self.exposure.unwrap_or(scene.exposure),
            view: self.view.unwrap_or(scene.view),
            sampler: self.sampler.unwrap_or(scene.sampler),
        }
    }
}

/// `given · numerator / denominator`, rounded to the nearest pixel and kept a valid side.
fn scale_side(given: u32, numerator: u32, denominator: u32) -> u32 {
    let exact = u64::from(given) * u64::from(numerator);
    let rounded = (exact + u64::from(denominator) / 2) / u64::from(denominator.max(1));
    rounded.clamp(1, u64::from(limits::MAX_IMAGE_SIDE)) as u32
}

/// What one call of [`crate::backend::Backend::render`] computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderJob {
    pub width: u32,
    pub height: u32,
    pub max_depth: u32,
    pub seed: u32,
    /// Index of the first sample of this call (the random streams are per pixel and
    /// sample index). 0 starts a fresh film; a later index continues the film where it
    /// ends, unless [`RenderJob::fresh_film`] is set.
    pub first_sample: u32,
    /// Samples per pixel to add in this call: `first_sample..first_sample + samples`.
    pub samples: u32,
    /// Start a fresh film at `first_sample` even when it is not 0: a shard of a
    /// render farm (`render --shard`), or one GPU's share of a frame
    /// ([`crate::backend::multi::MultiBackend`]). The film then divides by the samples
    /// rendered into it, not by `first_sample + samples` ([`crate::backend::FilmShape`]).
    pub fresh_film: bool,
    pub camera: CameraFrame,
    /// Next-event estimation: sample the lights at diffuse hits, combined with BSDF
    /// sampling by MIS (docs/path-tracing.md). Off: BSDF sampling only, for comparison.
    pub nee: bool,
    /// Accumulate the AOVs (albedo, normal, depth, luminance moments) beside the
    /// radiance: what `--aov` writes and the denoiser reads. A film keeps them only
    /// when every job that renders into it asks for them.
    pub aovs: bool,
    /// Where the random numbers come from (docs/path-tracing.md, "Random numbers"): the
    /// CPU backend monomorphizes its integrator for it, the CUDA backend runs the module
    /// compiled for it (`backend::features::Variant`).
    pub sampler: SamplerKind,
}

impl RenderJob {
    /// Samples `samples` (per pixel) of the image `settings` describe, seen through `camera`.
    /// `settings.spp` is not read: the range says which samples this call adds.
    pub fn new(settings: &RenderSettings, camera: &Camera, samples: Range<u32>) -> RenderJob {
        RenderJob {
            width: settings.width,
            height: settings.height,
            max_depth: settings.max_depth,
            seed: settings.seed,
            first_sample: samples.start,
            samples: samples.end.saturating_sub(samples.start),
            fresh_film: false,
            camera: CameraFrame::new(camera, settings.width, settings.height),
            nee: true,
            aovs: false,
            sampler: settings.sampler,
        }
    }

    /// Every sample of a fresh frame: `0..settings.spp`.
    pub fn full_frame(settings: &RenderSettings, camera: &Camera) -> RenderJob {
        RenderJob::new(settings, camera, 0..settings.spp)
    }

    /// The same image, samples `samples` instead: a batch that continues the film
    /// (or starts it, from sample 0). Clears [`RenderJob::fresh_film`].
    pub fn with_samples(self, samples: Range<u32>) -> RenderJob {
        RenderJob {
            first_sample: samples.start,
            samples: samples.end.saturating_sub(samples.start),
            fresh_film: false,
            ..self
        }
    }

    /// The same job on a fresh film, whatever its first sample (a shard, one GPU's share).
    pub fn on_fresh_film(self) -> RenderJob {
        RenderJob { fresh_film: true, ..self }
    }

    /// The sample indices this call renders.
    pub fn sample_range(&self) -> Range<u32> {
        self.first_sample..self.first_sample.saturating_add(self.samples)
    }

    /// The same job with another sampler.
    pub fn with_sampler(self, sampler: SamplerKind) -> RenderJob {
        RenderJob { sampler, ..self }
    }

    /// The same job with next-event estimation on or off.
    pub fn with_nee(self, nee: bool) -> RenderJob {
        RenderJob { nee, ..self }
    }

    /// The same job with the AOVs accumulated or not.
    pub fn with_aovs(self, aovs: bool) -> RenderJob {
        RenderJob { aovs, ..self }
    }
}

/// `range` split into one contiguous piece per weight, in order, each about in
/// proportion to its weight (integer arithmetic: piece `i` ends at
/// `start + len·(w_0+…+w_i)/(w_0+…+w_n)`). With equal weights this is
/// `shard::sample_range`'s split. All weights 0 counts as equal weights.
pub fn split_weighted(range: Range<u32>, weights: &[u64]) -> Vec<Range<u32>> {
    let len = u128::from(range.end.saturating_sub(range.start));
    let equal = weights.iter().all(|&w| w == 0);
    let weight = |w: u64| if equal { 1 } else { u128::from(w) };
    let total: u128 = weights.iter().map(|&w| weight(w)).sum::<u128>().max(1);
    let mut cumulative = 0u128;
    let mut start = range.start;
    weights
        .iter()
        .map(|&w| {
            cumulative += weight(w);
            let end = range.start + (len * cumulative / total) as u32;
            let piece = start..end;
            start = end;
            piece
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    #[test]
    fn weighted_splits_are_contiguous_and_proportional() {
        assert_eq!(split_weighted(0..10, &[1, 1]), vec![0..5, 5..10]);
        assert_eq!(split_weighted(4..14, &[1, 3]), vec![4..6, 6..14]);
        assert_eq!(split_weighted(0..1, &[1, 1]), vec![0..0, 0..1]);
        assert_eq!(split_weighted(0..9, &[0, 0, 0]), vec![0..3, 3..6, 6..9], "zero weights: equal");
        assert_eq!(split_weighted(5..5, &[2, 1]), vec![5..5, 5..5]);
    }

    const SCENE: RenderSettings = RenderSettings {
        width: 1280,
        height: 720,
        spp: 30,
        max_depth: 50,
        seed: 7,
        ..RenderSettings::DEFAULT
    };

    #[test]
    fn overrides_replace_only_what_is_given() {
        assert_eq!(Overrides::default().apply(SCENE), SCENE);
        let given = Overrides { spp: Some(4), seed: Some(1), ..Overrides::default() };
        assert_eq!(given.apply(SCENE), RenderSettings { spp: 4, seed: 1, ..SCENE });
        let both = Overrides { width: Some(100), height: Some(100), ..Overrides::default() };
        assert_eq!((both.apply(SCENE).width, both.apply(SCENE).height), (100, 100));
    }

    #[test]
    fn exposure_view_and_sampler_flags_override_the_scene() {
        let scene = RenderSettings { exposure: -1.0, view: ViewTransform::Filmic, ..SCENE };
        assert_eq!(Overrides::default().apply(scene), scene);
        let given = Overrides {
            exposure: Some(2.5),
            view: Some(ViewTransform::Agx),
            sampler: Some(SamplerKind::Sobol),
            ..Overrides::default()
        };
        let expected =
            RenderSettings { exposure: 2.5, view: ViewTransform::Agx, sampler: SamplerKind::Sobol, ..scene };
        assert_eq!(given.apply(scene), expected);
    }

    #[test]
    fn one_side_keeps_the_scene_aspect_ratio() {
        let side = |width, height| {
            let s = Overrides { width, height, ..Overrides::default() }.apply(SCENE);
            (s.width, s.height)
        };
        assert_eq!(side(Some(640), None), (640, 360));
        assert_eq!(side(None, Some(1080)), (1920, 1080));
        assert_eq!(side(Some(641), None), (641, 361), "360.5625 rounds to 361");
        assert_eq!(side(Some(1), None), (1, 1), "never a zero side");
        assert_eq!(side(None, Some(16_384)), (limits::MAX_IMAGE_SIDE, 16_384), "clamped to the limit");
    }

    #[test]
    fn a_job_covers_the_sample_range_it_is_given() {
        let camera = Camera {
            look_from: Vec3::new(0.0, 0.0, 5.0),
            look_at: Vec3::ZERO,
            up: Vec3::Y,
            vfov_deg: 40.0,
            aperture: 0.0,
            focus_dist: 5.0,
        };
        let job = RenderJob::full_frame(&SCENE, &camera);
        assert_eq!((job.first_sample, job.samples, job.width, job.seed), (0, 30, 1280, 7));
        let batch = job.with_samples(10..14);
        assert_eq!((batch.first_sample, batch.samples), (10, 4));
        assert_eq!(batch.camera, job.camera);
        assert_eq!(batch.sample_range(), 10..14);
        assert!(!batch.fresh_film, "a batch continues the film");
        let shard = batch.on_fresh_film();
        assert!(shard.fresh_film && !shard.with_samples(14..16).fresh_film);
    }
}
