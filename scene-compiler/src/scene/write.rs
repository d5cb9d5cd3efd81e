//! Writes a [`Scene`] as RON in the format of docs/scene-format.md.
//!
//! Written by hand rather than through ron's serializer so the layout stays
//! fixed and readable: every setting spelled out (a saved file says exactly what
//! it renders), materials in their order as a `{ "name": ... }` map, one sphere
//! and one light per line, and a list of shapes or lights only when it has items.
//! Floats use Rust's shortest round-trip form, which ron
//! reads back to the same bits, so `parse(to_ron(s)) == s` for a valid scene and
//! `to_ron` of that is the same text again.

use std::fmt::Write;

use glam::{Vec2, Vec3};

use super::list::ListItem;
use super::material::MAP_FIELDS;
use super::model::{
    Camera, Light, Material, Mesh, RenderSettings, Scene, Sky, SphereList, Terrain, TerrainSurface, Texture,
    Transform, UvTransform, Wrap,
};

/// The RON text of `scene`.
pub fn to_ron(scene: &Scene) -> String {
    let mut out = String::with_capacity(512 + 80 * scene.spheres.len());
    out.push_str("Scene(\n");
    camera(&mut out, &scene.camera);
    settings(&mut out, &scene.settings);
    let _ = writeln!(out, "    sky: {},", sky(&scene.sky));
    materials(&mut out, &scene.materials);
    write_lists(&mut out, scene);
    list(&mut out, "lights", &scene.lights, light);
    out.push_str(")\n");
    out
}

/// Declares the step of [`to_ron`] that writes every list
/// [`scene_lists!`](crate::scene_lists) names as written, in its order.
macro_rules! write_lists {
    (written { $($(#[$doc:meta])* $written:ident: $W:ty,)* } compiled { $($compiled:tt)* }) => {
        fn write_lists(out: &mut String, scene: &Scene) {
            $(list(out, stringify!($written), &scene.$written, |out, item| {
                <$W>::write(out, item, &scene.materials)
            });)*
        }
    };
}

crate::scene_lists!(write_lists);

/// A `name: [...]` list, `item` writing each item. Every empty list is left out: it
/// adds nothing to render, and a kind of shape added to the format then changes no
/// file that does not use it.
fn list<T>(out: &mut String, name: &str, items: &[T], mut item: impl FnMut(&mut String, &T)) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "    {name}: [");
    for x in items {
        item(out, x);
    }
    out.push_str("    ],\n");
}

fn camera(out: &mut String, c: &Camera) {
    out.push_str("    camera: (\n");
    field(out, "look_from", v3(c.look_from));
    field(out, "look_at", v3(c.look_at));
    field(out, "up", v3(c.up));
    field(out, "vfov_deg", format!("{:?}", c.vfov_deg));
    field(out, "aperture", format!("{:?}", c.aperture));
    field(out, "focus_dist", format!("{:?}", c.focus_dist));
    out.push_str("    ),\n");
}

fn settings(out: &mut String, s: &RenderSettings) {
    out.push_str("    settings: (\n");
    for (name, value) in [
        ("width", s.width),
        ("height", s.height),
        ("spp", s.spp),
        ("max_depth", s.max_depth),
        ("seed", s.seed),
    ] {
        field(out, name, value);
    }
    // The display and sampler fields only away from their defaults: a scene that never
    // set them saves as it did before they existed.
    let default = RenderSettings::DEFAULT;
    if s.exposure != default.exposure {
        field(out, "exposure", format!("{:?}", s.exposure));
    }
    if s.view != default.view {
        field(out, "view", s.view.name());
    }
    if s.sampler != default.sampler {
        field(out, "sampler", s.sampler.name());
    }
    out.push_str("    ),\n");
}

/// One `name: value,` line of a block at the second indent level.
fn field(out: &mut String, name: &str, value: impl std::fmt::Display) {
    let _ = writeln!(out, "        {name}: {value},");
}

fn sky(sky: &Sky) -> String {
    match sky {
        Sky::Gradient { bottom, top } => format!("Gradient(bottom: {}, top: {})", v3(*bottom), v3(*top)),
        Sky::Constant(color) => format!("Constant({})", v3(*color)),
        Sky::Environment(env) => format!(
            "Environment(image: {}, strength: {:?}, rotation_deg: {:?})",
            string(&env.image),
            env.strength,
            env.rotation_deg
        ),
    }
}

fn materials(out: &mut String, materials: &[Material]) {
    if materials.is_empty() {
        out.push_str("    materials: {},\n");
        return;
    }
    out.push_str("    materials: {\n");
    for m in materials {
        let mut kind = m.kind.ron();
        let colour = m.texture.as_ref().map(|t| (t, m.kind.texture_field()));
        let maps = m.maps.slots().into_iter().zip(MAP_FIELDS).filter_map(|(t, f)| Some((t?, f)));
        for (texture, field) in colour.into_iter().chain(maps) {
            let _ = write!(kind, ", {field}: {}", texture_ron(texture));
        }
        let _ = writeln!(out, "        {}: {kind}),", string(&m.name));
    }
    out.push_str("    },\n");
}

fn texture_ron(t: &Texture) -> String {
    match t {
        Texture::Image { file, wrap, uv_transform, .. } => {
            let mut text = format!("Image(file: {}", string(file));
            if *wrap == Wrap::Clamp {
                text.push_str(", wrap: Clamp");
            }
            if !uv_transform.is_identity() {
                let _ = write!(text, ", uv_transform: ({})", uv_transform_fields(uv_transform));
            }
            text.push(')');
            text
        }
        &Texture::Checker { size, even, odd } => {
            format!("Checker(size: {size:?}, even: {}, odd: {})", v3(even), v3(odd))
        }
        &Texture::Noise { scale } => format!("Noise(scale: {scale:?})"),
    }
}

/// A uv transform's fields that differ from the identity's, so a texture that only
/// repeats says only `scale: (4.0, 4.0)`.
fn uv_transform_fields(t: &UvTransform) -> String {
    let pair = |v: Vec2| format!("({:?}, {:?})", v.x, v.y);
    let mut fields = Vec::new();
    if t.offset != Vec2::ZERO {
        fields.push(format!("offset: {}", pair(t.offset)));
    }
    if t.rotation_deg != 0.0 {
        fields.push(format!("rotation_deg: {:?}", t.rotation_deg));
    }
    if t.scale != Vec2::ONE {
        fields.push(format!("scale: {}", pair(t.scale)));
    }
    fields.join(", ")
}

/// A primitive's material as written: its quoted name. An index with no material (only
/// possible in a hand-built `Scene`) is written as `"#<index>"`, which loading reports
/// as unknown.
pub(crate) fn material_name(material: u32, materials: &[Material]) -> String {
    match materials.get(material as usize) {
        Some(m) => string(&m.name),
        None => string(&format!("#{material}")),
    }
}

/// One sphere file per line: its name and materials, never its spheres; the transform
/// only when it is not the identity.
pub(super) fn sphere_list(out: &mut String, l: &SphereList, materials: &[Material]) {
    let names: Vec<String> = l.materials.iter().map(|&m| material_name(m, materials)).collect();
    let _ = write!(out, "        (file: {}, materials: [{}]", string(&l.file), names.join(", "));
    transform(out, l.transform);
    out.push_str("),\n");
}

/// One terrain per block.
pub(super) fn terrain(out: &mut String, t: &Terrain, materials: &[Material]) {
    out.push_str("        Heightmap(\n");
    let line = |out: &mut String, name: &str, value: String| {
        let _ = writeln!(out, "            {name}: {value},");
    };
    line(out, "image", string(&t.image));
    line(out, "origin", v3(t.origin));
    line(out, "cell", format!("{:?}", t.cell));
    line(out, "height_scale", format!("{:?}", t.height_scale));
    match &t.surface {
        TerrainSurface::Material(m) => line(out, "material", material_name(*m, materials)),
        TerrainSurface::Palette(bands) => {
            out.push_str("            palette: [\n");
            for band in bands {
                let name = material_name(band.material, materials);
                let _ = writeln!(out, "                (from: {:?}, material: {name}),", band.from);
            }
            out.push_str("            ],\n");
        }
    }
    out.push_str("        ),\n");
}

/// One mesh per line; the material only when it overrides the model's, the transform
/// only when it is not the identity.
pub(super) fn mesh(out: &mut String, m: &Mesh, materials: &[Material]) {
    let _ = write!(out, "        (file: {}", string(&m.file));
    if let Some(material) = m.material {
        let _ = write!(out, ", material: {}", material_name(material, materials));
    }
    transform(out, m.transform);
    out.push_str("),\n");
}

/// `, transform: (...)` of a mesh or sphere file, unless it is the identity.
fn transform(out: &mut String, t: Transform) {
    if t != Transform::default() {
        let _ = write!(
            out,
            ", transform: (translate: {}, rotate_deg: {}, scale: {:?})",
            v3(t.translate),
            v3(t.rotate_deg),
            t.scale
        );
    }
}

fn light(out: &mut String, light: &Light) {
    let _ = match *light {
        Light::Point { position, color, intensity } => writeln!(
            out,
            "        Point(position: {}, color: {}, intensity: {intensity:?}),",
            v3(position),
            v3(color)
        ),
        Light::Directional { direction, color, intensity, angular_radius_deg } => writeln!(
            out,
            "        Directional(direction: {}, color: {}, intensity: {intensity:?}, \
             angular_radius_deg: {angular_radius_deg:?}),",
            v3(direction),
            v3(color)
        ),
    };
}

/// `(x, y, z)` with each component in shortest round-trip form (`1.0`, `0.1`, `1e-7`).
pub(crate) fn v3(v: Vec3) -> String {
    format!("({:?}, {:?}, {:?})", v.x, v.y, v.z)
}

/// A RON string literal; escapes only what RON requires, keeps other Unicode as is.
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_use_the_shortest_round_trip_form() {
        assert_eq!(v3(Vec3::new(1.0, 0.1, -0.0)), "(1.0, 0.1, -0.0)");
        assert_eq!(v3(Vec3::new(1e-7, 1e20, 16_384.0)), "(1e-7, 1e20, 16384.0)");
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(string("plain"), "\"plain\"");
        assert_eq!(string("a\"b\\c\nd\u{1}é"), r#""a\"b\\c\nd\u{1}é""#);
    }
}
