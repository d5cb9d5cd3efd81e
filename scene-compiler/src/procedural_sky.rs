//! A procedural HDR sky for environment lighting: a gradient from the horizon to the
//! zenith, a darker ground, and a sun disc, as an equirectangular image in the
//! convention of `sky: Environment(...)` (docs/path-tracing.md, "Environment"), written
//! as OpenEXR or Radiance HDR. What `scene-gen sky` writes and the tests read, so no
//! outside image is needed. Nothing in the compiler uses this module.

use std::f32::consts::PI;
use std::path::Path;

use glam::Vec3;

use crate::scene::image_file::LinearImage;

/// What the sky looks like.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkyParams {
    /// Image width; the height is half of it.
    pub width: u32,
    /// The sun's elevation above the horizon and its azimuth (0 along +Z, 90 along +X),
    /// in degrees, in the image's own frame.
    pub sun_elevation_deg: f32,
    pub sun_azimuth_deg: f32,
    /// The disc's angular radius in degrees, and its radiance.
    pub sun_radius_deg: f32,
    pub sun_radiance: Vec3,
    /// Radiance at the zenith, at the horizon, and of the ground (below the horizon).
    pub zenith: Vec3,
    pub horizon: Vec3,
    pub ground: Vec3,
}

impl Default for SkyParams {
    /// A late-afternoon sky: a sun 20 degrees up with a 1.5 degree disc.
    fn default() -> SkyParams {
        SkyParams {
            width: 256,
            sun_elevation_deg: 20.0,
            sun_azimuth_deg: 60.0,
            sun_radius_deg: 1.5,
            sun_radiance: Vec3::new(900.0, 700.0, 450.0),
            zenith: Vec3::new(0.25, 0.45, 0.9),
            horizon: Vec3::new(1.1, 0.85, 0.65),
            ground: Vec3::new(0.18, 0.15, 0.12),
        }
    }
}

/// The unit direction at image coordinates `(u, v)` (image frame, +Y up).
pub fn direction(u: f32, v: f32) -> Vec3 {
    let (sin_theta, cos_theta) = (PI * v).sin_cos();
    let (sin_phi, cos_phi) = (2.0 * PI * u).sin_cos();
    Vec3::new(sin_theta * sin_phi, cos_theta, -sin_theta * cos_phi)
}

/// The unit direction of elevation `elevation_deg` and azimuth `azimuth_deg` (0 along
/// +Z, 90 along +X).
pub fn sun_direction(elevation_deg: f32, azimuth_deg: f32) -> Vec3 {
    let (e, a) = (elevation_deg.to_radians(), azimuth_deg.to_radians());
    Vec3::new(e.cos() * a.sin(), e.sin(), e.cos() * a.cos())
}

/// The sky's texels. Each texel averages 4 x 4 points, so a sun smaller than a texel
/// still carries about its power (radiance times the disc's solid angle).
pub fn sky(p: &SkyParams) -> LinearImage {
    let (width, height) = (p.width.max(2), (p.width / 2).max(1));
    let sun = sun_direction(p.sun_elevation_deg, p.sun_azimuth_deg);
    let cos_sun = p.sun_radius_deg.to_radians().cos();
    const N: u32 = 4;
    let mut texels = Vec::with_capacity((width * height) as usize);
    for j in 0..height {
        for i in 0..width {
            let mut sum = Vec3::ZERO;
            for sj in 0..N {
                for si in 0..N {
                    let u = (i as f32 + (si as f32 + 0.5) / N as f32) / width as f32;
                    let v = (j as f32 + (sj as f32 + 0.5) / N as f32) / height as f32;
                    let d = direction(u, v);
                    sum += if d.dot(sun) >= cos_sun {
                        p.sun_radiance
                    } else if d.y >= 0.0 {
                        p.horizon.lerp(p.zenith, d.y.sqrt())
                    } else {
                        p.ground
                    };
                }
            }
            texels.push((sum / (N * N) as f32).to_array());
        }
    }
    LinearImage { width, height, texels, alpha: Vec::new() }
}

/// Writes `image` as OpenEXR (`.exr`, 32-bit float RGB) or Radiance HDR (`.hdr`), by
/// the extension.
pub fn write(image: &LinearImage, path: &Path) -> Result<(), String> {
    let floats: Vec<f32> = image.texels.iter().flatten().copied().collect();
    let buffer = image::Rgb32FImage::from_raw(image.width, image.height, floats)
        .ok_or_else(|| "the texel count does not match the size".to_owned())?;
    let dynamic = image::DynamicImage::ImageRgb32F(buffer);
    let format = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("exr") => image::ImageFormat::OpenExr,
        Some("hdr") => image::ImageFormat::Hdr,
        _ => return Err(format!("`{}`: write a sky as .exr or .hdr", path.display())),
    };
    dynamic.save_with_format(path, format).map_err(|e| format!("writing `{}`: {e}", path.display()))
}
