//! Feeds arbitrary bytes to the model readers (OBJ, PLY, glTF, GLB) the way a scene
//! reaches them: the first byte picks the format, the rest is written as the model
//! file that a one-mesh scene names, and the scene is parsed.
//!
//! Checks that nothing panics or aborts (an allocation sized by a count in the file
//! that the file does not back would abort under the fuzzer's memory limit), and that
//! a refused model is an error at the mesh's line (line 5) that names the file.
//! Texture and environment images have their own target, `image_files`.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scene_compiler::scene;

/// One folder for the whole run (a file per format, rewritten for every input).
fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rtscene-fuzz-models-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp folder");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else { return };
    let name = ["model.obj", "model.ply", "model.gltf", "model.glb"][usize::from(pick % 4)];
    let dir = folder();
    std::fs::write(dir.join(name), bytes).expect("write the model");
    let text = format!(
        r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: {{ "clay": Lambert(albedo: (0.6, 0.3, 0.2)) }},
    meshes: [
        (file: "{name}", material: "clay"),
    ],
)"#
    );
    match scene::parse(&text, &dir.join("scene.ron").display().to_string()) {
        Ok(parsed) => {
            let mesh = &parsed.meshes[0].data;
            assert!(!mesh.triangles.is_empty(), "an accepted model has triangles");
            assert!(mesh.positions.iter().all(|p| p.is_finite()), "an accepted model is finite");
            let n = mesh.positions.len();
            assert!(mesh.triangles.iter().flatten().all(|&i| (i as usize) < n), "indices in range");
        }
        Err(err) => {
            let d = &err.diagnostics()[0];
            assert_eq!(d.line(), Some(5), "the error is at the mesh's line: {err}");
            assert!(d.message().contains(name), "the error names the model: {err}");
        }
    }
});
