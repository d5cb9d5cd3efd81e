//! Reads a texture image into linear RGB texels (the `image` crate decodes PNG, JPEG,
//! EXR and Radiance HDR).
//!
//! Float images (EXR, HDR) are linear and kept as they are; 8- and 16-bit images are
//! sRGB-encoded colour, as painting tools and cameras write them, and are decoded to
//! linear with the sRGB transfer function. Alpha is ignored (surfaces are opaque).

use std::path::Path;

use image::{DynamicImage, ImageDecoder, ImageReader};

use super::model::TextureImage;
use crate::limits;

/// The image at `path`, or why it cannot be a texture (one sentence, no file name: the
/// caller's message names it).
pub(crate) fn read(path: &Path) -> Result<TextureImage, String> {
    let reader = ImageReader::open(path)
        .map_err(|e| format!("cannot open `{}`: {e}", path.display()))?
        .with_guessed_format()
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    decode(reader, path)
}

/// An image held in memory (a glTF model's embedded texture); `origin` is the file it
/// came from, which a live session watches.
pub(crate) fn from_memory(bytes: &[u8], origin: &Path) -> Result<TextureImage, String> {
    let reader = ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("not a readable image: {e}"))?;
    decode(reader, origin)
}

fn decode<R: std::io::BufRead + std::io::Seek>(
    reader: ImageReader<R>,
    origin: &Path,
) -> Result<TextureImage, String> {
    let decoder = reader.into_decoder().map_err(|e| format!("not a readable image: {e}"))?;
    // Checked before decoding: a too-large image is refused without allocating it.
    let (width, height) = decoder.dimensions();
    let side = limits::MAX_TEXTURE_SIDE;
    if width > side || height > side || u64::from(width) * u64::from(height) > limits::MAX_TEXELS as u64 {
        return Err(format!(
            "it is {width} x {height} pixels; textures are at most {side} pixels on a side and {} in all",
            limits::MAX_TEXELS
        ));
    }
    if width == 0 || height == 0 {
        return Err("the image has no pixels".into());
    }
    let image = DynamicImage::from_decoder(decoder).map_err(|e| format!("not a readable image: {e}"))?;
    let linear = matches!(image, DynamicImage::ImageRgb32F(_) | DynamicImage::ImageRgba32F(_));
    let rgb = image.to_rgb32f();
    let mut texels = Vec::with_capacity(rgb.len() / 3);
    for (i, px) in rgb.pixels().enumerate() {
        let c = px.0;
        if !c.iter().all(|v| v.is_finite() && *v >= 0.0) {
            let (x, y) = (i as u32 % width, i as u32 / width);
            return Err(format!("pixel ({x}, {y}) is {c:?}: texels must be finite and not negative"));
        }
        texels.push(if linear { c } else { c.map(srgb_to_linear) });
    }
    Ok(TextureImage { path: origin.to_owned(), width, height, texels })
}

/// The sRGB transfer function's inverse (IEC 61966-2-1): an encoded value in [0, 1] to
/// linear light.
pub fn srgb_to_linear(encoded: f32) -> f32 {
    if encoded <= 0.04045 { encoded / 12.92 } else { ((encoded + 0.055) / 1.055).powf(2.4) }
}
