//! How a film's linear average becomes an 8-bit image: times `2^exposure`, then the
//! view transform, then 8 bits (docs/path-tracing.md, "Accumulation and output"). Every
//! RGBA8 image made on the host goes through [`Tonemap::rgba8`] (the CPU film, the sums
//! of several GPUs, `renderer merge`); the kernels' twin is `kernels/view_transform.cuh`,
//! run by the `tonemap` kernel, and the numbers both use are in [`super::constants`].
//! EXR files and partial films are never tonemapped: they hold the linear average.
//!
//! The views ([`ViewTransform`]):
//! - `Standard`: gamma 2.0, `u8(255.99 · clamp(sqrt(c), 0, 1))`, the "Ray Tracing in One
//!   Weekend" convention, which approximates the sRGB curve. At exposure 0 it is the
//!   project's image encoding from before view transforms, bit for bit (golden images
//!   and the benchmark depend on it).
//! - `Agx`: Blender's AgX base view for an sRGB display (look "None"), as Benjamin
//!   Wrensch's minimal AgX computes it (iolite, 2023,
//!   <https://iolite-engine.com/blog_posts/minimal_agx_implementation>): the inset
//!   matrix, log2 encoding over `[AGX_MIN_EV, AGX_MAX_EV]`, his 6th-order polynomial fit
//!   of the default contrast sigmoid, the outset matrix, the 2.2 power back to linear
//!   (his `agxEotf`), then the sRGB encoding.
//! - `Filmic`: John Hable's filmic curve ("Uncharted 2: HDR Lighting", GDC 2010) with
//!   his constants, `f(bias · c) / f(W)`, then the sRGB encoding. This is Hable's
//!   published curve, not Blender's Filmic (a LUT the project does not ship).

use scene_compiler::scene::{RenderSettings, ViewTransform};

use super::constants::{
    AGX_DISPLAY_GAMMA, AGX_INSET, AGX_LOG_FLOOR, AGX_MAX_EV, AGX_MIN_EV, AGX_OUTSET, AGX_SIGMOID, HABLE_A,
    HABLE_B, HABLE_C, HABLE_D, HABLE_E, HABLE_EXPOSURE_BIAS, HABLE_F, HABLE_WHITE, QUANTIZE_SCALE,
    SRGB_EXPONENT, SRGB_LINEAR_MAX, SRGB_LINEAR_SLOPE, SRGB_OFFSET, SRGB_SCALE,
};

/// What turns a linear image into display values: the exposure in stops and the view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tonemap {
    /// Stops: the linear average is multiplied by `2^exposure` first.
    pub exposure: f32,
    pub view: ViewTransform,
}

impl Default for Tonemap {
    fn default() -> Tonemap {
        Tonemap::STANDARD
    }
}

impl Tonemap {
    /// Exposure 0, the Standard view: gamma 2.0, as every image was before views.
    pub const STANDARD: Tonemap = Tonemap { exposure: 0.0, view: ViewTransform::Standard };

    /// The exposure and view of `settings` (the scene's, with the user's overrides).
    pub fn of(settings: &RenderSettings) -> Tonemap {
        Tonemap { exposure: settings.exposure, view: settings.view }
    }

    /// `2^exposure`, the factor on the linear average (exactly 1 at exposure 0, so the
    /// Standard view at exposure 0 is today's gamma 2 bit for bit).
    pub fn scale(self) -> f32 {
        self.exposure.exp2()
    }

    /// One pixel's linear average to RGBA8 (alpha 255).
    #[inline]
    pub fn rgba8(self, linear: [f32; 3]) -> [u8; 4] {
        encode(self.view, self.scale(), linear)
    }

    /// A whole image of linear averages to RGBA8, row by row as given.
    pub fn image(self, linear: impl Iterator<Item = [f32; 3]>) -> Vec<u8> {
        let scale = self.scale();
        linear.flat_map(|c| encode(self.view, scale, c)).collect()
    }
}

/// `linear · scale` through `view`, to RGBA8: the twin of `view_transform_rgba8` in
/// kernels/view_transform.cuh. NaN channels give 0.
#[inline]
pub fn encode(view: ViewTransform, scale: f32, linear: [f32; 3]) -> [u8; 4] {
    let [r, g, b] = display(view, linear.map(|c| c * scale));
    [quantize(r), quantize(g), quantize(b), u8::MAX]
}

/// Exposed linear radiance to display values in [0, 1] (before clipping) by `view`.
pub fn display(view: ViewTransform, rgb: [f32; 3]) -> [f32; 3] {
    match view {
        ViewTransform::Standard => rgb.map(f32::sqrt),
        ViewTransform::Agx => agx(rgb),
        ViewTransform::Filmic => rgb.map(filmic),
    }
}

/// A display value to 8 bits: `u8(QUANTIZE_SCALE · clamp(v, 0, 1))`; NaN maps to 0 (`as`
/// saturates).
#[inline]
pub fn quantize(v: f32) -> u8 {
    (QUANTIZE_SCALE * v.clamp(0.0, 1.0)) as u8
}

/// The sRGB encoding (IEC 61966-2-1) of a linear value in [0, 1].
pub fn srgb_encode(c: f32) -> f32 {
    if c <= SRGB_LINEAR_MAX {
        SRGB_LINEAR_SLOPE * c
    } else {
        SRGB_SCALE * c.powf(1.0 / SRGB_EXPONENT) - SRGB_OFFSET
    }
}

/// `m · v` for a matrix given row by row.
fn mat3(m: [[f32; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    m.map(|row| row[0] * v[0] + row[1] * v[1] + row[2] * v[2])
}

/// AgX's contrast sigmoid: Wrensch's polynomial on the log-encoded `x` in [0, 1],
/// evaluated by Horner's rule (as the kernel does).
pub fn agx_sigmoid(x: f32) -> f32 {
    AGX_SIGMOID.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

/// Blender's AgX base (sRGB display) in Wrensch's minimal form; values in [0, 1]. Zero,
/// negative and NaN channels are taken as the bottom of the encoded range.
pub fn agx(rgb: [f32; 3]) -> [f32; 3] {
    let encoded = mat3(AGX_INSET, rgb).map(|c| {
        let ev = c.max(AGX_LOG_FLOOR).log2().clamp(AGX_MIN_EV, AGX_MAX_EV);
        agx_sigmoid((ev - AGX_MIN_EV) / (AGX_MAX_EV - AGX_MIN_EV))
    });
    mat3(AGX_OUTSET, encoded).map(|c| srgb_encode(c.clamp(0.0, 1.0).powf(AGX_DISPLAY_GAMMA)))
}

/// Hable's curve, `(x(Ax + CB) + DE) / (x(Ax + B) + DF) − E/F`.
pub fn hable(x: f32) -> f32 {
    (x * (HABLE_A * x + HABLE_C * HABLE_B) + HABLE_D * HABLE_E)
        / (x * (HABLE_A * x + HABLE_B) + HABLE_D * HABLE_F)
        - HABLE_E / HABLE_F
}

/// Hable's filmic view of one channel: `f(bias · c) / f(W)`, clipped to [0, 1], then
/// the sRGB encoding. Negative and NaN channels give 0.
pub fn filmic(c: f32) -> f32 {
    let mapped = hable(HABLE_EXPOSURE_BIAS * c.max(0.0)) / hable(HABLE_WHITE);
    srgb_encode(mapped.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn byte(view: ViewTransform, c: f32) -> u8 {
        encode(view, 1.0, [c; 3])[0]
    }

    #[test]
    fn standard_at_exposure_0_is_gamma_2_clamped_and_nan_safe() {
        let standard = |c| Tonemap::STANDARD.rgba8([c, 0.0, 0.0])[0];
        for (c, expected) in [(0.0, 0), (1.0, 255), (4.0, 255), (0.25, 127), (f32::NAN, 0), (-1.0, 0)] {
            assert_eq!(standard(c), expected, "{c}");
        }
        assert_eq!(Tonemap::STANDARD.rgba8([1.0, 0.0, 0.25]), [255, 0, 127, 255]);
        // The formula every golden image was made with, on a dense ramp.
        for i in 0..=20_000 {
            let c = i as f32 / 10_000.0;
            assert_eq!(standard(c), (255.99 * c.sqrt().clamp(0.0, 1.0)) as u8, "{c}");
        }
    }

    #[test]
    fn one_stop_doubles_the_linear_value_before_the_view() {
        assert_eq!(Tonemap { exposure: 1.0, ..Tonemap::STANDARD }.scale(), 2.0);
        assert_eq!(Tonemap { exposure: -2.0, ..Tonemap::STANDARD }.scale(), 0.25);
        assert_eq!(Tonemap::STANDARD.scale(), 1.0);
        for view in ViewTransform::ALL {
            for c in [0.01f32, 0.05, 0.1, 0.18, 0.4, 1.0, 3.0] {
                let rgb = [c, 0.5 * c, 0.25 * c];
                let brighter = Tonemap { exposure: 1.0, view }.rgba8(rgb);
                assert_eq!(brighter, Tonemap { exposure: 0.0, view }.rgba8(rgb.map(|x| 2.0 * x)), "{view:?}");
                let darker = Tonemap { exposure: -1.0, view }.rgba8(rgb);
                assert_eq!(darker, Tonemap { exposure: 0.0, view }.rgba8(rgb.map(|x| 0.5 * x)), "{view:?}");
            }
        }
        // +1 stop: 0.25 shows as 0.5 does, gamma 2: u8(255.99 sqrt(0.5)) = 181.
        assert_eq!(Tonemap { exposure: 1.0, ..Tonemap::STANDARD }.rgba8([0.25; 3])[0], 181);
    }

    #[test]
    fn agx_is_blenders_base_curve_at_known_points() {
        // Mid grey: the inset keeps a grey (its rows sum to 1), log2(0.18) encodes to
        // 0.6060, the sigmoid gives 0.4967; through the outset, the 2.2 power and the sRGB
        // encoding that shows as 0.5005 (computed in f64 from the published numbers).
        let [r, g, b] = agx([0.18; 3]);
        for c in [r, g, b] {
            assert!((c - 0.5005).abs() < 1e-3, "mid grey {c}");
        }
        assert!((agx_sigmoid(0.606_0) - 0.4967).abs() < 1e-3);
        // Black: the bottom of the range, the sigmoid's -0.00232, clipped to 0.
        assert_eq!(agx([0.0; 3]), [0.0; 3]);
        assert_eq!(agx([f32::NAN, -1.0, 0.0]), [0.0; 3]);
        // Very bright: the top of the range, near white.
        for c in agx([1e6; 3]) {
            assert!(c > 0.99 && c <= 1.0, "white {c}");
        }
        // Monotonic along a grey ramp over the encoded range, and through 8 bits.
        let mut last = (0.0, 0u8);
        for i in 0..=400 {
            let c = (AGX_MIN_EV + (AGX_MAX_EV - AGX_MIN_EV + 1.0) * i as f32 / 400.0).exp2();
            let (v, q) = (agx([c; 3])[0], byte(ViewTransform::Agx, c));
            assert!(v >= last.0 && q >= last.1, "not monotonic at {c}: {v} after {}", last.0);
            last = (v, q);
        }
        // A saturated red keeps some of itself and lifts the other channels (AgX's
        // desaturation of highlights), instead of clipping to pure red.
        let [r, g, b] = agx([16.0, 0.0, 0.0]);
        assert!(r > g && g > 0.1 && b > 0.1, "{r} {g} {b}");
    }

    #[test]
    fn filmic_is_hables_curve_at_known_points() {
        // f(0) = DE/DF − E/F = 0, up to f32 rounding of the two quotients.
        assert!(hable(0.0).abs() < 1e-7, "{}", hable(0.0));
        for black in [0.0, -1.0, f32::NAN] {
            assert!(filmic(black) < 1e-6, "{black}");
            assert_eq!(byte(ViewTransform::Filmic, black), 0, "{black}");
        }
        // f(W) from Hable's constants: (11.2(0.15·11.2 + 0.05) + 0.004) /
        // (11.2(0.15·11.2 + 0.5) + 0.06) − 1/15 = 19.380 / 24.476 − 0.0667 = 0.72513.
        assert!((hable(HABLE_WHITE) - 0.725_13).abs() < 1e-5, "{}", hable(HABLE_WHITE));
        // W / bias is the white point: 1.0, then sRGB 1.0.
        assert!((filmic(HABLE_WHITE / HABLE_EXPOSURE_BIAS) - 1.0).abs() < 1e-5);
        assert_eq!(byte(ViewTransform::Filmic, HABLE_WHITE / HABLE_EXPOSURE_BIAS), 255);
        // 0.18 mid grey: f(0.36) / f(W) = 0.09306 / 0.72513 = 0.12834 linear.
        let x = 0.36f32;
        let f = (x * (0.15 * x + 0.05) + 0.004) / (x * (0.15 * x + 0.5) + 0.06) - 0.02 / 0.3;
        let grey = f / hable(HABLE_WHITE);
        assert!((grey - 0.128_34).abs() < 1e-4, "{grey}");
        assert!((filmic(0.18) - srgb_encode(grey)).abs() < 1e-6);
        // Monotonic up to white, and clipped above it.
        let mut last = 0.0;
        for i in 0..=600 {
            let v = filmic(i as f32 / 100.0);
            assert!(v >= last, "{v} after {last}");
            last = v;
        }
        assert!((filmic(100.0) - 1.0).abs() < 1e-6);
        assert_eq!(byte(ViewTransform::Filmic, 100.0), 255);
    }

    #[test]
    fn the_srgb_encoding_meets_its_linear_segment() {
        assert_eq!(srgb_encode(0.0), 0.0);
        assert!((srgb_encode(1.0) - 1.0).abs() < 1e-6);
        let edge = 0.003_130_8f32;
        assert!((srgb_encode(edge) - srgb_encode(edge * 1.000_01)).abs() < 1e-5);
        assert!((srgb_encode(0.18) - 0.461_356).abs() < 1e-5);
    }
}
