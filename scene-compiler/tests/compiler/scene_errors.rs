//! The RON loader against valid and broken scene files: every error must say what
//! is wrong and point at the right `line:col`.

use glam::Vec3;
use scene_compiler::scene::{
    self, Camera, Light, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere,
};

/// A valid scene using every kind of item; the error tests break it one edit at a time.
const VALID: &str = r#"// A small test scene.
Scene(
    camera: (
        look_from: (13, 2, 3),
        look_at: (0, 0, 0),
        vfov_deg: 20,
        aperture: 0.1,
        focus_dist: 10,
    ),
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
        /* (center: (2, 1, 0), radius: 1, material: "glass"), */
        (center: (4, 1, 0), radius: 1, material: "gold"),
    ],
    lights: [
        Point(position: (0, 10, 0), intensity: 50),
        Directional(direction: (-1, -1, -0.5), color: (1, 0.95, 0.9), angular_radius_deg: 0.5),
    ],
)
"#;

/// `VALID` with `from` (which must occur exactly once) replaced by `to`.
fn edit(from: &str, to: &str) -> String {
    assert_eq!(VALID.matches(from).count(), 1, "`{from}` must occur once in VALID");
    VALID.replace(from, to)
}

/// The 1-based line and column of the only occurrence of `needle` in `src`.
fn pos(src: &str, needle: &str) -> (usize, usize) {
    assert_eq!(src.matches(needle).count(), 1, "`{needle}` must occur once");
    let at = src.find(needle).unwrap_or(0);
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    (src[..at].matches('\n').count() + 1, src[line_start..at].chars().count() + 1)
}

/// The position of `inner` inside the only occurrence of `context` in `src`.
fn pos_in(src: &str, context: &str, inner: &str) -> (usize, usize) {
    let (line, col) = pos(src, context);
    let before = context.find(inner).map_or("", |i| &context[..i]);
    assert!(!before.contains('\n'), "keep `inner` on the first line of `context`");
    (line, col + before.chars().count())
}

/// Parses `src`, which must fail, and returns the error.
fn fail(src: &str) -> scene::LoadError {
    match scene::parse(src, "scene.ron") {
        Ok(scene) => panic!("expected an error, parsed {scene:?}"),
        Err(err) => err,
    }
}

/// Asserts `src` fails with exactly one diagnostic at `(line, col)` whose message contains `message`.
#[track_caller]
fn one_error(src: &str, at: (usize, usize), message: &str) -> scene::Diagnostic {
    let err = fail(src);
    let [d] = err.diagnostics() else { panic!("expected one diagnostic, got:\n{err}") };
    assert!(d.message().contains(message), "message {:?} lacks {message:?}:\n{err}", d.message());
    assert_eq!((d.line(), d.column()), (Some(at.0), Some(at.1)), "wrong location:\n{err}");
    d.clone()
}

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

#[test]
fn valid_scene_parses_to_the_expected_model() {
    let scene = scene::parse(VALID, "scene.ron").unwrap_or_else(|e| panic!("{e}"));
    let material =
        |name: &str, kind| Material { name: name.to_owned(), kind, texture: None, maps: Default::default() };
    let expected = Scene {
        camera: Camera {
            look_from: v(13.0, 2.0, 3.0),
            look_at: Vec3::ZERO,
            up: Vec3::Y,
            vfov_deg: 20.0,
            aperture: 0.1,
            focus_dist: 10.0,
        },
        settings: RenderSettings {
            width: 400,
            height: 225,
            spp: 8,
            max_depth: 50,
            seed: 0,
            ..RenderSettings::DEFAULT
        },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: v(0.5, 0.7, 1.0) },
        materials: vec![
            material("ground", MaterialKind::Lambert { albedo: Vec3::splat(0.5) }),
            material("glass", MaterialKind::Dielectric { ior: 1.5 }),
            material("gold", MaterialKind::Metal { albedo: v(0.8, 0.6, 0.2), fuzz: 0.1 }),
            material(
                "lamp",
                MaterialKind::Emissive { color: v(1.0, 0.9, 0.8), strength: 4.0, albedo: Vec3::ZERO },
            ),
        ],
        spheres: vec![
            Sphere { center: v(0.0, -1000.0, 0.0), radius: 1000.0, material: 0 },
            Sphere { center: v(0.0, 1.0, 0.0), radius: 1.0, material: 1 },
            Sphere { center: v(4.0, 1.0, 0.0), radius: 1.0, material: 2 },
        ],
        lights: vec![
            Light::Point { position: v(0.0, 10.0, 0.0), color: Vec3::ONE, intensity: 50.0 },
            Light::Directional {
                direction: v(-1.0, -1.0, -0.5),
                color: v(1.0, 0.95, 0.9),
                intensity: 1.0,
                angular_radius_deg: 0.5,
            },
        ],
        ..Scene::default()
    };
    assert_eq!(scene, expected);
}

#[test]
fn defaults_fill_what_a_minimal_scene_leaves_out() {
    let src = r#"Scene(
        camera: (look_from: (0, 0, 5), look_at: (0, 0, 1), vfov_deg: 40),
        materials: { "m": Metal(albedo: (1, 1, 1)), "e": Emissive(color: (1, 1, 1)) },
        spheres: [(center: (0, 0, 0), radius: 1, material: "m")],
    )"#;
    let scene = scene::parse(src, "min.ron").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        scene.settings,
        RenderSettings {
            width: 1280,
            height: 720,
            spp: 30,
            max_depth: 50,
            seed: 0,
            ..RenderSettings::DEFAULT
        }
    );
    assert_eq!(scene.sky, Sky::Gradient { bottom: Vec3::ONE, top: v(0.5, 0.7, 1.0) });
    assert_eq!(scene.camera.up, Vec3::Y);
    assert_eq!(scene.camera.aperture, 0.0);
    assert_eq!(scene.camera.focus_dist, 4.0, "defaults to |look_from - look_at|");
    assert_eq!(scene.materials[0].kind, MaterialKind::Metal { albedo: Vec3::ONE, fuzz: 0.0 });
    assert_eq!(
        scene.materials[1].kind,
        MaterialKind::Emissive { color: Vec3::ONE, strength: 1.0, albedo: Vec3::ZERO }
    );
    assert!(scene.lights.is_empty());
}

#[test]
fn optional_struct_names_and_constant_sky_are_accepted() {
    let src = edit("camera: (", "camera: Camera(")
        .replace("spheres: [", "sky: Constant((0.1, 0.2, 0.3)),\n    spheres: [");
    let scene = scene::parse(&src, "s.ron").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.sky, Sky::Constant(v(0.1, 0.2, 0.3)));
}

// ---- syntax errors -------------------------------------------------------------

#[test]
fn missing_comma_points_at_the_end_of_the_previous_line() {
    let src = edit("look_at: (0, 0, 0),", "look_at: (0, 0, 0)");
    let (line, col) = pos(&src, "(0, 0, 0)\n");
    let d = one_error(&src, (line, col + "(0, 0, 0".len()), "missing `,`");
    assert_eq!(d.label(), Some("missing `,` after this"));
}

#[test]
fn missing_comma_skips_comment_lines() {
    let src =
        edit(r#"(0, 1, 0), radius: 1, material: "glass"),"#, r#"(0, 1, 0), radius: 1, material: "glass")"#);
    let (line, col) = pos(&src, "\"glass\")\n");
    one_error(&src, (line, col + r#""glass""#.len()), "missing `,`");
}

#[test]
fn missing_comma_on_one_line_points_at_the_next_item() {
    let src = edit("(width: 400, height: 225", "(width: 400 height: 225");
    one_error(&src, pos(&src, "height: 225"), "expected `,` or `)`");
}

#[test]
fn unclosed_paren_reports_the_end_of_file_and_the_open_paren() {
    let src = VALID.trim_end().strip_suffix(')').unwrap_or(VALID).to_owned();
    let err = fail(&src);
    let d = &err.diagnostics()[0];
    assert!(d.message().contains("unexpected end of file"), "{err}");
    assert_eq!(d.hint(), Some("add the missing `)`"));
    assert!(err.to_string().contains("this `(` is never closed"), "{err}");
}

#[test]
fn mismatched_closing_bracket_names_the_one_expected() {
    let src = edit("(center: (4, 1, 0), radius", "(center: (4, 1, 0], radius");
    let (line, col) = pos(&src, "], radius");
    let err = fail(&src);
    one_error(&src, (line, col), "expected `)`, found `]`");
    assert!(err.to_string().contains("to close this `(`"), "{err}");
}

#[test]
fn unterminated_and_badly_escaped_strings() {
    let src = edit(r#""gold")"#, r#""go\qld")"#);
    let d = one_error(&src, pos(&src, r"\q"), "invalid escape");
    assert!(d.hint().is_some_and(|h| h.contains(r"\u{...}")));

    let src = format!("{}\n\"open", VALID.trim_end());
    let err = fail(&src);
    assert!(err.diagnostics()[0].message().contains("unexpected text after the end"), "{err}");

    let src = r#"Scene(camera: (look_from: (0, 0, 1), look_at: (0, 0, 0), vfov_deg: 40), materials: { "a"#;
    one_error(src, pos(src, "\"a"), "unterminated string");
}

#[test]
fn unknown_field_lists_the_expected_ones_and_suggests_the_closest() {
    let src = edit("vfov_deg: 20", "vfox_deg: 20");
    let d = one_error(&src, pos(&src, "vfox_deg"), "unknown field `vfox_deg` in Camera");
    let hint = d.hint().unwrap_or("");
    assert!(hint.starts_with("did you mean `vfov_deg`?"), "{hint}");
    for field in ["look_from", "look_at", "up", "aperture", "focus_dist"] {
        assert!(hint.contains(&format!("`{field}`")), "{hint}");
    }
}

#[test]
fn scene_field_inside_an_item_suggests_a_missing_paren() {
    let src = edit("spp: 8),", "spp: 8,");
    let d = one_error(&src, pos(&src, "materials: {"), "unknown field `materials` in Settings");
    assert!(d.note().is_some_and(|n| n.contains("is a `)` missing")), "{d:?}");
    // Every field of the scene, the lists of shapes added later included.
    for field in ["boxes", "terrains"] {
        let src = edit("spp: 8),", &format!("spp: 8, {field}: [],"));
        let d = one_error(&src, pos(&src, field), &format!("unknown field `{field}` in Settings"));
        assert!(d.note().is_some_and(|n| n.contains("is a `)` missing")), "{d:?}");
    }
}

#[test]
fn a_file_that_is_not_a_scene_says_so() {
    let src = "[package]\nname = \"x\"\nversion = \"0.1.0\"\n";
    let d = one_error(src, (1, 1), "this is not a scene file: a scene starts with `Scene(`");
    assert_eq!(d.hint(), Some("a scene file holds one `Scene(camera: ..., materials: ..., spheres: ...)`"));
}

#[test]
fn wrong_types_are_reported_at_the_value() {
    let src = edit("radius: 1000", "radius: \"big\"");
    one_error(&src, pos(&src, "\"big\""), "expected a number");

    let src = edit("spp: 8", "spp: 8.5");
    one_error(&src, pos(&src, "8.5"), "expected a whole number");

    let src = edit("spp: 8", "spp: 1e3");
    one_error(&src, pos(&src, "1e3"), "expected a whole number");

    let src = edit("spp: 8", "spp: -8");
    one_error(&src, pos(&src, "-8"), "out of range");

    let src = edit("look_from: (13, 2, 3)", "look_from: [13, 2, 3]");
    let d = one_error(&src, pos(&src, "[13"), "expected `(`");
    assert_eq!(d.hint(), Some("vectors are written `(x, y, z)`, not `[x, y, z]`"));

    // A struct written as a list is not a vector: no vector hint there.
    let src = edit("camera: (", "camera: [");
    let d = one_error(&src, pos_in(&src, "camera: [", "["), "expected `(`");
    assert_eq!(d.hint(), None);

    let src = edit("look_from: (13, 2, 3)", "look_from: (13, 2)");
    one_error(&src, pos(&src, "(13, 2)"), "expected 3 numbers");

    let src = edit(r#""glass": Dielectric"#, "glass: Dielectric");
    let d = one_error(&src, pos(&src, "glass: Dielectric"), "expected a string");
    assert_eq!(d.hint(), Some("write `\"glass\"`"));
}

#[test]
fn unknown_material_kind_suggests_the_closest() {
    let src = edit("Lambert(", "Lambret(");
    let d = one_error(&src, pos(&src, "Lambret"), "unknown material kind `Lambret`");
    assert!(d.hint().is_some_and(|h| h.starts_with("did you mean `Lambert`?") && h.contains("`Emissive`")));
}

#[test]
fn missing_and_duplicate_fields() {
    let src = edit("        vfov_deg: 20,\n", "");
    one_error(&src, pos_in(&src, "    ),\n    settings", ")"), "missing field `vfov_deg` in Camera");

    let src = edit("spp: 8", "spp: 8, spp: 9");
    one_error(&src, pos(&src, "spp: 9"), "field `spp` is written twice");
}

#[test]
fn wrong_struct_name_and_trailing_text() {
    let src = edit("camera: (", "camera: Cam(");
    let d = one_error(&src, pos(&src, "Cam("), "expected Camera, found `Cam`");
    assert!(d.hint().is_some_and(|h| h.contains("optional")));
}

#[test]
fn empty_file_says_so() {
    for src in ["", "  \n// only a comment\n"] {
        let d = one_error(src, (1, 1), "the scene file is empty");
        assert!(d.hint().is_some());
    }
}

// ---- semantic errors --------------------------------------------------------

#[test]
fn unknown_material_suggests_the_closest_name() {
    let src = edit(r#"material: "gold""#, r#"material: "glod""#);
    let d = one_error(&src, pos(&src, r#""glod""#), "unknown material `glod`");
    assert_eq!(d.hint(), Some("did you mean `gold`?"));

    let src = edit(r#"material: "gold""#, r#"material: "wood""#);
    let d = one_error(&src, pos(&src, r#""wood""#), "unknown material `wood`");
    assert_eq!(d.hint(), Some("the materials are `ground`, `glass`, `gold` or `lamp`"));
}

#[test]
fn unused_materials_are_fine() {
    // "lamp" is used by no sphere in VALID.
    assert!(scene::parse(VALID, "scene.ron").is_ok());
}

#[test]
fn sphere_radius_must_be_positive_and_finite() {
    for bad in ["0", "-1", "NaN", "inf", "-inf"] {
        let src = edit("radius: 1000,", &format!("radius: {bad},"));
        let message = if bad == "0" || bad == "-1" { "sphere `radius` must be positive" } else { "finite" };
        one_error(&src, pos_in(&src, &format!("radius: {bad},"), bad), message);
    }
}

#[test]
fn non_finite_vector_components_are_pinpointed() {
    let src = edit("(center: (4, 1, 0)", "(center: (4, NaN, 0)");
    let d = one_error(&src, pos(&src, "NaN"), "sphere `center` must be a finite number, found NaN");
    assert_eq!(d.label(), Some("not a finite number"));
    let src = edit("look_at: (0, 0, 0)", "look_at: (0, 0, -inf)");
    one_error(&src, pos(&src, "-inf"), "camera `look_at` must be a finite number");
}

#[test]
fn material_parameters_are_range_checked() {
    let src = edit("fuzz: 0.1", "fuzz: 1.5");
    one_error(
        &src,
        pos_in(&src, "fuzz: 1.5", "1.5"),
        "`fuzz` of material `gold` must be between 0 and 1, found 1.5",
    );

    let src = edit("ior: 1.5", "ior: 0.9");
    let d = one_error(
        &src,
        pos_in(&src, "ior: 0.9", "0.9"),
        "`ior` of material `glass` must be at least 1, found 0.9",
    );
    assert!(d.hint().is_some_and(|h| h.contains("1.5")));

    let src = edit("albedo: (0.5, 0.5, 0.5)", "albedo: (0.5, -0.25, 0.5)");
    one_error(&src, pos(&src, "-0.25"), "`albedo` of material `ground` must be non-negative, found -0.25");

    let src = edit("color: (1, 0.9, 0.8)", "color: (-1, 0.9, 0.8)");
    one_error(&src, pos(&src, "-1, 0.9"), "`color` of material `lamp` must be non-negative");

    let src = edit("strength: 4", "strength: -4");
    one_error(&src, pos(&src, "-4"), "`strength` of material `lamp` must be non-negative");

    let src = edit("strength: 4)", "strength: 4, albedo: (0.5, 0.5, -0.75))");
    one_error(&src, pos(&src, "-0.75"), "`albedo` of material `lamp` must be non-negative, found -0.75");
    let src = edit("strength: 4)", "strength: 4, albedo: (0.5, NaN, 0.5))");
    one_error(&src, pos(&src, "NaN"), "`albedo` of material `lamp` must be a finite number");
}

#[test]
fn camera_values_are_checked() {
    for bad in ["0", "180", "-5", "200"] {
        let src = edit("vfov_deg: 20", &format!("vfov_deg: {bad}"));
        one_error(
            &src,
            pos_in(&src, &format!("vfov_deg: {bad}"), bad),
            "`vfov_deg` must be between 0 and 180",
        );
    }
    let src = edit("aperture: 0.1", "aperture: -0.1");
    one_error(&src, pos(&src, "-0.1"), "`aperture` must be non-negative");
    for bad in ["0", "-3"] {
        let src = edit("focus_dist: 10", &format!("focus_dist: {bad}"));
        one_error(&src, pos_in(&src, &format!("focus_dist: {bad}"), bad), "`focus_dist` must be positive");
    }
}

#[test]
fn camera_must_look_somewhere() {
    let src = edit("look_at: (0, 0, 0)", "look_at: (13, 2, 3)");
    let d = one_error(&src, pos(&src, "(13, 2, 3),\n        vfov"), "`look_at` equals `look_from`");
    assert!(d.hint().is_some());
}

#[test]
fn up_parallel_to_the_view_is_reported_at_up_or_at_the_camera_when_defaulted() {
    let looking_down = edit("look_from: (13, 2, 3)", "look_from: (0, 5, 0)");
    let d = one_error(&looking_down, pos(&looking_down, "camera"), "`up` is parallel to the view direction");
    assert_eq!(d.note(), Some("`up` is not written here, so its default applies"));

    let src = looking_down.replace("vfov_deg: 20,", "vfov_deg: 20,\n        up: (0, -2, 0),");
    let d = one_error(&src, pos(&src, "(0, -2, 0)"), "parallel");
    assert_eq!(d.note(), None);

    let src = edit("vfov_deg: 20,", "vfov_deg: 20, up: (0, 0, 0),");
    one_error(&src, pos_in(&src, "up: (0, 0, 0)", "("), "`up` must be a non-zero, normalizable vector");
}

#[test]
fn settings_must_be_within_limits() {
    for (from, to) in [
        ("width: 400", "width: 0"),
        ("height: 225", "height: 20000"),
        ("spp: 8", "spp: 0"),
        ("spp: 8", "spp: 2000000"),
        ("spp: 8", "spp: 8, max_depth: 0"),
        ("spp: 8", "spp: 8, max_depth: 5000"),
    ] {
        let src = edit(from, to);
        let setting = to.rsplit(", ").next().unwrap_or(to);
        let (name, value) = setting.split_once(": ").unwrap_or_default();
        let message = format!("settings `{name}` must be between 1 and");
        one_error(&src, pos_in(&src, setting, value), &message);
    }
}

#[test]
fn zero_spheres_is_an_error() {
    let start = VALID.find("spheres: [").unwrap_or(0);
    let end = VALID.find("    lights").unwrap_or(0);
    let src = format!("{}spheres: [],\n{}", &VALID[..start], &VALID[end..]);
    let d = one_error(&src, pos(&src, "[],"), "the scene has no spheres, boxes, terrain columns or meshes");
    assert!(d.hint().is_some());
}

#[test]
fn duplicate_material_names_point_at_both() {
    let src = edit(r#""lamp": Emissive"#, r#""glass": Emissive"#);
    let err = fail(&src);
    let [d] = err.diagnostics() else { panic!("{err}") };
    assert_eq!(d.message(), "material `glass` is defined twice");
    let (line, col) = pos(&src, r#""glass": Emissive"#);
    assert_eq!((d.line(), d.column()), (Some(line), Some(col)));
    let text = err.to_string();
    assert!(text.contains("first defined here") && text.contains("defined again here"), "{text}");
}

#[test]
fn light_values_are_checked() {
    let src = edit("intensity: 50", "intensity: -50");
    one_error(&src, pos(&src, "-50"), "light `intensity` must be non-negative");

    let src = edit("direction: (-1, -1, -0.5)", "direction: (0, 0, 0)");
    one_error(&src, pos(&src, "(0, 0, 0), color"), "`direction` must be a non-zero, normalizable vector");

    for bad in ["90", "-1", "NaN"] {
        let src = edit("angular_radius_deg: 0.5", &format!("angular_radius_deg: {bad}"));
        let at = pos_in(&src, &format!("angular_radius_deg: {bad}"), bad);
        one_error(&src, at, "`angular_radius_deg` must be");
    }
    let src = edit("color: (1, 0.95, 0.9)", "color: (1, -0.95, 0.9)");
    one_error(&src, pos(&src, "-0.95"), "light `color` must be non-negative");
}

#[test]
fn sky_colours_must_be_non_negative() {
    let src =
        edit("    spheres: [", "    sky: Gradient(bottom: (1, 1, 1), top: (0.5, -0.7, 1)),\n    spheres: [");
    one_error(&src, pos(&src, "-0.7"), "sky `top` colour must be non-negative");
}

#[test]
fn all_semantic_errors_are_reported_at_once_in_source_order() {
    let src = edit("radius: 1000", "radius: -1000")
        .replace(r#"material: "gold""#, r#"material: "glod""#)
        .replace("fuzz: 0.1", "fuzz: 2")
        .replace("vfov_deg: 20", "vfov_deg: 0")
        .replace("intensity: 50", "intensity: NaN");
    let err = fail(&src);
    let got: Vec<(usize, &str)> =
        err.diagnostics().iter().map(|d| (d.line().unwrap_or(0), d.message())).collect();
    let expected = [
        (
            pos(&src, "vfov_deg: 0").0,
            "camera `vfov_deg` must be between 0 and 180 degrees (exclusive), found 0",
        ),
        (pos(&src, "fuzz: 2").0, "`fuzz` of material `gold` must be between 0 and 1, found 2"),
        (pos(&src, "radius: -1000").0, "sphere `radius` must be positive, found -1000"),
        (pos(&src, "\"glod\"").0, "unknown material `glod`"),
        (pos(&src, "NaN").0, "light `intensity` must be a finite number, found NaN"),
    ];
    assert_eq!(got, expected, "\n{err}");
    assert!(err.to_string().ends_with("error: could not load `scene.ron` due to 5 errors"));
}

// ---- rendering and files ----------------------------------------------------------

#[test]
fn display_shows_file_line_col_the_source_line_and_a_caret() {
    let src = edit(r#"radius: 1, material: "gold""#, r#"radius: -3, material: "gold""#);
    let (line, col) = pos(&src, "-3");
    let text = fail(&src).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "error: sphere `radius` must be positive, found -3");
    assert!(lines[1].ends_with(&format!("--> scene.ron:{line}:{col}")), "{text}");
    let source_line = lines.iter().position(|l| l.contains("radius: -3")).unwrap_or(0);
    let caret = lines.get(source_line + 1).copied().unwrap_or("");
    assert_eq!(caret.find('^'), lines[source_line].find("-3"), "caret under the value:\n{text}");
    assert!(caret.contains("^^ out of range"), "{text}");
}

#[test]
fn load_file_reads_files_and_names_unreadable_ones() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("ok.ron");
    std::fs::write(&path, VALID).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene::load_file(&path).ok(), scene::parse(VALID, "x").ok());

    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, edit("radius: 1000", "radius: 0")).unwrap_or_else(|e| panic!("{e}"));
    let err = scene::load_file(&bad).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains(&format!("{}:", bad.display())), "{err}");

    let missing = dir.path().join("missing.ron");
    let err = scene::load_file(&missing).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.starts_with(&format!("error: cannot read `{}`", missing.display())), "{err}");
}

#[test]
fn errors_in_a_long_list_are_all_reported_where_they_are() {
    // Long enough for validation in chunks on several threads.
    let text = scene::to_ron(&crate::common::test_scene(70_000));
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
}
