//! `to_ron` and `parse` against each other: exact round trips, a stable layout, and
//! a loader that never panics and always locates its errors, whatever the input.

use glam::Vec3;
use proptest::{num::f32 as f32s, prelude::*};
use scene_compiler::limits;
use scene_compiler::ranges;
use scene_compiler::scene::{
    self, Camera, Cuboid, Light, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere, to_ron,
};

fn small_scene() -> Scene {
    Scene {
        boxes: vec![Cuboid {
            min: Vec3::new(-1.0, -2.0, -3.0),
            max: Vec3::new(0.5, 0.25, 1e-3),
            material: 0,
        }],
        camera: Camera {
            look_from: Vec3::new(13.0, 2.0, 3.0),
            look_at: Vec3::ZERO,
            up: Vec3::Y,
            vfov_deg: 20.0,
            aperture: 0.1,
            focus_dist: 10.0,
        },
        settings: RenderSettings {
            width: 1280,
            height: 720,
            spp: 30,
            max_depth: 50,
            seed: 7,
            ..RenderSettings::DEFAULT
        },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        materials: vec![
            Material {
                name: "ground".into(),
                kind: MaterialKind::Lambert { albedo: Vec3::splat(0.5) },
                texture: None,
                maps: Default::default(),
            },
            Material {
                name: "say \"hi\"".into(),
                kind: MaterialKind::Dielectric { ior: 1.5 },
                texture: None,
                maps: Default::default(),
            },
            Material {
                name: "gold".into(),
                kind: MaterialKind::Metal { albedo: Vec3::new(0.8, 0.6, 0.2), fuzz: 0.0 },
                texture: None,
                maps: Default::default(),
            },
            Material {
                name: "lamp".into(),
                kind: MaterialKind::Emissive { color: Vec3::ONE, strength: 4.0, albedo: Vec3::ZERO },
                texture: None,
                maps: Default::default(),
            },
        ],
        spheres: vec![
            Sphere { center: Vec3::new(0.0, -1000.0, 0.0), radius: 1000.0, material: 0 },
            Sphere { center: Vec3::new(0.0, 1.0, 0.0), radius: 1.0, material: 1 },
        ],
        lights: vec![
            Light::Point { position: Vec3::new(0.0, 10.0, 0.0), color: Vec3::ONE, intensity: 50.0 },
            Light::Directional {
                direction: Vec3::new(-1.0, -1.0, -0.5),
                color: Vec3::ONE,
                intensity: 1.0,
                angular_radius_deg: 0.5,
            },
        ],
        ..Scene::default()
    }
}

#[test]
fn to_ron_writes_the_documented_layout() {
    let expected = r#"Scene(
    camera: (
        look_from: (13.0, 2.0, 3.0),
        look_at: (0.0, 0.0, 0.0),
        up: (0.0, 1.0, 0.0),
        vfov_deg: 20.0,
        aperture: 0.1,
        focus_dist: 10.0,
    ),
    settings: (
        width: 1280,
        height: 720,
        spp: 30,
        max_depth: 50,
        seed: 7,
    ),
    sky: Gradient(bottom: (1.0, 1.0, 1.0), top: (0.5, 0.7, 1.0)),
    materials: {
        "ground": Lambert(albedo: (0.5, 0.5, 0.5)),
        "say \"hi\"": Dielectric(ior: 1.5),
        "gold": Metal(albedo: (0.8, 0.6, 0.2), fuzz: 0.0),
        "lamp": Emissive(color: (1.0, 1.0, 1.0), strength: 4.0),
    },
    spheres: [
        (center: (0.0, -1000.0, 0.0), radius: 1000.0, material: "ground"),
        (center: (0.0, 1.0, 0.0), radius: 1.0, material: "say \"hi\""),
    ],
    boxes: [
        (min: (-1.0, -2.0, -3.0), max: (0.5, 0.25, 0.001), material: "ground"),
    ],
    lights: [
        Point(position: (0.0, 10.0, 0.0), color: (1.0, 1.0, 1.0), intensity: 50.0),
        Directional(direction: (-1.0, -1.0, -0.5), color: (1.0, 1.0, 1.0), intensity: 1.0, angular_radius_deg: 0.5),
    ],
)
"#;
    assert_eq!(to_ron(&small_scene()), expected);
}

#[test]
fn small_scene_round_trips_exactly() {
    let text = to_ron(&small_scene());
    let parsed = scene::parse(&text, "small.ron").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed, small_scene());
    assert_eq!(to_ron(&parsed), text);
}

#[test]
fn empty_lists_are_left_out_and_constant_sky_is_written_and_read_back() {
    let mut s = small_scene();
    s.lights.clear();
    s.sky = Sky::Constant(Vec3::new(0.25, 0.5, 1e-7));
    let text = to_ron(&s);
    assert!(text.contains("    sky: Constant((0.25, 0.5, 1e-7)),\n"), "{text}");
    assert!(!text.contains("lights") && !text.contains("terrains"), "{text}");
    assert_eq!(scene::parse(&text, "s.ron").ok(), Some(s.clone()));
    // Whichever lists are empty, spheres included.
    s.spheres.clear();
    let text = to_ron(&s);
    assert!(!text.contains("spheres") && text.contains("    boxes: [\n"), "{text}");
    assert_eq!(scene::parse(&text, "s.ron").ok(), Some(s));
}

#[test]
fn an_emissive_albedo_is_written_only_when_not_black_and_read_back() {
    let mut s = small_scene();
    let text = to_ron(&s);
    assert!(text.contains("\"lamp\": Emissive(color: (1.0, 1.0, 1.0), strength: 4.0),\n"), "{text}");
    s.materials[3].kind =
        MaterialKind::Emissive { color: Vec3::ONE, strength: 4.0, albedo: Vec3::new(0.5, 0.25, 0.125) };
    let text = to_ron(&s);
    let written = "\"lamp\": Emissive(color: (1.0, 1.0, 1.0), strength: 4.0, albedo: (0.5, 0.25, 0.125)),\n";
    assert!(text.contains(written), "{text}");
    let parsed = scene::parse(&text, "s.ron").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed, s);
    assert_eq!(to_ron(&parsed), text);
    // Hand-written: `albedo` may come first, and left out it is black.
    let hand = text
        .replace(written, "\"lamp\": Emissive(albedo: (0.5, 0.25, 0.125), color: (1, 1, 1), strength: 4),\n");
    assert_eq!(scene::parse(&hand, "s.ron").ok(), Some(s));
}

#[test]
fn a_dangling_material_index_is_written_as_a_name_that_fails_to_load() {
    let mut s = small_scene();
    s.spheres[1].material = 9;
    let text = to_ron(&s);
    assert!(text.contains(r##"material: "#9")"##), "{text}");
    let err = scene::parse(&text, "s.ron").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("unknown material `#9`"), "{err}");
}

#[test]
fn asset_scenes_load_and_round_trip() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut loaded = 0;
    for path in entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "ron")) {
        let scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let text = to_ron(&scene);
        // Written next to the original, so a terrain finds its image.
        let written = path.with_file_name("written.ron").display().to_string();
        assert_eq!(scene::parse(&text, &written).ok(), Some(scene), "{}", path.display());
        loaded += 1;
    }
    assert!(loaded > 0, "no scenes in {}", dir.display());
}

// ---- strategies for valid scenes --------------------------------------------

/// Any f32 within the coordinate range a sphere's center may have with its radius
/// (`ranges`: 1e9 for both together), including subnormals and zeros of both signs.
fn finite() -> impl Strategy<Value = f32> + Clone {
    (f32s::POSITIVE | f32s::NEGATIVE | f32s::NORMAL | f32s::SUBNORMAL | f32s::ZERO)
        .prop_filter("past the coordinate range", |x| x.abs() <= 5e8)
}

/// A colour channel or strength: up to `ranges::MAX_RADIANCE`.
fn non_negative() -> impl Strategy<Value = f32> + Clone {
    (f32s::POSITIVE | f32s::NORMAL | f32s::SUBNORMAL | f32s::ZERO)
        .prop_filter("above the radiance range", |&x| x <= ranges::MAX_RADIANCE)
}

/// A radius or distance: positive, up to half the coordinate range.
fn positive() -> impl Strategy<Value = f32> + Clone {
    (f32s::POSITIVE | f32s::NORMAL | f32s::SUBNORMAL).prop_filter("past the coordinate range", |&x| x <= 5e8)
}

/// A colour and a strength whose product stays within `ranges::MAX_RADIANCE`.
fn radiance() -> impl Strategy<Value = (Vec3, f32)> {
    (vec3(non_negative()), non_negative())
        .prop_filter("too bright", |(c, s)| ranges::radiance_ok(&(*c * *s).to_array()))
}

fn vec3(component: impl Strategy<Value = f32> + Clone) -> impl Strategy<Value = Vec3> {
    (component.clone(), component.clone(), component).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// A camera the validator accepts: a usable view direction and an `up` not along it.
fn camera() -> impl Strategy<Value = Camera> {
    let coord = -1e4f32..1e4;
    (vec3(coord.clone()), vec3(coord.clone()), vec3(coord), 0.01f32..179.99, non_negative(), positive())
        .prop_map(|(look_from, look_at, up, vfov_deg, aperture, focus_dist)| Camera {
            look_from,
            look_at,
            up,
            vfov_deg,
            aperture,
            focus_dist,
        })
        .prop_filter("degenerate camera basis", |c| {
            let forward = (c.look_at - c.look_from).normalize_or_zero();
            let up = c.up.normalize_or_zero();
            forward != Vec3::ZERO && up != Vec3::ZERO && forward.cross(up).length() > 1e-3
        })
}

fn settings() -> impl Strategy<Value = RenderSettings> {
    (
        1..=limits::MAX_IMAGE_SIDE,
        1..=limits::MAX_IMAGE_SIDE,
        1..=limits::MAX_SPP,
        1..=limits::MAX_DEPTH,
        any::<u32>(),
    )
        .prop_map(|(width, height, spp, max_depth, seed)| RenderSettings {
            width,
            height,
            spp,
            max_depth,
            seed,
            ..RenderSettings::DEFAULT
        })
}

fn sky() -> impl Strategy<Value = Sky> {
    prop_oneof![
        (vec3(non_negative()), vec3(non_negative())).prop_map(|(bottom, top)| Sky::Gradient { bottom, top }),
        vec3(non_negative()).prop_map(Sky::Constant),
    ]
}

fn material_kind() -> impl Strategy<Value = MaterialKind> {
    prop_oneof![
        vec3(non_negative()).prop_map(|albedo| MaterialKind::Lambert { albedo }),
        (vec3(non_negative()), 0.0f32..=1.0).prop_map(|(albedo, fuzz)| MaterialKind::Metal { albedo, fuzz }),
        (1.0f32..4.0).prop_map(|ior| MaterialKind::Dielectric { ior }),
        (radiance(), prop_oneof![Just(Vec3::ZERO), vec3(non_negative())])
            .prop_map(|((color, strength), albedo)| MaterialKind::Emissive { color, strength, albedo }),
    ]
}

/// Unique names with quotes, backslashes, control characters and non-ASCII text.
fn material_names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::btree_set("(?s)[a-z\"\\\\\n\t\u{1}\u{7f}é€ #/*]{0,8}", 1..6)
        .prop_map(|names| names.into_iter().collect::<Vec<_>>())
        .prop_shuffle()
}

fn light() -> impl Strategy<Value = Light> {
    prop_oneof![
        (vec3(finite()), radiance()).prop_map(|(position, (color, intensity))| Light::Point {
            position,
            color,
            intensity
        }),
        (vec3(-1e3f32..1e3), radiance(), 0.0f32..90.0)
            .prop_filter("zero direction", |(d, ..)| d.normalize_or_zero() != Vec3::ZERO)
            .prop_map(|(direction, (color, intensity), angular_radius_deg)| Light::Directional {
                direction,
                color,
                intensity,
                angular_radius_deg,
            }),
    ]
}

fn valid_scene() -> impl Strategy<Value = Scene> {
    (material_names(), prop::collection::vec(material_kind(), 6)).prop_flat_map(|(names, kinds)| {
        let count = names.len() as u32;
        let materials: Vec<Material> = names
            .into_iter()
            .zip(kinds)
            .map(|(name, kind)| Material { name, kind, texture: None, maps: Default::default() })
            .collect();
        let sphere = (vec3(finite()), positive(), 0..count).prop_map(|(center, radius, material)| Sphere {
            center,
            radius,
            material,
        });
        // Corners from a finite point and a positive size: min < max on every axis.
        let cuboid = (vec3(-1e6f32..1e6), vec3(1e-3f32..1e3), 0..count).prop_map(|(min, size, material)| {
            let max = min + size;
            Cuboid { min, max: max.max(min + min.abs() * 1e-6 + 1e-3), material }
        });
        (
            camera(),
            settings(),
            sky(),
            Just(materials),
            prop::collection::vec(sphere, 1..12),
            prop::collection::vec(cuboid, 0..4),
            prop::collection::vec(light(), 0..4),
        )
            .prop_map(|(camera, settings, sky, materials, spheres, boxes, lights)| Scene {
                camera,
                settings,
                sky,
                materials,
                spheres,
                boxes,
                lights,
                ..Scene::default()
            })
    })
}

/// Every diagnostic of a failed parse points inside the source and renders.
fn assert_well_formed(source: &str, err: &scene::LoadError) {
    assert!(!err.diagnostics().is_empty());
    let line_count = source.split('\n').count();
    for d in err.diagnostics() {
        let (Some(line), Some(column), Some(span)) = (d.line(), d.column(), d.span()) else {
            panic!("unlocated diagnostic {d:?}")
        };
        assert!(line >= 1 && line <= line_count && column >= 1, "{line}:{column} outside the source");
        assert!(source.get(span.clone()).is_some(), "span {span:?} is not a valid range of the source");
    }
    let text = err.to_string();
    assert!(text.starts_with("error: "), "{text}");
    assert!(text.contains("--> t.ron:"), "{text}");
}

/// One edit of a valid file: a cut, an inserted character, or a duplicated slice.
#[derive(Debug, Clone)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, c: char },
    Duplicate { at: usize, len: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let c = prop::sample::select(
        &['(', ')', '[', ']', '{', '}', ',', ':', '"', '\\', '/', '*', '-', 'e', '.', '\n', 'r', '#', 'é'][..],
    );
    prop_oneof![
        (any::<usize>(), 1usize..20).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), c).prop_map(|(at, c)| Mutation::Insert { at, c }),
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
    ]
}

/// Applies `m` at char boundaries (positions are taken modulo the text length).
fn apply(text: &str, m: &Mutation) -> String {
    let boundary = |at: usize| {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match *m {
        Mutation::Delete { at, len } => {
            let (start, end) = (boundary(at), boundary(at.saturating_add(len)));
            let (start, end) = (start.min(end), start.max(end));
            format!("{}{}", &text[..start], &text[end..])
        }
        Mutation::Insert { at, c } => {
            let at = boundary(at);
            format!("{}{c}{}", &text[..at], &text[at..])
        }
        Mutation::Duplicate { at, len } => {
            let (start, end) = (boundary(at), boundary(at.saturating_add(len)));
            let (start, end) = (start.min(end), start.max(end));
            format!("{}{}", &text[..end], &text[start..])
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_scenes_round_trip_exactly(scene in valid_scene()) {
        let text = to_ron(&scene);
        let parsed = scene::parse(&text, "t.ron");
        prop_assert!(parsed.is_ok(), "{}\n{}", text, parsed.err().map(|e| e.to_string()).unwrap_or_default());
        let parsed = parsed.unwrap_or_else(|_| unreachable!());
        // Bitwise, so -0.0 and 0.0 are told apart.
        prop_assert_eq!(format!("{parsed:?}"), format!("{scene:?}"));
        prop_assert_eq!(&parsed, &scene);
        prop_assert_eq!(to_ron(&parsed), text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "(?s).{0,200}") {
        if let Err(err) = scene::parse(&text, "t.ron") {
            assert_well_formed(&text, &err);
        }
    }

    #[test]
    fn ron_like_text_never_panics(text in r#"[()\[\]{}:,"a-zA-Z0-9 .\n/*#!-]{0,200}"#) {
        if let Err(err) = scene::parse(&text, "t.ron") {
            assert_well_formed(&text, &err);
        }
    }

    #[test]
    fn mutated_valid_files_never_panic_and_errors_are_located(
        scene in valid_scene(),
        edits in prop::collection::vec(mutation(), 1..4),
    ) {
        let text = edits.iter().fold(to_ron(&scene), |text, m| apply(&text, m));
        if let Err(err) = scene::parse(&text, "t.ron") {
            assert_well_formed(&text, &err);
        }
    }
}
