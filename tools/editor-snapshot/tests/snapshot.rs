//! A rendered snapshot of the editor window, compared with tests/snapshots/viewer_window.png
//! (egui_kittest's tolerance). Needs a wgpu adapter (Mesa's software Vulkan will do:
//! tools/editor-snapshot.sh installs it); without one the test fails and says so.
//! Update the reference with `UPDATE_SNAPSHOTS=1`.

use std::path::Path;

use editor_snapshot::{Shot, settled_editor};
use egui_kittest::kittest::Queryable;
use scene_compiler::scene;

#[test]
fn snapshot_of_the_viewer_window() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The three-spheres asset written canonically, as the editor saves it.
    let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/scenes/three_spheres.ron");
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, scene::to_ron(&scene::load_file(&asset).expect("asset scene loads"))).unwrap();
    let shot = Shot { size: (880.0, 540.0), scale: 0.25, spp: 64, selected: Some(1) };
    let mut harness = settled_editor(&path, &shot).expect("the editor renders 64 spp");
    // The default folder is the temp dir's random name: show a fixed one.
    harness.state_mut().screenshot_dir = "shots".into();
    // Timings differ run to run: fold the stats away, leave the status line's out.
    harness.state_mut().status_line_timings = false;
    harness.get_by_label("Stats").click_accesskit();
    harness.run_steps(4);
    harness.snapshot("viewer_window");
}
