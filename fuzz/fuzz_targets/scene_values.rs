//! Extreme values in a scene (issue 37, W2): every number of a scene that uses each
//! kind of value (camera, sky, emitter, light, sphere, box, a mesh's transform) is
//! taken from the input as raw f32 bits, so the fuzzer reaches 3.4e38, 1e-45,
//! subnormals, NaN and infinities in every slot. A scene that validates must compile
//! to a blob that passes the full `verify` (`BlobView::parse`): the builder never
//! writes a blob its own check refuses. A refused scene is a located error.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scene_compiler::procedural::{Format, icosphere, write};
use scene_compiler::{BlobView, CompileOptions, compile_scene, scene};

fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rtscene-fuzz-values-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp folder");
        write(&icosphere(0, 1.0), Format::Obj, &dir.join("ico.obj")).expect("a model");
        dir
    })
}

/// The scene's numbers, in order: `{}` slots of the template below.
const SLOTS: usize = 24;

fuzz_target!(|data: &[u8]| {
    // Each slot: four bytes of f32 bits; missing bytes are a plain 1.
    let v: Vec<String> = (0..SLOTS)
        .map(|i| {
            let x = data.get(4 * i..4 * i + 4).map_or(1.0, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            // RON reads what `{:?}` writes, NaN and inf included.
            format!("{x:?}")
        })
        .collect();
    let text = format!(
        r#"Scene(
    camera: (look_from: ({}, {}, {}), look_at: ({}, {}, {}), vfov_deg: 40, aperture: {}, focus_dist: {}),
    sky: Gradient(bottom: ({}, {}, 1), top: (1, {}, 1)),
    materials: {{ "m": Lambert(albedo: (0.5, 0.5, 0.5)), "e": Emissive(color: ({}, 1, 1), strength: {}) }},
    spheres: [(center: ({}, {}, 0), radius: {}, material: "e")],
    boxes: [(min: ({}, 0, 0), max: ({}, 1, 1), material: "m")],
    meshes: [(file: "ico.obj", material: "m", transform: (translate: ({}, 0, 0), rotate_deg: ({}, 0, 0), scale: {}))],
    lights: [Point(position: ({}, 1, 1), color: ({}, 1, 1), intensity: {})],
)"#,
        v[0],
        v[1],
        v[2],
        v[3],
        v[4],
        v[5],
        v[6],
        v[7],
        v[8],
        v[9],
        v[10],
        v[11],
        v[12],
        v[13],
        v[14],
        v[15],
        v[16],
        v[17],
        v[18],
        v[19],
        v[20],
        v[21],
        v[22],
        v[23]
    );
    let dir = folder();
    match scene::parse(&text, &dir.join("scene.ron").display().to_string()) {
        Ok(parsed) => {
            let compiled = compile_scene(&parsed, &CompileOptions::default());
            if let Err(e) = BlobView::parse(&compiled.blob) {
                panic!("a scene that validates compiled to a blob verify refuses: {e}\n{text}");
            }
        }
        Err(err) => assert!(err.diagnostics()[0].line().is_some(), "a located error: {err}"),
    }
});
