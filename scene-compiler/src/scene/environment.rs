//! Reads an environment sky's image (`sky: Environment(image: ...)`) and checks its
//! texels: radiance must be finite and non-negative. The file is decoded by
//! [`super::image_file`] (float formats as stored, 8-bit ones decoded from sRGB).
//!
//! Not here: the sampling table (`blob/environment.rs`), lookups (the renderers).

use std::path::Path;

use super::image_file;
use super::model::EnvImage;
use crate::limits;

/// The image at `path`, or why it cannot light a scene (one sentence).
pub(crate) fn read(path: &Path) -> Result<EnvImage, String> {
    let image = image_file::read_linear_rgb(path, limits::MAX_ENV_TEXELS, image_file::Encoding::Color)?;
    let width = image.width as usize;
    if let Some(i) = image.texels.iter().position(|t| !crate::ranges::radiance_ok(t)) {
        let (x, y) = (i % width, i / width);
        let [r, g, b] = image.texels[i];
        return Err(format!(
            "pixel ({x}, {y}) is ({r}, {g}, {b}); radiance must be finite, non-negative and at most 1e9"
        ));
    }
    Ok(EnvImage { path: path.to_owned(), width: image.width, height: image.height, texels: image.texels })
}
