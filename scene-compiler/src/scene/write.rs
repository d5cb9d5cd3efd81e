//! Writes a [`Scene`] as RON in the format of docs/scene-format.md.
//!
//! Written by hand rather than through ron's serializer so the layout stays
//! fixed and readable: every setting spelled out (a saved file says exactly what
//! it renders), materials in their order as a `{ "name": ... }` map, one sphere
//! and one light per line. Floats use Rust's shortest round-trip form, which ron
//! reads back to the same bits, so `parse(to_ron(s)) == s` for a valid scene and
//! `to_ron` of that is the same text again.

use std::fmt::Write;

use glam::Vec3;

use super::model::{
    Camera, Cuboid, Light, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere, Terrain,
    TerrainSurface,
};

/// The RON text of `scene`.
pub fn to_ron(scene: &Scene) -> String {
    let mut out = String::with_capacity(512 + 80 * scene.spheres.len());
    out.push_str("Scene(\n");
    camera(&mut out, &scene.camera);
    settings(&mut out, &scene.settings);
    let _ = writeln!(out, "    sky: {},", sky(&scene.sky));
    materials(&mut out, &scene.materials);
    spheres(&mut out, &scene.spheres, &scene.materials);
    boxes(&mut out, &scene.boxes, &scene.materials);
    terrains(&mut out, &scene.terrains, &scene.materials);
    lights(&mut out, &scene.lights);
    out.push_str(")\n");
    out
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
    }
}

fn materials(out: &mut String, materials: &[Material]) {
    if materials.is_empty() {
        out.push_str("    materials: {},\n");
        return;
    }
    out.push_str("    materials: {\n");
    for m in materials {
        let kind = match m.kind {
            MaterialKind::Lambert { albedo } => format!("Lambert(albedo: {})", v3(albedo)),
            MaterialKind::Metal { albedo, fuzz } => format!("Metal(albedo: {}, fuzz: {fuzz:?})", v3(albedo)),
            MaterialKind::Dielectric { ior } => format!("Dielectric(ior: {ior:?})"),
            MaterialKind::Emissive { color, strength, albedo } if albedo == Vec3::ZERO => {
                format!("Emissive(color: {}, strength: {strength:?})", v3(color))
            }
            MaterialKind::Emissive { color, strength, albedo } => {
                format!("Emissive(color: {}, strength: {strength:?}, albedo: {})", v3(color), v3(albedo))
            }
        };
        let _ = writeln!(out, "        {}: {kind},", string(&m.name));
    }
    out.push_str("    },\n");
}

/// A primitive's material as written: its quoted name.
fn material_name(material: u32, materials: &[Material]) -> String {
    match materials.get(material as usize) {
        Some(m) => string(&m.name),
        None => string(&format!("#{material}")),
    }
}

/// Spheres name their material; an index with no material (only possible in a
/// hand-built `Scene`) is written as `"#<index>"`, which loading reports as unknown.
fn spheres(out: &mut String, spheres: &[Sphere], materials: &[Material]) {
    if spheres.is_empty() {
        out.push_str("    spheres: [],\n");
        return;
    }
    out.push_str("    spheres: [\n");
    for s in spheres {
        let name = material_name(s.material, materials);
        let _ =
            writeln!(out, "        (center: {}, radius: {:?}, material: {name}),", v3(s.center), s.radius);
    }
    out.push_str("    ],\n");
}

/// Boxes like spheres; a scene without boxes writes no `boxes:` line (scenes from
/// before boxes existed keep their exact text).
fn boxes(out: &mut String, boxes: &[Cuboid], materials: &[Material]) {
    if boxes.is_empty() {
        return;
    }
    out.push_str("    boxes: [\n");
    for b in boxes {
        let name = material_name(b.material, materials);
        let _ = writeln!(out, "        (min: {}, max: {}, material: {name}),", v3(b.min), v3(b.max));
    }
    out.push_str("    ],\n");
}

/// One terrain per block; like boxes, no `terrains:` line when there are none.
fn terrains(out: &mut String, terrains: &[Terrain], materials: &[Material]) {
    if terrains.is_empty() {
        return;
    }
    out.push_str("    terrains: [\n");
    for t in terrains {
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
    out.push_str("    ],\n");
}

fn lights(out: &mut String, lights: &[Light]) {
    if lights.is_empty() {
        out.push_str("    lights: [],\n");
        return;
    }
    out.push_str("    lights: [\n");
    for light in lights {
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
    out.push_str("    ],\n");
}

/// `(x, y, z)` with each component in shortest round-trip form (`1.0`, `0.1`, `1e-7`).
fn v3(v: Vec3) -> String {
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
