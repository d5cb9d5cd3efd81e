//! The texture sections of a blob: one [`TextureRecord`] per texture of a material (in
//! material order, each material's in slot order: its colour texture, then a
//! Principled's maps), the image textures' texels, and the Perlin table when a Noise
//! texture needs it (docs/blob-format.md, "Textures").
//!
//! Texels are stored as linear float4 lanes, rgb and alpha (1 for an image without an
//! alpha channel): one format for 8-bit and HDR images, the sRGB decode done once here
//! rather than per lookup, and one aligned 16-byte load per texel on the GPU, at four
//! times the memory of packed RGBA8. An image shared by several materials is stored once.

use std::sync::Arc;

use super::layout::*;
use crate::rng::SplitMix64;
use crate::scene::{Material, Scene, Texture, TextureImage, Wrap};

/// What the texture sections hold, and which texture each material points at.
pub(crate) struct TextureTable {
    pub records: Vec<TextureRecord>,
    pub texels: Vec<[f32; 4]>,
    pub has_noise: bool,
}

/// A material's textures by slot (`TEXTURE_SLOT_*`).
fn slots(m: &Material) -> [Option<&Texture>; 4] {
    let [metallic_roughness, emission, normal] = m.maps.slots();
    [m.texture.as_ref(), metallic_roughness, emission, normal]
}

/// Per material of `scene`: the index of its texture record in each slot, or
/// [`NO_TEXTURE`] (every texture has its own record, in material and slot order).
pub(crate) fn material_textures(scene: &Scene) -> impl Iterator<Item = [u32; 4]> + '_ {
    let mut next = 0;
    scene.materials.iter().map(move |m| {
        slots(m).map(|t| match t {
            Some(_) => {
                next += 1;
                next - 1
            }
            None => NO_TEXTURE,
        })
    })
}

impl TextureTable {
    pub fn new(scene: &Scene) -> TextureTable {
        let mut table = TextureTable { records: Vec::new(), texels: Vec::new(), has_noise: false };
        // Images already in the texels, and where: the same image (one `Arc`, or the same
        // file read again for another material) is stored once.
        let mut stored: Vec<(&Arc<TextureImage>, u32)> = Vec::new();
        for texture in scene.materials.iter().flat_map(|m| slots(m).into_iter().flatten()) {
            let zero = [0.0; 4];
            let record = match texture {
                Texture::Image { image, wrap, uv_transform, .. } => {
                    let same = |(other, _): &&(&Arc<TextureImage>, u32)| {
                        Arc::ptr_eq(other, image) || *other == image
                    };
                    let first = match stored.iter().find(same) {
                        Some(&(_, first)) => first,
                        None => {
                            let first = table.texels.len() as u32;
                            let alpha = |i: usize| image.alpha.get(i).copied().unwrap_or(1.0);
                            table.texels.extend(
                                image.texels.iter().enumerate().map(|(i, &[r, g, b])| [r, g, b, alpha(i)]),
                            );
                            stored.push((image, first));
                            first
                        }
                    };
                    let wrap = match wrap {
                        Wrap::Repeat => WRAP_REPEAT,
                        Wrap::Clamp => WRAP_CLAMP,
                    };
                    // The uv transform's two rows, w 0: the identity for an untransformed image.
                    let [row0, row1] = uv_transform.rows().map(|[x, y, z]| [x, y, z, 0.0]);
                    record(TEXTURE_IMAGE, row0, row1, [first, image.width, image.height, wrap])
                }
                &Texture::Checker { size, even, odd } => {
                    record(TEXTURE_CHECKER, even.extend(size).to_array(), odd.extend(0.0).to_array(), [0; 4])
                }
                &Texture::Noise { scale } => {
                    table.has_noise = true;
                    record(TEXTURE_NOISE, [scale, 0.0, 0.0, 0.0], zero, [0; 4])
                }
            };
            table.records.push(record);
        }
        table
    }
}

fn record(kind: u32, a: [f32; 4], b: [f32; 4], image: [u32; 4]) -> TextureRecord {
    TextureRecord { a, b, image, kind, reserved: [0; 3] }
}

/// The Perlin table of "The Next Week" (random unit gradients, three shuffled
/// permutations), drawn from a fixed seed: the same table in every blob, so a noise
/// texture looks the same in every scene and on both backends.
pub fn noise_table() -> Vec<NoiseRecord> {
    let mut rng = SplitMix64(0x0005_eed0_f9e4_11e5);
    let gradients: Vec<[f32; 4]> = (0..NOISE_POINTS)
        .map(|_| {
            loop {
                // Rejection from the cube: uniform directions, none degenerate.
                let v = rng.next_vec3() * 2.0 - 1.0;
                let len2 = v.length_squared();
                if (1e-4..=1.0).contains(&len2) {
                    break (v / len2.sqrt()).extend(0.0).to_array();
                }
            }
        })
        .collect();
    let mut perm = || {
        let mut p: Vec<u32> = (0..NOISE_POINTS as u32).collect();
        for i in (1..NOISE_POINTS).rev() {
            let target = (rng.next_u64() % (i as u64 + 1)) as usize;
            p.swap(i, target);
        }
        p
    };
    let (px, py, pz) = (perm(), perm(), perm());
    (0..NOISE_POINTS)
        .map(|i| NoiseRecord { gradient: gradients[i], perm: [px[i], py[i], pz[i], 0] })
        .collect()
}
