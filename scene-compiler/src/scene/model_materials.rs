//! A model file's own materials mapped to the scene's kinds (docs/scene-format.md,
//! "Model materials"): glTF 2.0 metallic-roughness (with its transmission, ior and
//! emissive-strength extensions) and OBJ's MTL. What a kind cannot carry is named in
//! a [`Dropped`] set, once per property, for the compile's warnings.
//!
//! Not here: reading the geometry (`mesh_file`), or choosing between these and the
//! scene's `material` (validation and `crate::meshes`).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use glam::Vec3;

use super::material::MaterialKind;
use super::model::{ModelMaterial, Texture, Wrap};
use super::texture_file;

/// The properties a mapping dropped, each once, in a stable order.
pub(crate) type Dropped = BTreeSet<String>;

/// Metallic (glTF `metallicFactor`, MTL `Pm`) and transmission at or above this make a
/// Metal and a Dielectric: our kinds do not blend, so a fraction is rounded.
const KIND_THRESHOLD: f32 = 0.5;

/// glTF's default index of refraction (KHR_materials_ior), and a fair guess for MTL.
const DEFAULT_IOR: f32 = 1.5;

/// Blender's OBJ exporter writes a Principled BSDF's base colour as `Kd` and, without a
/// colour, MTL readers take this grey.
const MTL_DEFAULT_KD: [f32; 3] = [0.8, 0.8, 0.8];

/// The kind a glTF material maps to: emissive first (an emitter that also reflects its
/// base colour), then transmission (Dielectric with its ior), then metallic (Metal,
/// roughness as fuzz), else Lambert with the base colour.
/// `model` is the file (its folder resolves image URIs; an embedded image is watched as
/// the model), `buffers` its buffers.
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
    let albedo = Vec3::new(r, g, b);
    let emission = Vec3::from(material.emissive_factor());
    let strength = material.emissive_strength().unwrap_or(1.0);
    let transmission = material.transmission().map_or(0.0, |t| t.transmission_factor());
    let metallic = pbr.metallic_factor();
    let roughness = pbr.roughness_factor();
    let ior = material.ior().unwrap_or(DEFAULT_IOR);
    finite(&name, &[albedo.x, albedo.y, albedo.z, emission.x, emission.y, emission.z, strength])?;
    finite(&name, &[transmission, metallic, roughness, ior])?;

    let mut drop = |what: &str| {
        dropped.insert(what.to_owned());
    };
    let textures = [
        (pbr.metallic_roughness_texture().is_some(), "metallicRoughnessTexture"),
        (material.normal_texture().is_some(), "normalTexture"),
        (material.occlusion_texture().is_some(), "occlusionTexture"),
        (material.emissive_texture().is_some(), "emissiveTexture"),
        (material.transmission().is_some_and(|t| t.transmission_texture().is_some()), "transmissionTexture"),
    ];
    for (present, what) in textures {
        if present {
            drop(what);
        }
    }
    if alpha < 1.0 || material.alpha_mode() != gltf::material::AlphaMode::Opaque {
        drop("alpha (alphaMode, baseColorFactor's alpha): surfaces are opaque");
    }
    if material.volume().is_some() {
        drop("KHR_materials_volume");
    }
    if material.specular().is_some() {
        drop("KHR_materials_specular");
    }
    if material.unlit() {
        drop("KHR_materials_unlit");
    }
    let emits = emission.max_element() > 0.0 && strength > 0.0;
    let kind = if emits {
        if transmission > 0.0 || metallic > 0.0 {
            drop("metallic and transmission of an emissive material (it glows and reflects diffusely)");
        }
        MaterialKind::Emissive {
            color: emission.max(Vec3::ZERO),
            strength: strength.max(0.0),
            albedo: clamp01(albedo),
        }
    } else if transmission >= KIND_THRESHOLD {
        if transmission < 1.0 {
            drop("partial transmission (0.5 and above is glass, below is opaque)");
        }
        MaterialKind::Dielectric { ior: ior.max(1.0) }
    } else {
        if transmission > 0.0 {
            drop("partial transmission (0.5 and above is glass, below is opaque)");
        }
        if metallic > 0.0 && metallic < 1.0 {
            drop("partial metallicFactor (0.5 and above is Metal, below is Lambert)");
        }
        if metallic >= KIND_THRESHOLD {
            MaterialKind::Metal { albedo: clamp01(albedo), fuzz: roughness.clamp(0.0, 1.0) }
        } else {
            MaterialKind::Lambert { albedo: clamp01(albedo) }
        }
    };
    let texture = match pbr.base_color_texture() {
        Some(info) if kind.takes_texture() => {
            if info.tex_coord() != 0 {
                drop("baseColorTexture on a second set of texture coordinates (TEXCOORD_1)");
            }
            let image = gltf_image(&info.texture().source(), model, buffers)
                .map_err(|e| format!("{name}: baseColorTexture: {e}"))?;
            let wrap = match info.texture().sampler().wrap_s() {
                gltf::texture::WrappingMode::ClampToEdge => Wrap::Clamp,
                _ => Wrap::Repeat,
            };
            Some(Texture::Image { file: model.display().to_string(), image: Arc::new(image), wrap })
        }
        Some(_) => {
            drop("baseColorTexture of a transmissive material");
            None
        }
        None => None,
    };
    Ok(ModelMaterial { name: plain, kind, texture })
}

/// A glTF image: a buffer view (`.glb`, embedded), a data URI or a file beside the model.
fn gltf_image(
    image: &gltf::Image<'_>,
    model: &Path,
    buffers: &[gltf::buffer::Data],
) -> Result<super::model::TextureImage, String> {
    let at = |e: String| format!("image {}: {e}", image.index());
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            let data =
                buffers.get(view.buffer().index()).ok_or_else(|| at("its buffer is missing".into()))?;
            let bytes = data
                .0
                .get(view.offset()..view.offset() + view.length())
                .ok_or_else(|| at("its buffer view is past the buffer".into()))?;
            texture_file::from_memory(bytes, model).map_err(at)
        }
        gltf::image::Source::Uri { uri, .. } => match uri.strip_prefix("data:") {
            Some(data) => {
                let (_, encoded) =
                    data.split_once(";base64,").ok_or_else(|| at("a data URI without base64".into()))?;
                let bytes =
                    base64::decode(encoded).map_err(|e| at(format!("its data URI is not base64: {e}")))?;
                texture_file::from_memory(&bytes, model).map_err(at)
            }
            None => {
                let folder = model.parent().unwrap_or(Path::new("."));
                texture_file::read(&folder.join(uri)).map_err(|e| at(format!("`{uri}`: {e}")))
            }
        },
    }
}

/// The kind an MTL material maps to: `Ke` makes an emitter; `illum` 4, 6, 7 or 9
/// (glass) a Dielectric of index `Ni`; `Pm` (the PBR extension) or `illum` 3, 5 or 8
/// (reflection) a Metal with `Ks` (or `Kd`) as albedo and roughness `Pr`, or else one
/// from `Ns` as Blender writes it (Ns = 1000 (1 - roughness)^2); otherwise Lambert `Kd`.
/// `folder` is the OBJ file's: `map_Kd` paths are relative to it.
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
            .map(|v| v.trim().parse::<f32>().map_err(|_| format!("{name}: `{key} {v}` is not a number")))
            .transpose()
    };
    let kd = Vec3::from(material.diffuse.unwrap_or(MTL_DEFAULT_KD));
    let ks = material.specular.map(Vec3::from);
    let ke = material.emissive.map(Vec3::from).unwrap_or(Vec3::ZERO);
    let (pm, pr) = (param("Pm")?, param("Pr")?);
    let ior = material.optical_density.unwrap_or(DEFAULT_IOR);
    let ns = material.shininess.unwrap_or(0.0);
    finite(&name, &[kd.x, kd.y, kd.z, ke.x, ke.y, ke.z, ior, ns, pm.unwrap_or(0.0), pr.unwrap_or(0.0)])?;
    if let Some(ks) = ks {
        finite(&name, &ks.to_array())?;
    }

    let mut drop = |what: &str| {
        dropped.insert(what.to_owned());
    };
    let textures = [
        (&material.specular_texture, "map_Ks"),
        (&material.normal_texture, "bump/norm map"),
        (&material.shininess_texture, "map_Ns"),
        (&material.dissolve_texture, "map_d"),
        (&material.ambient_texture, "map_Ka"),
    ];
    for (texture, what) in textures {
        if texture.is_some() {
            drop(what);
        }
    }
    let illum = material.illumination_model.unwrap_or(2);
    let glass = matches!(illum, 4 | 6 | 7 | 9);
    if material.dissolve.is_some_and(|d| d < 1.0) && !glass {
        drop("d (dissolve) below 1: surfaces are opaque");
    }
    let kind = if ke.max_element() > 0.0 {
        // Our emitters take a colour and a strength: the brightest channel is the strength.
        let strength = ke.max_element().max(1.0);
        MaterialKind::Emissive { color: ke / strength, strength, albedo: clamp01(kd) }
    } else if glass {
        MaterialKind::Dielectric { ior: ior.max(1.0) }
    } else if pm.map_or(matches!(illum, 3 | 5 | 8), |m| m >= KIND_THRESHOLD) {
        let roughness = pr.unwrap_or_else(|| 1.0 - (ns.clamp(0.0, 1000.0) / 1000.0).sqrt());
        MaterialKind::Metal { albedo: clamp01(ks.unwrap_or(kd)), fuzz: roughness.clamp(0.0, 1.0) }
    } else {
        if pm.is_some_and(|m| m > 0.0) {
            drop("partial Pm (0.5 and above is Metal, below is Lambert)");
        }
        MaterialKind::Lambert { albedo: clamp01(kd) }
    };
    let texture = match &material.diffuse_texture {
        Some(map) if kind.takes_texture() => {
            // Options (`-s 2 2 2 wood.png`) are not read: the last word is the file.
            let file = map.split_whitespace().last().unwrap_or(map);
            let image = texture_file::read(&folder.join(file))
                .map_err(|e| format!("{name}: map_Kd `{file}`: {e}"))?;
            Some(Texture::Image { file: file.to_owned(), image: Arc::new(image), wrap: Wrap::Repeat })
        }
        Some(_) => {
            dropped.insert("map_Kd of a glass material".into());
            None
        }
        None => None,
    };
    Ok(ModelMaterial { name: material.name.clone(), kind, texture })
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
