//! Image files from a backend's film: PNG (8-bit RGBA, gamma 2, as tonemapped by the
//! backend) or OpenEXR (32-bit float linear average), chosen by the extension.

use std::path::Path;

use anyhow::Context;

use crate::backend::Backend;

/// An output file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Exr,
}

/// An output path whose extension names no format we write.
#[derive(Debug, thiserror::Error)]
#[error(
    "cannot write `{path}`: unknown image extension; use `.png` (8-bit, gamma 2) or `.exr` (linear float)"
)]
pub struct UnknownFormat {
    pub path: String,
}

impl ImageFormat {
    /// The format named by `path`'s extension (case-insensitive).
    pub fn from_path(path: &Path) -> Result<ImageFormat, UnknownFormat> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(ImageFormat::Png),
            Some("exr") => Ok(ImageFormat::Exr),
            _ => Err(UnknownFormat { path: path.display().to_string() }),
        }
    }
}

/// The film read back in the form a format stores.
#[derive(Clone, Debug, PartialEq)]
pub enum Pixels {
    Rgba8(Vec<u8>),
    Linear(Vec<[f32; 4]>),
}

/// Reads the film back for `format`.
pub fn read_back(backend: &mut dyn Backend, format: ImageFormat) -> anyhow::Result<Pixels> {
    Ok(match format {
        ImageFormat::Png => Pixels::Rgba8(backend.read_rgba8()?),
        ImageFormat::Exr => Pixels::Linear(backend.read_linear()?),
    })
}

/// Encodes `pixels` (`width × height`, top row first) to `path`.
pub fn write(path: &Path, width: u32, height: u32, pixels: Pixels) -> anyhow::Result<()> {
    let size_error = || format!("backend returned a film that is not {width}x{height}");
    match pixels {
        Pixels::Rgba8(bytes) => image::RgbaImage::from_raw(width, height, bytes)
            .with_context(size_error)?
            .save_with_format(path, image::ImageFormat::Png),
        Pixels::Linear(rgba) => {
            image::Rgba32FImage::from_raw(width, height, rgba.into_iter().flatten().collect())
                .with_context(size_error)?
                .save_with_format(path, image::ImageFormat::OpenExr)
        }
    }
    .with_context(|| format!("cannot write `{}`", path.display()))
}
