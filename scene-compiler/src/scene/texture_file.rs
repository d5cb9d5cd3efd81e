//! Reads a texture image (PNG, JPEG, OpenEXR, Radiance HDR) into the linear RGB texels
//! of a [`TextureImage`], through `image_file` (8- and 16-bit images are sRGB and are
//! decoded to linear; float images are linear). Texels must be finite and not negative.
//!
//! Also what the editor's texture edits need besides the file checks of `validate`
//! (which both a scene file and an in-memory scene go through): the images an edit
//! names, read as a file's are ([`read_unread`]), and what only an in-memory texture
//! can get wrong ([`model_problem`]).

use std::path::Path;
use std::sync::Arc;

use super::image_file::{self, Encoding, LinearImage};
use super::material::{MAP_FIELDS, MaterialKind};
use super::model::{Maps, Scene, Texture, TextureImage};
use super::spans::ValuePath;
use super::validate::Issue;
use crate::limits;

/// The hint under a texture image that cannot be used, for a file and an edit alike.
pub(crate) const IMAGE_HINT: &str =
    "the path is relative to the scene file's folder; images are .png, .jpg, .exr or .hdr";

/// The image a texture names as `file` (relative to `folder`, the scene file's), or the
/// message that says why it cannot be used, naming `file` as the scene writes it.
pub(crate) fn read_named(folder: &Path, file: &str, encoding: Encoding) -> Result<TextureImage, String> {
    read_named_within(folder, file, encoding, limits::MAX_TEXELS as u64)
}

/// [`read_named`], refusing from its header an image of more than `max_texels` texels.
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

/// Reads every image of `scene`'s material textures that an edit named and did not read
/// ([`TextureImage::is_unread`]) from `folder`; an image that cannot be used is an issue
/// at the texture's `file`, with the message and hint a scene file's would get.
pub(crate) fn read_unread(scene: &mut Scene, folder: &Path) -> Vec<Issue> {
    let mut issues = Vec::new();
    for (i, material) in scene.materials.iter_mut().enumerate() {
        let colour_field = material.kind.texture_field();
        let [a, b, c] = material.maps.slots_mut();
        let slots = [
            (&mut material.texture, colour_field),
            (a, MAP_FIELDS[0]),
            (b, MAP_FIELDS[1]),
            (c, MAP_FIELDS[2]),
        ];
        for (texture, field) in slots {
            let Some(Texture::Image { file, image, .. }) = texture else { continue };
            if !image.is_unread() {
                continue;
            }
            match read_named(folder, file, encoding_of(field)) {
                Ok(read) => *image = Arc::new(read),
                Err(message) => issues.push(Issue {
                    path: ValuePath::root().field("materials").index(i).field(field).field("file"),
                    message,
                    label: "this image".to_owned(),
                    hint: Some(IMAGE_HINT.to_owned()),
                    also: None,
                }),
            }
        }
    }
    issues
}

/// What a texture in memory can get wrong that a scene file cannot write: a texture on
/// a Dielectric (its field, `""` for the texture itself, and the message), an image not
/// read yet, or one whose texels do not fill its size. Its parameters are checked by
/// `validate`'s file checks.
pub(crate) fn model_problem(
    material: &str,
    kind: &MaterialKind,
    texture: &Texture,
) -> Option<(&'static str, String)> {
    if !kind.takes_texture() {
        return Some(("", format!("material `{material}` is a Dielectric, which takes no texture")));
    }
    let Texture::Image { file, image, .. } = texture else { return None };
    let side = limits::MAX_IMAGE_SIDE;
    let (width, height) = (image.width, image.height);
    if image.is_unread() {
        Some(("file", format!("`file` of the texture of material `{material}` (`{file}`) was not read")))
    } else if width == 0
        || height == 0
        || width > side
        || height > side
        || image.texels.len() as u64 != u64::from(width) * u64::from(height)
        || image.texels.len() > limits::MAX_TEXELS
        || !(image.alpha.is_empty() || image.alpha.len() == image.texels.len())
    {
        let texels = image.texels.len();
        let what = format!("`file` of the texture of material `{material}` (`{file}`)");
        Some(("file", format!("{what} is {width} x {height} pixels with {texels} texels")))
    } else {
        None
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
