//! Reads a terrain's heightmap image into pixel values (the `image` crate decodes).
//!
//! A value is the pixel as stored: 0..=255 in an 8-bit image, 0..=65535 in a 16-bit
//! one, so `height_scale` means the same whatever tool wrote the file. A colour
//! image gives its luma (alpha is ignored); float images are refused, since their
//! values are not the integer steps a voxel terrain is made of.

use std::path::Path;

use image::{DynamicImage, ImageDecoder, ImageReader};

use super::model::Heightmap;
use crate::limits;

/// The image at `path`, or why it cannot be a heightmap (one sentence, no file name:
/// the caller's message names it).
pub(crate) fn read(path: &Path) -> Result<Heightmap, String> {
    let (file, _) = crate::files::open_input(path, limits::MAX_INPUT_BYTES)
        .map_err(|e| format!("cannot open `{}`: {e}", path.display()))?;
    let reader = ImageReader::new(std::io::BufReader::new(file))
        .with_guessed_format()
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let decoder = reader.into_decoder().map_err(|e| format!("not a readable image: {e}"))?;
    // Checked before decoding: a too-large image is refused without allocating it.
    let (width, depth) = decoder.dimensions();
    let pixels = u64::from(width) * u64::from(depth);
    if pixels > limits::MAX_BOXES as u64 {
        return Err(format!(
            "it is {width} x {depth} pixels; at most {} pixels (e.g. 4096 x 4096) are supported",
            limits::MAX_BOXES
        ));
    }
    let image = DynamicImage::from_decoder(decoder).map_err(|e| format!("not a readable image: {e}"))?;
    let color = image.color();
    let values = match image {
        DynamicImage::ImageLuma8(gray) => gray.into_raw().into_iter().map(u16::from).collect(),
        DynamicImage::ImageLuma16(gray) => gray.into_raw(),
        _ if color.has_alpha() || color.has_color() => {
            match color.bytes_per_pixel() / color.channel_count() {
                1 => image.to_luma8().into_raw().into_iter().map(u16::from).collect(),
                2 => image.to_luma16().into_raw(),
                _ => return Err(format!("its pixels are floats ({color:?}); use an 8- or 16-bit image")),
            }
        }
        _ => return Err(format!("its pixels are {color:?}; use an 8- or 16-bit image")),
    };
    Ok(Heightmap { path: path.to_owned(), width, depth, values })
}
