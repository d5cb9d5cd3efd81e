//! The flags of `render`, `bench`, `view` and `watch` that say how the image is sampled
//! and shown: `--exposure`, `--view` and `--sampler`, each overriding the scene's
//! `settings` field of the same name (met in [`crate::job::Overrides::apply`]).

use clap::{Args, ValueEnum};
use scene_compiler::ranges::MAX_EXPOSURE;
use scene_compiler::scene::{SamplerKind, ViewTransform};

/// `--exposure`, `--view`, `--sampler`.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct ImageArgs {
    /// Exposure in stops: the linear image is multiplied by 2^STOPS before the view
    /// transform (+1 is twice as bright, -1 half). Applies to PNG output and the
    /// editor's display, never to EXR, which keeps the linear radiance [default: the
    /// scene's `exposure`, else 0].
    #[arg(long, value_name = "STOPS", allow_negative_numbers = true, value_parser = exposure)]
    pub exposure: Option<f32>,
    /// How the exposed linear image becomes 8-bit display values (PNG output and the
    /// editor; EXR stays linear) [default: the scene's `view`, else standard].
    #[arg(long, value_enum)]
    pub view: Option<ViewArg>,
    /// How each pixel's sample points are drawn [default: the scene's `sampler`, else
    /// independent].
    #[arg(long, value_enum)]
    pub sampler: Option<SamplerArg>,
}

impl ImageArgs {
    pub fn view(&self) -> Option<ViewTransform> {
        self.view.map(ViewTransform::from)
    }

    pub fn sampler(&self) -> Option<SamplerKind> {
        self.sampler.map(SamplerKind::from)
    }
}

/// `--view` (the scene format's `view: Standard | Agx | Filmic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ViewArg {
    /// Gamma 2.0 (sqrt, clipped at 1), the RTIOW convention, close to the sRGB curve;
    /// what every image looked like before views.
    Standard,
    /// Blender's AgX (base, sRGB display): highlights roll off to white, saturated
    /// colours desaturate instead of clipping.
    Agx,
    /// John Hable's filmic curve (Uncharted 2, white point 11.2), then sRGB; not
    /// Blender's LUT-based Filmic.
    Filmic,
}

impl From<ViewArg> for ViewTransform {
    fn from(view: ViewArg) -> ViewTransform {
        match view {
            ViewArg::Standard => ViewTransform::Standard,
            ViewArg::Agx => ViewTransform::Agx,
            ViewArg::Filmic => ViewTransform::Filmic,
        }
    }
}

/// `--sampler` (the scene format's `sampler: Independent | Sobol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SamplerArg {
    /// Independent random numbers per pixel and sample (PCG).
    Independent,
    /// A scrambled Sobol low-discrepancy sequence: less noise at the same sample count.
    Sobol,
}

impl From<SamplerArg> for SamplerKind {
    fn from(sampler: SamplerArg) -> SamplerKind {
        match sampler {
            SamplerArg::Independent => SamplerKind::Independent,
            SamplerArg::Sobol => SamplerKind::Sobol,
        }
    }
}

/// An `--exposure`: a finite number of stops within ±20, as a scene's `exposure`.
pub(super) fn exposure(text: &str) -> Result<f32, String> {
    let stops: f32 = text.trim().parse().map_err(|_| format!("`{text}` is not a number of stops"))?;
    if !(stops.is_finite() && stops.abs() <= MAX_EXPOSURE) {
        return Err(format!("an exposure is between -{MAX_EXPOSURE} and {MAX_EXPOSURE} stops, not {text}"));
    }
    Ok(stops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposures_are_finite_stops_within_20() {
        assert_eq!(exposure("1.5"), Ok(1.5));
        assert_eq!(exposure("-20"), Ok(-20.0));
        for bad in ["20.5", "-21", "nan", "inf", "bright"] {
            assert!(exposure(bad).is_err(), "{bad}");
        }
    }
}
