//! Reads a colour image file into linear RGB floats: what an environment map and the
//! image textures (`texture_file`) are made of.
//!
//! Float formats (OpenEXR, Radiance HDR) are linear already and are taken as stored;
//! 8- and 16-bit formats (PNG, JPEG) are sRGB-encoded and are decoded to linear with
//! the exact sRGB curve ([`srgb_to_linear`]), unless they hold data ([`Encoding::Data`]:
//! a normal or metallic-roughness map, whose values are used as stored). An alpha
//! channel is kept beside the colour, never sRGB-decoded; a grey image gives equal
//! channels. Values are not checked here (an EXR may hold NaNs or negatives):
//! the caller decides what it accepts and says where.
//!
//! Not here: heightmaps (`heightmap.rs`), which want the stored integers, not colour.

use std::path::Path;

use image::{DynamicImage, ImageDecoder, ImageReader};

use crate::limits;

/// An image as linear RGB, row by row from the top row, left to right.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearImage {
    pub width: u32,
    pub height: u32,
    /// `width * height` texels, `[r, g, b]`.
    pub texels: Vec<[f32; 3]>,
    /// `width * height` alpha values, or empty when the image has no alpha channel.
    pub alpha: Vec<f32>,
}

/// What an 8- or 16-bit image's values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// sRGB-encoded colour (a photograph, a base colour texture): decoded to linear.
    Color,
    /// Numbers (a normal map, a metallic-roughness map): used as stored, scaled to [0, 1].
    Data,
}

/// The sRGB transfer function's inverse (IEC 61966-2-1): an encoded value in [0, 1]
/// to linear light, `c / 12.92` up to 0.04045, `((c + 0.055) / 1.055)^2.4` above.
pub fn srgb_to_linear(c: f32) -> f32 {
    let c = f64::from(c);
    let linear = if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    linear as f32
}

/// The image at `path` in linear RGB, or why it cannot be read (one sentence, without
/// the scene's name for the file: the caller's message names it). Images with more than
/// `max_texels` pixels, or a side above [`limits::MAX_IMAGE_SIDE`], are refused before
/// they are decoded.
pub fn read_linear_rgb(path: &Path, max_texels: u64, encoding: Encoding) -> Result<LinearImage, String> {
    let (file, _) = crate::files::open_input(path, limits::MAX_INPUT_BYTES)
        .map_err(|e| format!("cannot open `{}`: {e}", path.display()))?;
    let reader = ImageReader::new(std::io::BufReader::new(file))
        .with_guessed_format()
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    decode(reader, max_texels, encoding)
}

/// [`read_linear_rgb`] of an image held in memory (a glTF model's embedded texture).
pub fn decode_linear_rgb(bytes: &[u8], max_texels: u64, encoding: Encoding) -> Result<LinearImage, String> {
    let reader = ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("not a readable image: {e}"))?;
    decode(reader, max_texels, encoding)
}

fn decode<R: std::io::BufRead + std::io::Seek>(
    reader: ImageReader<R>,
    max_texels: u64,
    encoding: Encoding,
) -> Result<LinearImage, String> {
    let decoder = reader.into_decoder().map_err(|e| format!("not a readable image: {e}"))?;
    let (width, height) = decoder.dimensions();
    let side = limits::MAX_IMAGE_SIDE;
    if width > side || height > side || u64::from(width) * u64::from(height) > max_texels {
        return Err(format!(
            "it is {width} x {height} pixels; at most {max_texels} pixels and {side} on a side are supported"
        ));
    }
    if width == 0 || height == 0 {
        return Err("it has no pixels".to_owned());
    }
    let image = DynamicImage::from_decoder(decoder).map_err(|e| format!("not a readable image: {e}"))?;
    let color = image.color();
    let alpha = if color.has_alpha() {
        image.to_rgba32f().pixels().map(|p| p.0[3].clamp(0.0, 1.0)).collect()
    } else {
        Vec::new()
    };
    let decode = |v: f32| match encoding {
        Encoding::Color => srgb_to_linear(v),
        Encoding::Data => v,
    };
    let is_float = color.bytes_per_pixel() / color.channel_count() == 4;
    let texels = if is_float {
        image.into_rgb32f().pixels().map(|p| p.0).collect()
    } else if color.bytes_per_pixel() / color.channel_count() == 1 {
        // 8-bit: a table of the 256 decoded values.
        let table: Vec<f32> = (0..=255u8).map(|v| decode(f32::from(v) / 255.0)).collect();
        image.into_rgb8().pixels().map(|p| p.0.map(|v| table[usize::from(v)])).collect()
    } else {
        image.into_rgb16().pixels().map(|p| p.0.map(|v| decode(f32::from(v) / 65535.0))).collect()
    };
    Ok(LinearImage { width, height, texels, alpha })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_decodes_known_values() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert_eq!(srgb_to_linear(1.0), 1.0);
        // The linear segment: 10 / 255 is below the 0.04045 knee.
        assert_eq!(srgb_to_linear(10.0 / 255.0), (10.0f64 / 255.0 / 12.92) as f32);
        // Mid grey 128 / 255 is 0.2158605 linear (the usual table value).
        assert!((srgb_to_linear(128.0 / 255.0) - 0.215_860_5).abs() < 1e-6);
        // 188 / 255 is about half the light of white.
        assert!((srgb_to_linear(188.0 / 255.0) - 0.502_886).abs() < 1e-5);
    }
}
