//! What a compiled scene holds beyond what any one list's checks see, within the
//! blob's limits (`crate::limits`), so that a scene that validates compiles to a blob
//! that verifies (issue 37): the texels of every distinct image (scene textures and
//! the models' own, [`limits::MAX_TEXELS`] in all), the materials with the models'
//! appended, and one texture record per texture slot used.
//!
//! [`TexelBudget`] reads a scene file's texture images against what is left of the
//! texel limit, so the image that passes it is refused from its header, before it is
//! decoded (two 8192² images, 2^27 texels, were decoded whole: 5.6 GB).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::image_file::Encoding;
use super::model::{Material, Scene, Texture, TextureImage};
use super::texture_file;
use crate::limits;

/// The texture images a scene file's materials read so far, each file once.
#[derive(Default)]
pub(crate) struct TexelBudget {
    used: u64,
    read: HashMap<(PathBuf, Encoding), Arc<TextureImage>>,
}

impl TexelBudget {
    /// The image `file` (relative to `folder`) as [`texture_file::read_named_within`] reads it,
    /// refused from its header when its texels do not fit in what the images read
    /// before it left; an image read before is shared, not read or counted again.
    pub(crate) fn read(
        &mut self,
        folder: &Path,
        file: &str,
        encoding: Encoding,
    ) -> Result<Arc<TextureImage>, String> {
        let key = (folder.join(file), encoding);
        if let Some(image) = self.read.get(&key) {
            return Ok(image.clone());
        }
        let left = limits::MAX_TEXELS as u64 - self.used;
        let image = texture_file::read_named_within(folder, file, encoding, left).map_err(|e| {
            if self.used == 0 {
                e
            } else {
                format!(
                    "{e} (the scene's other texture images have {} of the {} texels all images together may have)",
                    self.used,
                    limits::MAX_TEXELS
                )
            }
        })?;
        let image = Arc::new(image);
        self.used += image.texels.len() as u64;
        self.read.insert(key, image.clone());
        Ok(image)
    }
}

/// Every texture the compiled scene has: the scene's materials', then those of the
/// models whose meshes use their own materials (`crate::meshes` appends them).
fn compiled_materials(scene: &Scene) -> impl Iterator<Item = (&Option<Texture>, [Option<&Texture>; 3])> {
    let own = scene.materials.iter().map(|m: &Material| (&m.texture, m.maps.slots()));
    let models = scene
        .meshes
        .iter()
        .filter(|m| m.material.is_none())
        .flat_map(|m| &m.data.materials)
        .map(|m| (&m.texture, m.maps.slots()));
    own.chain(models)
}

/// What the compiled scene's materials hold: how many materials and texture records,
/// and its distinct images (as `blob::textures` stores them: one `Arc`, or equal
/// images, once).
struct Contents<'a> {
    materials: usize,
    records: usize,
    images: Vec<&'a Arc<TextureImage>>,
}

impl Contents<'_> {
    fn of(scene: &Scene) -> Contents<'_> {
        let mut c = Contents { materials: 0, records: 0, images: Vec::new() };
        for (texture, maps) in compiled_materials(scene) {
            c.materials += 1;
            for t in texture.iter().chain(maps.into_iter().flatten()) {
                c.records += 1;
                if let Texture::Image { image, .. } = t
                    && !c.images.iter().any(|other| Arc::ptr_eq(other, image) || *other == image)
                {
                    c.images.push(image);
                }
            }
        }
        c
    }

    /// Width x height: what the blob stores for a read image (its texels fill its size).
    fn texels(&self) -> u64 {
        self.images.iter().map(|i| u64::from(i.width) * u64::from(i.height)).sum()
    }
}

/// The texels of the compiled scene's distinct texture images (the models' included).
pub(crate) fn texels(scene: &Scene) -> u64 {
    Contents::of(scene).texels()
}

/// What does not fit the blob: each problem as a sentence.
pub(crate) fn problems(scene: &Scene) -> Vec<String> {
    let mut out = Vec::new();
    let contents = Contents::of(scene);
    let Contents { materials, records, ref images } = contents;
    let texels = contents.texels();
    if texels > limits::MAX_TEXELS as u64 {
        out.push(format!(
            "the texture images have {texels} texels in all ({} distinct images, the models' included), more than the {} a scene may have",
            images.len(),
            limits::MAX_TEXELS
        ));
    }
    if materials > limits::MAX_MATERIALS {
        out.push(format!(
            "{materials} materials with the models' own, more than the {} a scene may have",
            limits::MAX_MATERIALS
        ));
    }
    // The blob's `texture_count` has the materials' limit.
    if records > limits::MAX_MATERIALS {
        out.push(format!(
            "{records} textures with the models' own, more than the {} a scene may have",
            limits::MAX_MATERIALS
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{MaterialKind, Wrap};
    use glam::Vec3;

    /// An image of `width` x `height` (the budget counts its size; one texel stands in
    /// for the rest, so the test allocates nothing).
    fn image(width: u32, height: u32) -> Arc<TextureImage> {
        Arc::new(TextureImage {
            path: PathBuf::new(),
            width,
            height,
            texels: vec![[0.0; 3]],
            alpha: Vec::new(),
        })
    }

    fn textured(name: &str, image: &Arc<TextureImage>) -> Material {
        let mut m = Material::new(name, MaterialKind::Lambert { albedo: Vec3::ONE });
        m.texture = Some(Texture::Image {
            file: name.into(),
            image: image.clone(),
            wrap: Wrap::Repeat,
            uv_transform: Default::default(),
        });
        m
    }

    #[test]
    fn distinct_images_count_together_and_a_shared_one_once() {
        let big = image(8192, 8192);
        let shared = Scene { materials: vec![textured("a", &big), textured("b", &big)], ..Scene::default() };
        assert!(problems(&shared).is_empty(), "{:?}", problems(&shared));
        let other = image(8192, 8193);
        let two = Scene { materials: vec![textured("a", &big), textured("b", &other)], ..Scene::default() };
        let found = problems(&two);
        assert!(
            found.len() == 1 && found[0].contains("134225920 texels in all (2 distinct images"),
            "{found:?}"
        );
    }
}
