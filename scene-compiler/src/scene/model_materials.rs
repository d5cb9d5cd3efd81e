//! A model file's own materials mapped to the Principled kind (docs/scene-format.md,
//! "Model materials"): glTF 2.0 metallic-roughness (with its transmission, ior and
//! emissive-strength extensions, its textures and alpha modes) and OBJ's MTL (with its
//! PBR extension). What the kind cannot carry is named in a [`Dropped`] set, once per
//! property, for the compile's warnings.
//!
//! Not here: reading the geometry (`mesh_file`), or choosing between these and the
//! scene's `material` (validation and `crate::meshes`).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use glam::{Vec2, Vec3};

use super::image_file::Encoding;
use super::material::{AlphaMode, MaterialKind, Principled};
use super::model::{Maps, ModelMaterial, Texture, TextureImage, UvTransform, Wrap};
use super::texture_file;

/// The properties a mapping dropped, each once, in a stable order.
pub(crate) type Dropped = BTreeSet<String>;

/// glTF's default index of refraction (KHR_materials_ior), and a fair guess for MTL.
const DEFAULT_IOR: f32 = 1.5;

/// Blender's OBJ exporter writes a Principled BSDF's base colour as `Kd` and, without a
/// colour, MTL readers take this grey.
const MTL_DEFAULT_KD: [f32; 3] = [0.8, 0.8, 0.8];

/// glTF's default alpha cutoff of `MASK`.
const DEFAULT_ALPHA_CUTOFF: f32 = 0.5;

/// A glTF material as a Principled with its textures. `model` is the file (its folder
/// resolves image URIs; an embedded image is watched as the model), `buffers` its buffers.
pub(crate) fn gltf(
    material: &gltf::Material<'_>,
    model: &Path,
    buffers: &[gltf::buffer::Data],
    dropped: &mut Dropped,
) -> Result<ModelMaterial, String> {
    let plain = match (material.name(), material.index()) {
        (Some(n), _) => n.to_owned(),
        (None, Some(i)) => format!("material {i}"),
        (None, None) => "default".to_owned(),
    };
    let name = format!("material `{plain}`");
    let pbr = material.pbr_metallic_roughness();
    let [r, g, b, alpha] = pbr.base_color_factor();
    let base_color = Vec3::new(r, g, b);
    let emission = Vec3::from(material.emissive_factor());
    let emission_strength = material.emissive_strength().unwrap_or(1.0);
    let transmission = material.transmission().map_or(0.0, |t| t.transmission_factor());
    let metallic = pbr.metallic_factor();
    let roughness = pbr.roughness_factor();
    let ior = material.ior().unwrap_or(DEFAULT_IOR);
    let normal_scale = material.normal_texture().map_or(1.0, |n| n.scale());
    let cutoff = material.alpha_cutoff().unwrap_or(DEFAULT_ALPHA_CUTOFF);
    finite(&name, &[base_color.x, base_color.y, base_color.z, alpha, emission.x, emission.y, emission.z])?;
    finite(&name, &[emission_strength, transmission, metallic, roughness, ior, normal_scale, cutoff])?;

    let mut drop = |what: &str| {
        dropped.insert(what.to_owned());
    };
    if material.occlusion_texture().is_some() {
        drop("occlusionTexture (ambient occlusion baked for rasterizers: a path tracer traces it)");
    }
    if material.transmission().is_some_and(|t| t.transmission_texture().is_some()) {
        drop("transmissionTexture (the transmission factor is used)");
    }
    if material.volume().is_some() {
        drop("KHR_materials_volume (transmissive surfaces refract as solids; no attenuation)");
    }
    if material.specular().is_some() {
        drop("KHR_materials_specular");
    }
    if material.unlit() {
        drop("KHR_materials_unlit (shaded as a Principled)");
    }
    if material.double_sided() {
        // Every surface is two-sided here: nothing is dropped.
    }
    let alpha_mode = match material.alpha_mode() {
        gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
        gltf::material::AlphaMode::Mask => AlphaMode::Mask(cutoff.clamp(0.0, 1.0)),
        gltf::material::AlphaMode::Blend => AlphaMode::Blend,
    };
    let principled = in_range(Principled {
        base_color,
        metallic,
        roughness,
        ior,
        transmission,
        emission,
        emission_strength,
        normal_scale,
        alpha,
        alpha_mode,
    });
    let mut texture = |info: Option<TextureInfo<'_>>, what: &str, encoding: Encoding| {
        let Some(info) = info else { return Ok(None) };
        let at = |e: String| format!("{name}: {what}: {e}");
        let transform = info.transform.map_err(at)?;
        // KHR_texture_transform's texCoord, when given, replaces the textureInfo's.
        let tex_coord = transform.tex_coord.unwrap_or(info.tex_coord);
        if tex_coord != 0 {
            let by = if transform.tex_coord.is_some() { " by KHR_texture_transform's texCoord" } else { "" };
            dropped
                .insert(format!("{what} on a second set of texture coordinates (TEXCOORD_{tex_coord}{by})"));
            return Ok(None);
        }
        let uv_transform = transform.uv_transform(&name, what)?;
        let image = gltf_image(&info.texture.source(), model, buffers, encoding).map_err(at)?;
        let wrap = match info.texture.sampler().wrap_s() {
            gltf::texture::WrappingMode::ClampToEdge => Wrap::Clamp,
            _ => Wrap::Repeat,
        };
        // Each textureInfo is its own texture with its own transform; the blob stores an
        // image that several of them read once (`blob/textures.rs` compares the texels).
        Ok::<_, String>(Some(Texture::Image {
            file: model.display().to_string(),
            image: Arc::new(image),
            wrap,
            uv_transform,
        }))
    };
    let base = texture(pbr.base_color_texture().map(TextureInfo::of), "baseColorTexture", Encoding::Color)?;
    let maps = Maps {
        metallic_roughness: texture(
            pbr.metallic_roughness_texture().map(TextureInfo::of),
            "metallicRoughnessTexture",
            Encoding::Data,
        )?,
        emission: texture(
            material.emissive_texture().map(TextureInfo::of),
            "emissiveTexture",
            Encoding::Color,
        )?,
        normal: texture(
            material.normal_texture().map(TextureInfo::of_normal),
            "normalTexture",
            Encoding::Data,
        )?,
    };
    Ok(ModelMaterial { name: plain, kind: MaterialKind::Principled(principled), texture: base, maps })
}

/// A glTF textureInfo (or normalTexture) as a material's texture slot reads it.
struct TextureInfo<'a> {
    texture: gltf::Texture<'a>,
    tex_coord: u32,
    /// Its `KHR_texture_transform` (the default when it has none), or why that could
    /// not be read.
    transform: Result<KhrTransform, String>,
}

/// The values of a textureInfo's `KHR_texture_transform`, as the file writes them.
#[derive(Default)]
struct KhrTransform {
    offset: [f32; 2],
    /// Radians.
    rotation: f32,
    scale: [f32; 2],
    tex_coord: Option<u32>,
}

impl<'a> TextureInfo<'a> {
    fn of(info: gltf::texture::Info<'a>) -> TextureInfo<'a> {
        let transform = info.texture_transform().map_or_else(KhrTransform::identity, |t| KhrTransform {
            offset: t.offset(),
            rotation: t.rotation(),
            scale: t.scale(),
            tex_coord: t.tex_coord(),
        });
        TextureInfo { texture: info.texture(), tex_coord: info.tex_coord(), transform: Ok(transform) }
    }

    /// The gltf crate reads `KHR_texture_transform` on a textureInfo but not on a
    /// normalTexture (1.4): its JSON is read here with the crate's own type.
    fn of_normal(normal: gltf::material::NormalTexture<'a>) -> TextureInfo<'a> {
        let transform = match normal.extension_value("KHR_texture_transform") {
            None => Ok(KhrTransform::identity()),
            Some(value) => gltf::json::deserialize::from_value::<
                gltf::json::extensions::texture::TextureTransform,
            >(value.clone())
            .map(|t| KhrTransform {
                offset: t.offset.0,
                rotation: t.rotation.0,
                scale: t.scale.0,
                tex_coord: t.tex_coord,
            })
            .map_err(|e| format!("KHR_texture_transform: {e}")),
        };
        TextureInfo { texture: normal.texture(), tex_coord: normal.tex_coord(), transform }
    }
}

impl KhrTransform {
    fn identity() -> KhrTransform {
        KhrTransform { scale: [1.0; 2], ..KhrTransform::default() }
    }

    /// As a texture's `uv_transform` (degrees); a non-finite value is an error naming the
    /// material and the texture, as a non-finite factor is.
    fn uv_transform(&self, name: &str, what: &str) -> Result<UvTransform, String> {
        let [ox, oy] = self.offset;
        let [sx, sy] = self.scale;
        finite(&format!("{name}: {what}: KHR_texture_transform"), &[ox, oy, self.rotation, sx, sy])?;
        // Whole turns taken off before the conversion, so a huge angle stays finite in
        // degrees (f32 radians of 6e36 would not).
        let degrees = (f64::from(self.rotation) % std::f64::consts::TAU).to_degrees() as f32;
        Ok(UvTransform { offset: Vec2::new(ox, oy), rotation_deg: degrees, scale: Vec2::new(sx, sy) })
    }
}

/// A glTF image: a buffer view (`.glb`, embedded), a data URI or a file beside the model.
fn gltf_image(
    image: &gltf::Image<'_>,
    model: &Path,
    buffers: &[gltf::buffer::Data],
    encoding: Encoding,
) -> Result<TextureImage, String> {
    let at = |e: String| format!("image {}: {e}", image.index());
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            let data =
                buffers.get(view.buffer().index()).ok_or_else(|| at("its buffer is missing".into()))?;
            let bytes = data
                .0
                .get(view.offset()..view.offset() + view.length())
                .ok_or_else(|| at("its buffer view is past the buffer".into()))?;
            texture_file::from_memory(bytes, model, encoding).map_err(at)
        }
        gltf::image::Source::Uri { uri, .. } => match uri.strip_prefix("data:") {
            Some(data) => {
                let (_, encoded) =
                    data.split_once(";base64,").ok_or_else(|| at("a data URI without base64".into()))?;
                let bytes =
                    base64::decode(encoded).map_err(|e| at(format!("its data URI is not base64: {e}")))?;
                texture_file::from_memory(&bytes, model, encoding).map_err(at)
            }
            None => {
                let folder = model.parent().unwrap_or(Path::new("."));
                texture_file::read(&folder.join(uri), encoding).map_err(|e| at(format!("`{uri}`: {e}")))
            }
        },
    }
}

/// An MTL material as a Principled: `Kd` (and `map_Kd`) the base colour; the PBR
/// extension's `Pm` / `Pr` (and `map_Pm` / `map_Pr`, merged into one metallic-roughness
/// image) where present, else a metal for `illum` 3, 5 or 8 (reflection, with `Ks` as its
/// colour) and a roughness from `Ns` as Blender writes it (Ns = 1000 (1 - roughness)^2);
/// glass for `illum` 4, 6, 7 or 9, or for a PBR material with `Tf` (Blender's exporter
/// writes a Principled's transmission there, with `illum 2`); `Ni` the ior; `Ke` (and
/// `map_Ke`) the emission; `norm` or `map_Bump` a normal map where the image is one;
/// `d` below 1 alpha blending. `folder` is the OBJ file's: map paths are relative to it.
pub(crate) fn mtl(
    material: &tobj::Material,
    folder: &Path,
    dropped: &mut Dropped,
) -> Result<ModelMaterial, String> {
    let name = format!("material `{}`", material.name);
    let param = |key: &str| -> Result<Option<f32>, String> {
        material
            .unknown_param
            .get(key)
            .map(|v| v.split_whitespace().next().unwrap_or(v))
            .map(|v| v.trim().parse::<f32>().map_err(|_| format!("{name}: `{key} {v}` is not a number")))
            .transpose()
    };
    let kd = Vec3::from(material.diffuse.unwrap_or(MTL_DEFAULT_KD));
    let ks = material.specular.map(Vec3::from);
    let ke = material.emissive.map(Vec3::from).unwrap_or(Vec3::ZERO);
    let (pm, pr, tf) = (param("Pm")?, param("Pr")?, param("Tf")?);
    let ior = material.optical_density.unwrap_or(DEFAULT_IOR);
    let ns = material.shininess.unwrap_or(0.0);
    let d = material.dissolve.unwrap_or(1.0);
    finite(&name, &[kd.x, kd.y, kd.z, ke.x, ke.y, ke.z, ior, ns, d])?;
    finite(&name, &[pm.unwrap_or(0.0), pr.unwrap_or(0.0), tf.unwrap_or(0.0)])?;
    if let Some(ks) = ks {
        finite(&name, &ks.to_array())?;
    }
    let mut drop = |what: &str| {
        dropped.insert(what.to_owned());
    };
    for (texture, what) in [
        (&material.specular_texture, "map_Ks"),
        (&material.shininess_texture, "map_Ns"),
        (&material.dissolve_texture, "map_d"),
        (&material.ambient_texture, "map_Ka"),
    ] {
        if texture.is_some() {
            drop(what);
        }
    }
    let illum = material.illumination_model.unwrap_or(2);
    let pbr = pm.is_some() || pr.is_some();
    let glass = matches!(illum, 4 | 6 | 7 | 9) || (pbr && tf.is_some_and(|t| t > 0.0));
    let reflective = matches!(illum, 3 | 5 | 8);
    let metallic = pm.unwrap_or(if reflective && !glass { 1.0 } else { 0.0 });
    let roughness = pr.unwrap_or_else(|| 1.0 - (ns.clamp(0.0, 1000.0) / 1000.0).sqrt());
    let transmission = if glass { tf.filter(|_| pbr).unwrap_or(1.0) } else { 0.0 };
    // A legacy reflective material's colour is its specular colour.
    let base_color = if pm.is_none() && reflective && !glass { ks.unwrap_or(kd) } else { kd };
    let principled = in_range(Principled {
        base_color,
        metallic,
        roughness,
        ior,
        transmission,
        emission: ke,
        emission_strength: 1.0,
        normal_scale: 1.0,
        alpha: if glass { 1.0 } else { d },
        alpha_mode: if !glass && d < 1.0 { AlphaMode::Blend } else { AlphaMode::Opaque },
    });
    let map = |key: &Option<String>,
               what: &str,
               encoding: Encoding|
     -> Result<Option<(String, TextureImage)>, String> {
        let Some(map) = key else { return Ok(None) };
        // Options (`-s 2 2 2 wood.png`, `-bm 1.0`) are not read: the last word is the file.
        let file = map.split_whitespace().last().unwrap_or(map).to_owned();
        let image = texture_file::read(&folder.join(&file), encoding)
            .map_err(|e| format!("{name}: {what} `{file}`: {e}"))?;
        Ok(Some((file, image)))
    };
    // MTL's `-o` and `-s` map options are not read (docs/scene-format.md): untransformed.
    let image = |(file, image): (String, TextureImage)| Texture::Image {
        file,
        image: Arc::new(image),
        wrap: Wrap::Repeat,
        uv_transform: UvTransform::IDENTITY,
    };
    let base = map(&material.diffuse_texture, "map_Kd", Encoding::Color)?.map(image);
    let extra = |key: &str| material.unknown_param.get(key).cloned();
    let emission = map(&extra("map_Ke"), "map_Ke", Encoding::Color)?.map(image);
    // The PBR extension's `norm` is a normal map; `map_Bump` (tobj's `normal_texture`)
    // is one where its image is (Blender writes normal maps there).
    let norm = extra("norm");
    let (normal_key, key_name) =
        if norm.is_some() { (&norm, "norm") } else { (&material.normal_texture, "map_Bump") };
    let normal = match map(normal_key, key_name, Encoding::Data)? {
        Some(found) if norm.is_some() || is_normal_map(&found.1) => Some(image(found)),
        Some(_) => {
            drop("a height bump map (norm / map_Bump that is not a tangent-space normal map)");
            None
        }
        None => None,
    };
    let roughness_map = map(&extra("map_Pr"), "map_Pr", Encoding::Data)?;
    let metallic_map = map(&extra("map_Pm"), "map_Pm", Encoding::Data)?;
    let metallic_roughness = merge_metallic_roughness(roughness_map, metallic_map).map(image);
    Ok(ModelMaterial {
        name: material.name.clone(),
        kind: MaterialKind::Principled(principled),
        texture: base,
        maps: Maps { metallic_roughness, emission, normal },
    })
}

/// Whether an image is a tangent-space normal map rather than a height map: its texels
/// point mostly up the surface (blue) around a neutral red and green.
fn is_normal_map(image: &TextureImage) -> bool {
    let n = image.texels.len().max(1) as f64;
    let mean = |c: usize| image.texels.iter().map(|t| f64::from(t[c])).sum::<f64>() / n;
    let (r, g, b) = (mean(0), mean(1), mean(2));
    b > 0.6 && (r - 0.5).abs() < 0.2 && (g - 0.5).abs() < 0.2
}

/// MTL's separate roughness (`map_Pr`) and metallic (`map_Pm`) images as one glTF-style
/// metallic-roughness image (G roughness, B metallic; the other channel 1, so it leaves
/// its factor unchanged), sampled at the larger image's texels by nearest neighbour.
fn merge_metallic_roughness(
    roughness: Option<(String, TextureImage)>,
    metallic: Option<(String, TextureImage)>,
) -> Option<(String, TextureImage)> {
    let (file, path, width, height) = match (&roughness, &metallic) {
        (None, None) => return None,
        (Some((f, r)), Some((_, m))) if m.texels.len() > r.texels.len() => {
            (f.clone(), r.path.clone(), m.width, m.height)
        }
        (Some((f, r)), _) => (f.clone(), r.path.clone(), r.width, r.height),
        (None, Some((f, m))) => (f.clone(), m.path.clone(), m.width, m.height),
    };
    let at = |image: &Option<(String, TextureImage)>, x: u32, y: u32| match image {
        Some((_, i)) => {
            let (ix, iy) = (x * i.width / width, y * i.height / height);
            i.texels[(iy * i.width + ix) as usize][0]
        }
        None => 1.0,
    };
    let texels = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .map(|(x, y)| [1.0, at(&roughness, x, y), at(&metallic, x, y)])
        .collect();
    Some((file, TextureImage { path, width, height, texels, alpha: Vec::new() }))
}

/// A model's factors brought into the Principled kind's ranges: a value outside them is
/// the exporter's mistake (the alpha cutoff is clamped where it is read).
fn in_range(p: Principled) -> Principled {
    Principled {
        base_color: clamp01(p.base_color),
        metallic: p.metallic.clamp(0.0, 1.0),
        roughness: p.roughness.clamp(0.0, 1.0),
        ior: p.ior.max(1.0),
        transmission: p.transmission.clamp(0.0, 1.0),
        emission: p.emission.max(Vec3::ZERO),
        emission_strength: p.emission_strength.max(0.0),
        normal_scale: p.normal_scale.max(0.0),
        alpha: p.alpha.clamp(0.0, 1.0),
        alpha_mode: p.alpha_mode,
    }
}

/// A model's colours are reflectances: a value outside [0, 1] is the exporter's mistake,
/// and more than 1 would make energy.
fn clamp01(v: Vec3) -> Vec3 {
    v.clamp(Vec3::ZERO, Vec3::ONE)
}

fn finite(name: &str, values: &[f32]) -> Result<(), String> {
    match values.iter().find(|v| !v.is_finite()) {
        Some(v) => Err(format!("{name} has a non-finite parameter ({v})")),
        None => Ok(()),
    }
}
