//! The fast reader (`scene/fast.rs`) against the full one (ron): on every input they
//! read the same file value, or the fast reader steps aside; `parse` and `parse_full`
//! give the same scene or the same error message. The fast reader must also actually
//! take the usual inputs, or the equality would hold trivially.

use crate::common;

use glam::Vec3;
use proptest::{num::f32 as f32s, prelude::*};
use scene_compiler::scene::{self, Light, Material, MaterialKind, Scene, Sky, Sphere, to_ron};

/// The whole outcome of a parse as text: the scene bit for bit (`Debug` tells -0.0
/// from 0.0), or the rendered error.
fn outcome(result: Result<Scene, scene::LoadError>) -> String {
    match result {
        Ok(scene) => format!("{scene:?}"),
        Err(err) => format!("error: {err}"),
    }
}

/// `parse` (fast reader first) and `parse_full` (ron alone) agree on `src`.
#[track_caller]
fn same_outcome(src: &str) {
    let (fast, full) = (scene::parse(src, "t.ron"), scene::parse_full(src, "t.ron"));
    assert_eq!(outcome(fast), outcome(full), "parse and parse_full differ on:\n{src}");
}

/// Both readers read `src` and read the same value; returns the outcome of `parse`.
#[track_caller]
fn fast_and_equal(src: &str) -> String {
    let (fast, full) = scene::read_both(src);
    assert!(full.is_some(), "ron rejects:\n{src}");
    assert!(fast.is_some(), "the fast reader falls back on:\n{src}");
    assert_eq!(fast, full, "the readers differ on:\n{src}");
    same_outcome(src);
    outcome(scene::parse(src, "t.ron"))
}

/// The fast reader steps aside on `src`; `parse` still answers like `parse_full`.
#[track_caller]
fn falls_back(src: &str) {
    assert_eq!(scene::read_both(src).0, None, "the fast reader takes:\n{src}");
    same_outcome(src);
}

#[test]
fn asset_scenes_take_the_fast_path() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "ron") {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if text.contains("terrains:") || text.contains("meshes:") {
                // Terrains and meshes are left to ron (a few lines; the bulk is in the
                // image or the model file).
                assert_eq!(scene::read_both(&text).0, None, "{}", path.display());
                continue;
            }
            if text.contains("Environment(") {
                // Read by both readers alike; loading needs the image next to the file.
                let (fast, full) = scene::read_both(&text);
                assert!(fast.is_some() && fast == full, "{}", path.display());
                read += 1;
                continue;
            }
            assert!(fast_and_equal(&text).starts_with("Scene"), "{} does not load", path.display());
            read += 1;
        }
    }
    assert!(read >= 5, "only {read} scenes in {}", dir.display());
}

#[test]
fn written_scenes_take_the_fast_path_small_and_large() {
    // 60K spheres are about 5 MB: the sphere list is read in pieces in parallel.
    for n in [1, 7, 1000, 60_000] {
        fast_and_equal(&to_ron(&common::test_scene(n)));
    }
    let mut sparse = common::test_scene(3);
    (sparse.lights, sparse.sky) = (Vec::new(), Sky::Constant(Vec3::new(0.0, 1e-7, -0.0)));
    fast_and_equal(&to_ron(&sparse));
}

#[test]
fn long_lists_read_the_same_on_many_threads_despite_decoys() {
    let text = to_ron(&common::test_scene(40_000));
    let pool = |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
    for threads in [1, 3, 8] {
        pool(threads).install(|| fast_and_equal(&text));
    }
    // Lines that look like sphere items inside comments and strings: piece starts may be
    // guessed there, and the reader must notice and still read what ron reads.
    let decoy = "        /*\n        (center: (9, 9, 9), radius: 9, material: \"x\"),\n        */\n";
    let mut with_decoys = String::new();
    for (i, line) in text.lines().enumerate() {
        with_decoys.push_str(line);
        with_decoys.push('\n');
        if line.starts_with("        (center") && i % 97 == 0 {
            with_decoys.push_str(decoy);
            with_decoys.push_str("        // (center: (1, 1, 1), radius: 1, material: \"steel\"),\n");
        }
    }
    // A material name with a line break and an item-like line inside it.
    let odd = "\"odd\n        (center: (0, 0, 0), radius: 1, material: \"";
    let with_decoys = with_decoys
        .replace("\"ground\": Lambert", &format!("{odd}: Lambert"))
        .replace("material: \"ground\")", &format!("material: {odd})"));
    for threads in [2, 8] {
        pool(threads).install(|| fast_and_equal(&with_decoys));
    }
    // All on one line: there is no line to start a piece at.
    pool(4).install(|| fast_and_equal(&text.replace('\n', " ")));
}

/// What people write by hand: every form the fast reader is meant to take.
const HAND_WRITTEN: &[&str] = &[
    // Minimal, defaults everywhere, struct names, no trailing commas.
    r#"Scene(camera: Camera(look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {"m": Lambert(albedo: (1, 1, 1))}, spheres: [Sphere(center: (0, 0, 0), radius: 1, material: "m")])"#,
    // No root name, comments and tabs and CRLF everywhere, trailing commas.
    "// head\r\n(\r\n\tcamera /* c */ : ( look_from : ( 0 , 0 , 5 , ) , look_at: (0,0,0), vfov_deg: 40, up: (0, 0, 1), ),\r\n\t/* a /* nested */ comment */ materials: { \"m\" : Metal( albedo: (1, 1, 1), fuzz: .5, ), },\r\n\tspheres: [ ( center: (0, 0, 0), radius: 1., material: \"m\", ), ],\r\n) // tail",
    // Every optional field, in another order; numbers in every decimal form.
    r#"Scene(
        lights: [Directional(intensity: 2, direction: (-1, -2, -1)), Point(position: (0, 1e1, 0), color: (1, 1, 1), intensity: +5.0)],
        spheres: [(material: "e", radius: 2.5E-1, center: (-0.0, 1e-45, 3.4e38))],
        materials: {
            "e": Emissive(albedo: (0.5, 0.5, 0.5), color: (1, 0.9, 0.8), strength: 4),
            "g": Dielectric(ior: 1.5),
            "é ünïcode": Lambert(albedo: (0.1, 0.2, 0.3)),
        },
        sky: Constant((0.1, 0.2, 0.3),),
        settings: Settings(seed: 4294967295, spp: 0007, width: 64),
        camera: (vfov_deg: 20, aperture: 0.1, focus_dist: Some(10), look_at: (0, 0, 0), look_from: (13, 2, 3)),
    )"#,
    r#"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40, focus_dist: None), sky: Gradient(top: (1, 1, 1), bottom: (0, 0, 0)), materials: {}, spheres: [], lights: [],)"#,
    r#"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {"m": Lambert(albedo: (1, 1, 1))}, boxes: [(min: (0, 0, 0), max: (1, 1, 1), material: "m"), Box(material: "m", max: (2, 2, 2), min: (1, 1, 1),),])"#,
    "Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40, focus_dist: Some ( 3 , )), materials: {\"m\": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1, material: \"m\")])\n// unterminated line comment at the end",
];

#[test]
fn hand_written_forms_take_the_fast_path() {
    for src in HAND_WRITTEN {
        fast_and_equal(src);
    }
}

/// Valid RON (or RON whose errors are semantic) in forms the fast reader leaves to ron.
const UNUSUAL: &[&str] = &[
    "#![enable(implicit_some)]\nScene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {\"m\": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1, material: \"m\")])",
    r##"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {r#"m"#: Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1, material: "m")])"##,
    r#"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {"a\"b": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1, material: "a\"b")])"#,
    r#"Scene(r#camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {"m": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1, material: "m")])"#,
    r#"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {"m": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1_000.5, material: "m")])"#,
    r#"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), materials: {"m": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (inf, -inf, NaN), radius: 1f32, material: "m")])"#,
    r#"Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40), settings: (width: 0x40, height: +36, spp: 1_0), materials: {"m": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1, material: "m")])"#,
    "Scene(camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),\u{c}materials: {\"m\": Lambert(albedo: (1, 1, 1))}, spheres: [(center: (0, 0, 0), radius: 1, material: \"m\")])",
];

#[test]
fn unusual_forms_fall_back_to_ron() {
    for src in UNUSUAL {
        falls_back(src);
    }
}

/// A valid scene; the error cases below break it one edit at a time.
const VALID: &str = r#"// A small test scene.
Scene(
    camera: (look_from: (13, 2, 3), look_at: (0, 0, 0), vfov_deg: 20, aperture: 0.1, focus_dist: 10),
    settings: (width: 400, height: 225, spp: 8),
    materials: {
        "ground": Lambert(albedo: (0.5, 0.5, 0.5)),
        "glass": Dielectric(ior: 1.5),
        "gold": Metal(albedo: (0.8, 0.6, 0.2), fuzz: 0.1),
        "lamp": Emissive(color: (1, 0.9, 0.8), strength: 4),
    },
    spheres: [
        (center: (0, -1000, 0), radius: 1000, material: "ground"),
        (center: (0, 1, 0), radius: 1, material: "glass"),
        (center: (4, 1, 0), radius: 1, material: "gold"),
    ],
    lights: [Point(position: (0, 10, 0), intensity: 50)],
)
"#;

/// `VALID` with `from` (which must occur once) replaced by `to`.
fn edit(from: &str, to: &str) -> String {
    assert_eq!(VALID.matches(from).count(), 1, "`{from}` must occur once in VALID");
    VALID.replace(from, to)
}

#[test]
fn syntax_and_type_errors_are_the_full_parsers() {
    fast_and_equal(VALID);
    let broken = [
        edit("radius: 1, material: \"glass\"", "radius: 1 material: \"glass\""),
        edit("(center: (4, 1, 0)", "(centre: (4, 1, 0)"),
        edit("(center: (4, 1, 0)", "(center: (4, 1)"),
        edit("(center: (4, 1, 0)", "(center: (4, 1, 0, 5)"),
        edit("(center: (4, 1, 0)", "(center: [4, 1, 0]"),
        edit("radius: 1000", "radius: 1e"),
        edit("radius: 1000", "radius: --1"),
        edit("radius: 1000", "radius: \"big\""),
        edit("radius: 1000", "radius: 1..2"),
        edit("width: 400", "width: 400.5"),
        edit("width: 400", "width: -400"),
        edit("width: 400", "width: 4294967296"),
        edit("spp: 8", "spp: 8, spp: 9"),
        edit("Metal(", "Metall("),
        edit("Dielectric(ior: 1.5)", "Dielectric(ior: 1.5, fuzz: 0)"),
        edit("\"lamp\": Emissive(color: (1, 0.9, 0.8), strength: 4)", "\"lamp\": Emissive(strength: 4)"),
        edit("material: \"gold\"", "material: gold"),
        edit("material: \"gold\"", "material: \"gold"),
        edit("vfov_deg: 20", "vfov_deg: 20 /* open"),
        edit("Scene(", "Scene(\n    camera: (look_from: (0, 0, 0), look_at: (0, 0, 1), vfov_deg: 9),"),
        edit("Scene(", "Sceen("),
        edit("camera: (", "camera: Kamera("),
        edit("lights: [Point(", "lights: [Spot("),
        edit("focus_dist: 10", "focus_dist: Some(10"),
        edit("focus_dist: 10", "focus_dist: Nothing"),
        format!("{VALID})"),
        VALID.replace("],\n)", "],\n"),
        VALID.replace("material: \"glass\")", "material: \"glass\\q\")"),
        String::new(),
        "// only a comment".to_owned(),
    ];
    for src in &broken {
        assert!(scene::parse_full(src, "t.ron").is_err(), "not broken:\n{src}");
        falls_back(src);
    }
}

#[test]
fn semantic_errors_are_reported_alike_after_the_fast_path() {
    let broken = [
        edit("radius: 1000", "radius: -1000"),
        edit("radius: 1000", "radius: 0"),
        edit("material: \"gold\"", "material: \"gild\""),
        edit(
            "\"gold\": Metal(albedo: (0.8, 0.6, 0.2), fuzz: 0.1)",
            "\"gold\": Metal(albedo: (0.8, 0.6, 0.2), fuzz: 2)",
        ),
        edit("\"glass\": Dielectric", "\"ground\": Dielectric"),
        edit("vfov_deg: 20", "vfov_deg: 180"),
        edit("look_at: (0, 0, 0)", "look_at: (13, 2, 3)"),
        edit("width: 400", "width: 0"),
        edit("intensity: 50", "intensity: -1e39"),
        edit("focus_dist: 10", "focus_dist: 0"),
        edit("spheres: [", "spheres: [\n        (center: (1e39, 0, 0), radius: -0, material: \"x\"),"),
    ];
    for src in &broken {
        assert!(fast_and_equal(src).starts_with("error: "), "not an error:\n{src}");
    }
}

#[test]
fn numbers_read_bit_for_bit_like_ron() {
    let mut numbers: Vec<String> = [
        "0",
        "-0",
        "-0.0",
        "+0.0",
        "1",
        "1.",
        ".5",
        "-.5",
        "+1.5",
        "1e3",
        "1E3",
        "1e+3",
        "1e-3",
        "1.5e-45",
        "7e-46",
        "1e-50",
        "3.4028235e38",
        "3.4028236e38",
        "3.5e38",
        "1e39",
        "16777217",
        "16777217.000000001",
        "0.1",
        "0.30000001192092896",
        "1.00000005960464477539",
        "1.0000000596046448",
        "00001.25000",
        "123456789012345678901234567890",
        "0.000000000000000000000000000000000000011754942",
    ]
    .map(str::to_owned)
    .to_vec();
    // Shortest, exponent and long forms of spread-out bit patterns, subnormals included.
    let mut bits = 0x0000_0001u32;
    while bits < 0x7f80_0000 {
        let x = f32::from_bits(bits);
        numbers.extend([
            format!("{x:?}"),
            format!("{x:e}"),
            format!("{:.12e}", f64::from(x)),
            format!("-{x}"),
        ]);
        bits = bits.wrapping_mul(3).wrapping_add(0x0123_4567) % 0x7f80_0000 + 1;
        if numbers.len() > 2000 {
            break;
        }
    }
    for chunk in numbers.chunks(3) {
        let [x, y, z] = [0, 1, 2].map(|k| chunk.get(k).map_or("0", String::as_str));
        let src = edit("(center: (4, 1, 0), radius: 1", &format!("(center: ({x}, {y}, {z}), radius: {x}"));
        let (fast, full) = scene::read_both(&src);
        assert!(fast.is_some() && fast == full, "{x} {y} {z}: {fast:?}\n{full:?}");
    }
}

// ---- property tests ----------------------------------------------------------

/// Any finite f32, subnormals and both zeros included.
fn finite() -> impl Strategy<Value = f32> + Clone {
    f32s::POSITIVE | f32s::NEGATIVE | f32s::NORMAL | f32s::SUBNORMAL | f32s::ZERO
}

fn vec3(component: impl Strategy<Value = f32> + Clone) -> impl Strategy<Value = Vec3> {
    (component.clone(), component.clone(), component).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn material_kind() -> impl Strategy<Value = MaterialKind> {
    prop_oneof![
        vec3(finite()).prop_map(|albedo| MaterialKind::Lambert { albedo }),
        (vec3(finite()), finite()).prop_map(|(albedo, fuzz)| MaterialKind::Metal { albedo, fuzz }),
        finite().prop_map(|ior| MaterialKind::Dielectric { ior }),
        (vec3(finite()), finite(), prop_oneof![Just(Vec3::ZERO), vec3(finite())])
            .prop_map(|(color, strength, albedo)| MaterialKind::Emissive { color, strength, albedo }),
    ]
}

fn light() -> impl Strategy<Value = Light> {
    prop_oneof![
        (vec3(finite()), vec3(finite()), finite()).prop_map(|(position, color, intensity)| Light::Point {
            position,
            color,
            intensity
        }),
        (vec3(finite()), vec3(finite()), finite(), finite()).prop_map(
            |(direction, color, intensity, angular_radius_deg)| Light::Directional {
                direction,
                color,
                intensity,
                angular_radius_deg,
            }
        ),
    ]
}

/// Scenes as `to_ron` writes them, valid or not (any finite numbers, names with
/// escapes sometimes): the readers must agree either way.
fn any_scene() -> impl Strategy<Value = Scene> {
    let names = prop::collection::btree_set("[a-z_ é]{1,6}|[a-z\"\\\\]{1,3}", 1..5);
    (names, prop::collection::vec(material_kind(), 5)).prop_flat_map(|(names, kinds)| {
        let count = names.len() as u32;
        let materials: Vec<Material> =
            names.into_iter().zip(kinds).map(|(name, kind)| Material { name, kind, texture: None }).collect();
        let sphere = (vec3(finite()), finite(), 0..count + 1).prop_map(|(center, radius, material)| Sphere {
            center,
            radius,
            material,
        });
        let sky = prop_oneof![
            (vec3(finite()), vec3(finite())).prop_map(|(bottom, top)| Sky::Gradient { bottom, top }),
            vec3(finite()).prop_map(Sky::Constant),
        ];
        (
            vec3(finite()),
            vec3(finite()),
            (finite(), finite(), finite()),
            any::<[u32; 5]>(),
            sky,
            Just(materials),
            prop::collection::vec(sphere, 0..12),
            prop::collection::vec(light(), 0..4),
        )
            .prop_map(
                |(from, at, (vfov_deg, aperture, focus_dist), settings, sky, materials, spheres, lights)| {
                    let mut scene = common::test_scene(1);
                    scene.camera.look_from = from;
                    scene.camera.look_at = at;
                    (scene.camera.vfov_deg, scene.camera.aperture, scene.camera.focus_dist) =
                        (vfov_deg, aperture, focus_dist);
                    let [width, height, spp, max_depth, seed] = settings;
                    scene.settings = scene::RenderSettings { width, height, spp, max_depth, seed };
                    (scene.sky, scene.materials, scene.spheres, scene.lights) =
                        (sky, materials, spheres, lights);
                    scene
                },
            )
    })
}

/// How to lay a written scene out again: optional fields left out (`drop`, a bit per
/// line kind), struct names written, `focus_dist` as `Some(...)`; then between tokens,
/// whitespace and comments from [`TRIVIA`] (cycled through by `picks`), and trailing
/// commas dropped or added (`trailing`).
#[derive(Clone, Debug)]
struct Layout {
    drop: u16,
    names: bool,
    some: bool,
    picks: Vec<u8>,
    trailing: u8,
}

const TRIVIA: &[&str] =
    &["", "", " ", "\n", "\t", "\r\n", "  \n    ", "// c ( [ {\n", "/* x */", "/* a /* b */ */", " /*\n*/ "];

/// Lines of `to_ron` text that may be left out (their fields are optional).
const OPTIONAL_LINES: &[&str] = &[
    "        up: ",
    "        aperture: ",
    "        focus_dist: ",
    "        width: ",
    "        height: ",
    "        spp: ",
    "        max_depth: ",
    "        seed: ",
    "    sky: ",
];

fn layout() -> impl Strategy<Value = Layout> {
    (any::<u16>(), any::<bool>(), any::<bool>(), prop::collection::vec(any::<u8>(), 1..64), any::<u8>())
        .prop_map(|(drop, names, some, picks, trailing)| Layout { drop, names, some, picks, trailing })
}

/// The tokens of `to_ron` text: strings whole, words (`[A-Za-z0-9_.+-]+`), punctuation.
fn tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b"_.+-".contains(&b);
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        match bytes[i] {
            b' ' | b'\n' => {
                i += 1;
                continue;
            }
            b'"' => {
                i += 1;
                while bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b if word(b) => {
                while i < bytes.len() && word(bytes[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
        out.push(&text[start..i]);
    }
    out
}

/// `text` (written by `to_ron`) laid out by `layout`.
fn relayout(text: &str, layout: &Layout) -> String {
    let mut lines = String::new();
    for line in text.lines() {
        let dropped = OPTIONAL_LINES
            .iter()
            .enumerate()
            .any(|(k, start)| line.starts_with(start) && layout.drop >> k & 1 == 1);
        if dropped {
            continue;
        }
        let line = match line.strip_prefix("        focus_dist: ").and_then(|v| v.strip_suffix(',')) {
            Some(value) if layout.some => format!("        focus_dist: Some({value}),"),
            _ if layout.names => line
                .replacen("    camera: (", "    camera: Camera(", 1)
                .replacen("    settings: (", "    settings: Settings(", 1)
                .replacen("        (center", "        Sphere(center", 1)
                .replacen("Scene(", "(", 1),
            _ => line.to_owned(),
        };
        lines.push_str(&line);
        lines.push('\n');
    }
    let tokens = tokens(&lines);
    let mut out = String::new();
    let mut pick = layout.picks.iter().cycle();
    let closer = |t: Option<&&str>| matches!(t, Some(&")" | &"]" | &"}"));
    for (k, token) in tokens.iter().enumerate() {
        let (prev, next) = (k.checked_sub(1).map(|p| &tokens[p]), tokens.get(k + 1));
        if *token == "," && closer(next) && layout.trailing.is_multiple_of(3) {
            continue;
        }
        if closer(Some(token)) && layout.trailing % 3 == 1 && !matches!(prev, Some(&"," | &"(" | &"[" | &"{"))
        {
            out.push(',');
        }
        out.push_str(token);
        if next.is_some() {
            out.push_str(TRIVIA[usize::from(*pick.next().unwrap_or(&0)) % TRIVIA.len()]);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn written_scenes_read_the_same_in_any_layout(scene in any_scene(), layout in layout()) {
        let text = to_ron(&scene);
        let laid_out = relayout(&text, &layout);
        let (fast, full) = scene::read_both(&laid_out);
        prop_assert!(full.is_some(), "ron rejects:\n{}", laid_out);
        let plain_names = scene.materials.iter().all(|m| !m.name.contains(['"', '\\']));
        // Escaped names are ron's to read; everything else is the fast reader's.
        prop_assert_eq!(fast.is_some(), plain_names, "{}", laid_out);
        if fast.is_some() {
            prop_assert_eq!(&fast, &full, "{}", laid_out);
        }
        prop_assert_eq!(
            outcome(scene::parse(&laid_out, "t.ron")),
            outcome(scene::parse_full(&laid_out, "t.ron"))
        );
    }

    #[test]
    fn edited_scenes_read_the_same_or_fall_back(
        scene in any_scene(),
        edits in prop::collection::vec((any::<usize>(), 0usize..EDITS.len()), 1..4),
    ) {
        let mut text = to_ron(&scene);
        for (at, what) in edits {
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            match EDITS[what] {
                Edit::Insert(s) => text.insert_str(at, s),
                Edit::Delete(n) => {
                    let mut end = (at + n).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    text.replace_range(at..end, "");
                }
                Edit::Number(s) => {
                    // Replace the number that starts at or after `at`, if any.
                    if let Some(start) = text[at..].find(|c: char| c.is_ascii_digit()).map(|i| at + i) {
                        let len = text[start..].find(|c: char| !(c.is_ascii_alphanumeric() || ".+-".contains(c)));
                        let end = len.map_or(text.len(), |l| start + l);
                        text.replace_range(start..end, s);
                    }
                }
            }
        }
        let (fast, full) = scene::read_both(&text);
        if fast.is_some() {
            prop_assert_eq!(&fast, &full, "{}", text);
        }
        prop_assert_eq!(outcome(scene::parse(&text, "t.ron")), outcome(scene::parse_full(&text, "t.ron")));
    }
}

/// One edit of written text, for [`edited_scenes_read_the_same_or_fall_back`].
#[derive(Clone, Copy, Debug)]
enum Edit {
    Insert(&'static str),
    Delete(usize),
    Number(&'static str),
}

const EDITS: &[Edit] = &[
    Edit::Insert(","),
    Edit::Insert("("),
    Edit::Insert(")"),
    Edit::Insert("]"),
    Edit::Insert("\""),
    Edit::Insert("\\"),
    Edit::Insert(" "),
    Edit::Insert("_"),
    Edit::Insert("/"),
    Edit::Insert("/*"),
    Edit::Insert("*/"),
    Edit::Insert("#"),
    Edit::Insert("r#"),
    Edit::Insert("é"),
    Edit::Insert("\u{85}"),
    Edit::Insert("\u{c}"),
    Edit::Insert("e"),
    Edit::Insert("."),
    Edit::Insert("-"),
    Edit::Insert("Some("),
    Edit::Insert("None"),
    Edit::Delete(1),
    Edit::Delete(3),
    Edit::Delete(12),
    Edit::Number("1e"),
    Edit::Number("+.5"),
    Edit::Number("1_0"),
    Edit::Number("inf"),
    Edit::Number("-NaN"),
    Edit::Number("0x10"),
    Edit::Number("1f32"),
    Edit::Number("1.5e-45"),
    Edit::Number("3.5e38"),
    Edit::Number("-0"),
    Edit::Number("00.5"),
    Edit::Number("1..2"),
    Edit::Number("1e+"),
    Edit::Number("+1"),
    Edit::Number("4294967296"),
    Edit::Number("1.0"),
    Edit::Number("007"),
];

#[test]
fn errors_in_a_long_list_are_all_reported_where_they_are() {
    // Long enough for validation in chunks on several threads.
    let text = to_ron(&common::test_scene(70_000));
    let first = text.lines().position(|l| l.starts_with("        (center")).expect("a sphere");
    let bad = [3, 16_383, 16_384, 40_000, 69_999];
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for (k, &i) in bad.iter().enumerate() {
        let line = &mut lines[first + i];
        *line = if k % 2 == 0 {
            line.replacen("radius: ", "radius: -", 1)
        } else {
            line.replacen("material: \"", "material: \"no ", 1)
        };
    }
    let src = lines.join("\n");
    let err = scene::parse(&src, "t.ron").expect_err("five bad spheres");
    let found: Vec<usize> = err.diagnostics().iter().filter_map(|d| d.line()).collect();
    let expected: Vec<usize> = bad.iter().map(|i| first + i + 1).collect();
    assert_eq!(found, expected, "{err}");
    assert_eq!(outcome(Err(err)), outcome(scene::parse_full(&src, "t.ron")));
}
