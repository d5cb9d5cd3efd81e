//! Golden test: every scene in `assets/scenes/` has a precompiled blob in
//! `assets/blobs/` that loads, validates and equals a fresh compile byte for byte
//! (the build is deterministic on any number of threads, see `src/bvh/binned_sah.rs`),
//! so CI and the renderer can use the checked-in blobs as they are.

use std::path::{Path, PathBuf};

use scene_compiler::blob::layout::HEADER_LEN;
use scene_compiler::{AlignedBytes, BlobView, CompileOptions, compile_scene, scene};

/// The README's command (Development) that rewrites every precompiled blob.
const REGENERATE: &str = "for s in assets/scenes/*.ron; do cargo run -q -p scene-compiler -- build $s \
                          -o assets/blobs/$(basename ${s%.ron}).blob; done";

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets")
}

/// Every `assets/scenes/*.ron`, sorted.
fn scene_files() -> Vec<PathBuf> {
    let dir = assets().join("scenes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ron"))
        .collect();
    files.sort();
    files
}

/// Where the first difference between two byte strings is, in words.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(at) if at < HEADER_LEN => format!("first difference at byte {at} (header)"),
        Some(at) => format!("first difference at byte {at}"),
        None => format!("lengths differ: {} vs {} bytes", a.len(), b.len()),
    }
}

#[test]
fn every_scene_has_a_current_precompiled_blob() {
    let scenes = scene_files();
    let stems: Vec<String> =
        scenes.iter().map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()).collect();
    for expected in ["rtiow_final", "three_spheres", "cornell"] {
        assert!(stems.iter().any(|s| s == expected), "assets/scenes/{expected}.ron is missing");
    }
    for (path, stem) in scenes.iter().zip(&stems) {
        let blob_path = assets().join("blobs").join(format!("{stem}.blob"));
        let stored = AlignedBytes::read_file(&blob_path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}\nregenerate the precompiled blobs (from the repository root) with:\n  {REGENERATE}",
                blob_path.display()
            )
        });
        let view = BlobView::parse(&stored).unwrap_or_else(|e| {
            panic!(
                "{} does not load: {e}\nregenerate (from the repository root) with:\n  {REGENERATE}",
                blob_path.display()
            )
        });
        let parsed = scene::load_file(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            view.records::<scene_compiler::scene::Sphere>().len(),
            parsed.spheres.len(),
            "{stem}: sphere count"
        );
        let fresh = compile_scene(&parsed, &CompileOptions::default()).blob;
        assert!(
            *stored == *fresh,
            "{} differs from a fresh compile of {} ({}): the scene, the builder or the format \
             changed.\nregenerate the precompiled blobs (from the repository root) with:\n  {REGENERATE}",
            blob_path.display(),
            path.display(),
            first_difference(&stored, &fresh),
        );
    }
}

#[test]
fn no_blob_without_its_scene() {
    let dir = assets().join("blobs");
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let scene = assets().join("scenes").join(format!("{stem}.ron"));
        assert!(
            path.extension().is_some_and(|ext| ext == "blob") && scene.is_file(),
            "{} has no scene {}: remove it or add the scene",
            path.display(),
            scene.display()
        );
    }
}
