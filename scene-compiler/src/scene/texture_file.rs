//! Reads a texture image (PNG, JPEG, OpenEXR, Radiance HDR) into the linear RGB texels
//! of a [`TextureImage`], through `image_file` (8- and 16-bit images are sRGB and are
//! decoded to linear; float images are linear). Texels must be finite and not negative.

use std::path::Path;

use super::image_file::{self, LinearImage};
use super::model::TextureImage;
use crate::limits;

/// The image at `path`, or why it cannot be a texture (one sentence, no file name: the
/// caller's message names it).
pub(crate) fn read(path: &Path) -> Result<TextureImage, String> {
    texture(image_file::read_linear_rgb(path, limits::MAX_TEXELS as u64)?, path)
}

/// An image held in memory (a glTF model's embedded texture); `origin` is the file it
/// came from, which a live session watches.
pub(crate) fn from_memory(bytes: &[u8], origin: &Path) -> Result<TextureImage, String> {
    texture(image_file::decode_linear_rgb(bytes, limits::MAX_TEXELS as u64)?, origin)
}

fn texture(image: LinearImage, origin: &Path) -> Result<TextureImage, String> {
    let LinearImage { width, height, texels } = image;
    if let Some(i) = texels.iter().position(|c| !c.iter().all(|v| v.is_finite() && *v >= 0.0)) {
        let (x, y) = (i as u32 % width, i as u32 / width);
        return Err(format!("pixel ({x}, {y}) is {:?}: texels must be finite and not negative", texels[i]));
    }
    Ok(TextureImage { path: origin.to_owned(), width, height, texels })
}
