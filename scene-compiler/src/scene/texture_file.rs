//! Reads a texture image (PNG, JPEG, OpenEXR, Radiance HDR) into the linear RGB texels
//! of a [`TextureImage`], through `image_file` (8- and 16-bit images are sRGB and are
//! decoded to linear; float images are linear). Texels must be finite and not negative.
//!
//! A scene's images are read through here by loading (`load.rs`), an editor's edit's
//! as a file's, with the same messages.

use std::path::Path;

use super::image_file::{self, Encoding, LinearImage};
use super::material::MAP_FIELDS;
use super::model::{Maps, TextureImage};
use crate::limits;

/// The hint under a texture image that cannot be used, for a file and an edit alike.
pub(crate) const IMAGE_HINT: &str =
    "the path is relative to the scene file's folder; images are .png, .jpg, .exr or .hdr";

/// The image a texture names as `file` (relative to `folder`, the scene file's), or the
/// message that says why it cannot be used, naming `file` as the scene writes it;
/// refused from its header when it has more than `max_texels` texels.
pub(crate) fn read_named_within(
    folder: &Path,
    file: &str,
    encoding: Encoding,
    max_texels: u64,
) -> Result<TextureImage, String> {
    let path = folder.join(file);
    image_file::read_linear_rgb(&path, max_texels, encoding)
        .and_then(|image| texture(image, &path))
        .map_err(|error| format!("cannot use texture image `{file}`: {error}"))
}

/// How the image of a material's texture in `field` is encoded: the data maps
/// (metallic-roughness, normal) are numbers, everything else colour.
pub(crate) fn encoding_of(field: &str) -> Encoding {
    match MAP_FIELDS.iter().position(|&f| f == field) {
        Some(i) if Maps::is_data(i) => Encoding::Data,
        _ => Encoding::Color,
    }
}

/// The image at `path`, or why it cannot be a texture (one sentence, no file name: the
/// caller's message names it).
pub(crate) fn read(path: &Path, encoding: Encoding) -> Result<TextureImage, String> {
    texture(image_file::read_linear_rgb(path, limits::MAX_TEXELS as u64, encoding)?, path)
}

/// An image held in memory (a glTF model's embedded texture); `origin` is the file it
/// came from, which a live session watches.
pub(crate) fn from_memory(bytes: &[u8], origin: &Path, encoding: Encoding) -> Result<TextureImage, String> {
    texture(image_file::decode_linear_rgb(bytes, limits::MAX_TEXELS as u64, encoding)?, origin)
}

fn texture(image: LinearImage, origin: &Path) -> Result<TextureImage, String> {
    let LinearImage { width, height, texels, alpha } = image;
    if let Some(i) = texels.iter().position(|c| !crate::ranges::radiance_ok(c)) {
        let (x, y) = (i as u32 % width, i as u32 / width);
        return Err(format!(
            "pixel ({x}, {y}) is {:?}: texels must be finite, not negative and at most 1e9",
            texels[i]
        ));
    }
    Ok(TextureImage { path: origin.to_owned(), width, height, texels, alpha })
}
