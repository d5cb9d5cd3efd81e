//! The live editor driven headless with egui_kittest (no display): pick a sphere by
//! clicking its pixel, edit its radius in the panel, undo/redo, save; select boxes and
//! terrains in the outline and edit them; a material's texture shown, edited and its
//! image swapped; a material switched to Principled and its maps read as data; a
//! mesh's material overridden and its scale edited per axis; an instance moved, given a material and deleted; hot reload of a broken file, the
//! byte-identical round trip of a save without edits. The rendered
//! snapshot of the window needs wgpu: it lives in tools/editor-snapshot.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui::{self, Key, Modifiers, PointerButton};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use renderer::backend::select::BackendChoice;
use renderer::session::{Session, SessionOptions};
use renderer::view::selected::Selected;
use renderer::view::{ViewApp, ViewOptions};
use scene_compiler::scene;

/// The three-spheres asset written canonically (as `to_ron` writes it) into `dir`.
fn canonical_scene(dir: &Path) -> PathBuf {
    let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/three_spheres.ron");
    let scene = scene::load_file(&asset).expect("asset scene loads");
    let path = dir.join("scene.ron");
    std::fs::write(&path, scene::to_ron(&scene)).expect("temp dir is writable");
    path
}

/// An editor on `path` with a small CPU render, inside a 1200×800 harness.
fn harness(path: &Path) -> Harness<'static, ViewApp> {
    harness_with(path, |_| {})
}

/// [`harness`], with `setup` applied to the editor before its first frame.
fn harness_with(path: &Path, setup: impl FnOnce(&mut ViewApp)) -> Harness<'static, ViewApp> {
    let mut harness = unstarted_harness(path, setup);
    // The first image adds rows to the stats: wait for it, so the layout is settled
    // before a test clicks at a position (a grid's first frame only measures, too).
    step_until(&mut harness, |app| app.session.current().is_none() || app.frame().is_some());
    harness.run_steps(3);
    harness
}

/// Steps the UI until `done` holds for the editor (20 s at most); whether it does.
fn step_until(harness: &mut Harness<'_, ViewApp>, done: impl Fn(&ViewApp) -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done(harness.state()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
        harness.step();
    }
    done(harness.state())
}

/// The size and start of the finished film (all its samples, of the size of the view
/// last sent), once there is one.
fn finished_film(harness: &mut Harness<'_, ViewApp>) -> Option<(u32, u32, Instant)> {
    if !step_until(harness, ViewApp::finished) {
        return None;
    }
    harness.state().frame().map(|f| (f.width, f.height, f.started))
}

/// [`harness_with`] before its first UI frame.
fn unstarted_harness(path: &Path, setup: impl FnOnce(&mut ViewApp)) -> Harness<'static, ViewApp> {
    let options = ViewOptions {
        scene: path.to_owned(),
        backend: BackendChoice::Cpu,
        kernels: None,
        spp_per_frame: 1,
        scale: 0.1,
        screenshot_dir: None,
        exposure: None,
        view: None,
        sampler: None,
    };
    let session = Session::open(path, None, SessionOptions::default()).expect("session opens");
    let mut app = ViewApp::new(session, &options);
    setup(&mut app);
    Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .build_ui_state(|ui, app: &mut ViewApp| app.show(ui), app)
}

fn click_at(harness: &mut Harness<'_, ViewApp>, pos: egui::Pos2) {
    harness.hover_at(pos);
    harness.step();
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        harness.step();
    }
    harness.run_steps(2);
}

fn radius_of(harness: &Harness<'_, ViewApp>, index: usize) -> f32 {
    harness.state().session.current().expect("a scene is current").scene.spheres[index].radius
}

#[test]
fn click_a_sphere_edit_its_radius_undo_redo_and_save() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);

    // Sphere 1 (blue) is where the camera looks, unoccluded: click its center pixel.
    let (center, _) = harness.state().sphere_on_screen(1).expect("sphere 1 is in view");
    click_at(&mut harness, center);
    assert_eq!(harness.state().editor.selected, Some(Selected::Sphere(1)));

    harness.get_by_label("radius").set_value_accesskit(0.75);
    harness.run_steps(3);
    assert_eq!(radius_of(&harness, 1), 0.75);

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(radius_of(&harness, 1), 0.5, "Ctrl+Z restores the radius");
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);
    assert_eq!(radius_of(&harness, 1), 0.75, "Ctrl+Shift+Z redoes it");

    harness.get_by_label("Save").click_accesskit();
    harness.run_steps(2);
    let saved = scene::load_file(&path).expect("the saved file is a valid scene");
    assert_eq!(saved.spheres[1].radius, 0.75);
    let before = scene::parse(&scene::to_ron(&saved), "x").expect("round trip");
    assert_eq!(saved, before);
    assert_eq!(saved.spheres.len(), 4, "nothing else changed");
    assert!(!harness.state().status().expect("save reports").is_error);
}

#[test]
fn add_and_delete_spheres_go_through_the_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);
    harness.get_by_label("Add sphere").click_accesskit();
    harness.run_steps(2);
    let count = |h: &Harness<'_, ViewApp>| h.state().session.current().map(|c| c.scene.spheres.len());
    assert_eq!(count(&harness), Some(5));
    assert_eq!(harness.state().editor.selected, Some(Selected::Sphere(4)), "the new sphere is selected");
    harness.get_by_label("Delete").click_accesskit();
    harness.run_steps(2);
    assert_eq!(count(&harness), Some(4));
    assert_eq!(harness.state().editor.selected, None);
}

/// The current scene of the editor.
fn current(harness: &Harness<'_, ViewApp>) -> scene::Scene {
    harness.state().session.current().expect("a scene is current").scene.clone()
}

#[test]
fn a_box_chosen_in_the_outline_moves_resizes_and_deletes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/boxes.ron");
    let path = dir.path().join("boxes.ron");
    std::fs::write(&path, scene::to_ron(&scene::load_file(&asset).expect("asset loads"))).expect("writable");
    let mut harness = harness(&path);
    let original = current(&harness).boxes;
    let before = original[1];

    harness.get_by_label("box 1").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().editor.selected, Some(Selected::Box(1)));

    // Resizing keeps the center; the other axes keep their corners bit for bit.
    harness.get_by_label("size x").set_value_accesskit(2.0);
    harness.run_steps(2);
    let resized = current(&harness).boxes[1];
    let center_x = (before.min.x + before.max.x) * 0.5;
    assert!((resized.max.x - resized.min.x - 2.0).abs() < 1e-5, "{resized:?}");
    assert!(((resized.min.x + resized.max.x) * 0.5 - center_x).abs() < 1e-5, "{resized:?}");
    let y_and_z = |b: scene::Cuboid| [b.min.y, b.min.z, b.max.y, b.max.z];
    assert_eq!(y_and_z(resized), y_and_z(before));

    // Moving keeps the size: box 1 is 1 tall, from 0 to 1.
    harness.get_by_label("center y").set_value_accesskit(3.0);
    harness.run_steps(2);
    let moved = current(&harness).boxes[1];
    assert_eq!((moved.min.y, moved.max.y), (2.5, 3.5));
    assert_eq!((moved.min.x, moved.max.x), (resized.min.x, resized.max.x));

    // A size cannot be dragged to nothing (or below).
    harness.get_by_label("size z").set_value_accesskit(-1.0);
    harness.run_steps(2);
    let thin = current(&harness).boxes[1];
    let depth = thin.max.z - thin.min.z;
    assert!(depth > 0.0 && depth < 0.01, "clamped to a sliver: {thin:?}");
    assert!(harness.state().session.last_error().is_none(), "the clamped size validated");

    for _ in 0..2 {
        harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        harness.run_steps(2);
    }
    assert_eq!(current(&harness).boxes[1], resized, "two undos take back the size z and the move");

    harness.get_by_label("Delete").click_accesskit();
    harness.run_steps(2);
    let boxes = current(&harness).boxes;
    assert_eq!(boxes.len(), 3);
    assert_eq!(boxes[1], original[2], "the boxes after it move up");
    assert_eq!(harness.state().editor.selected, None);
}

/// A scene with a box and a 2 x 2 terrain read from `maps/height.png`, in `dir`.
fn terrain_scene(dir: &Path) -> PathBuf {
    std::fs::create_dir(dir.join("maps")).expect("temp dir is writable");
    let image = image::GrayImage::from_raw(2, 2, vec![3, 1, 1, 2]).expect("2 x 2 pixels");
    image.save(dir.join("maps/height.png")).expect("write heightmap");
    let text = "Scene(
    camera: (look_from: (0.0, 6.0, 8.0), look_at: (0.0, 0.0, 0.0), vfov_deg: 40.0),
    settings: (width: 64, height: 48, spp: 1, max_depth: 4, seed: 0),
    materials: { \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)), \"red\": Lambert(albedo: (0.8, 0.1, 0.1)) },
    boxes: [(min: (-3.0, 0.0, -1.0), max: (-2.0, 1.0, 0.0), material: \"red\")],
    terrains: [Heightmap(image: \"maps/height.png\", origin: (0.0, 0.0, 0.0), cell: 1.0, height_scale: 0.5, material: \"grey\")],
)
";
    let path = dir.join("scene.ron");
    std::fs::write(&path, text).expect("temp dir is writable");
    path
}

#[test]
fn a_terrain_chosen_in_the_outline_is_moved_and_rescaled() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = terrain_scene(dir.path());
    let mut harness = harness(&path);
    harness.get_by_label("terrain 0 · maps/height.png").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().editor.selected, Some(Selected::Terrain(0)));
    harness.get_by_label_contains("image maps/height.png · 2 x 2 pixels");

    harness.get_by_label("height scale").set_value_accesskit(2.5);
    harness.run_steps(2);
    harness.get_by_label("origin x").set_value_accesskit(1.0);
    harness.run_steps(2);
    harness.get_by_label("cell").set_value_accesskit(0.0);
    harness.run_steps(2);
    let terrain = &current(&harness).terrains[0];
    assert_eq!((terrain.height_scale, terrain.origin.x), (2.5, 1.0));
    assert!(terrain.cell > 0.0 && terrain.cell < 0.01, "a cell is clamped, not zero: {}", terrain.cell);
    assert!(harness.state().session.last_error().is_none(), "every edit validated");

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(current(&harness).terrains[0].cell, 1.0, "Ctrl+Z restores the cell");
}

#[test]
fn an_edited_box_and_terrain_save_and_read_back_equal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = terrain_scene(dir.path());
    let mut harness = harness(&path);
    harness.get_by_label("box 0").click_accesskit();
    harness.run_steps(2);
    harness.get_by_label("center x").set_value_accesskit(-4.0);
    harness.run_steps(2);
    harness.get_by_label("terrain 0 · maps/height.png").click_accesskit();
    harness.run_steps(2);
    harness.get_by_label("height scale").set_value_accesskit(0.75);
    harness.run_steps(2);
    harness.get_by_label("origin z").set_value_accesskit(-2.0);
    harness.run_steps(2);

    save(&mut harness);
    let edited = current(&harness);
    assert_eq!((edited.boxes[0].min.x, edited.boxes[0].max.x), (-4.5, -3.5));
    assert_eq!((edited.terrains[0].height_scale, edited.terrains[0].origin.z), (0.75, -2.0));
    let saved = std::fs::read_to_string(&path).expect("saved file");
    let read_back = scene::load_file(&path).expect("the saved file is a valid scene");
    assert_eq!(read_back, edited);
    assert_eq!(scene::to_ron(&read_back), saved, "the saved form is stable");
}

#[test]
fn save_without_edits_is_byte_identical() {
    let dir = tempfile::tempdir().expect("temp dir");
    for asset in ["three_spheres.ron", "cornell.ron", "rtiow_final.ron"] {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes").join(asset);
        let canonical = scene::to_ron(&scene::load_file(&source).expect("asset loads"));
        let path = dir.path().join(asset);
        std::fs::write(&path, &canonical).expect("temp dir is writable");
        let mut harness = harness(&path);
        harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
        harness.run_steps(2);
        assert!(!harness.state().status().expect("save reports").is_error, "{asset}");
        assert_eq!(std::fs::read_to_string(&path).expect("saved file"), canonical, "{asset}");
    }
}

#[test]
fn a_broken_save_shows_the_error_panel_and_keeps_the_last_good_scene() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness_with(&path, |app| app.controls.max_spp = 4);
    let good = std::fs::read_to_string(&path).expect("scene text");
    let broken = good.replacen("radius: 0.5", "radius: -0.5", 1);
    let (line, column) = locate(&broken, "-0.5");
    let before = finished_film(&mut harness);
    assert!(before.is_some(), "the render finished");
    std::fs::write(&path, broken).expect("temp dir is writable");

    let deadline = Instant::now() + Duration::from_secs(10);
    while harness.state().session.last_error().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    harness.run_steps(3);
    let location = format!("line {line}, column {column}");
    harness.get_by_label_contains(&location);
    harness.get_by_label_contains("`radius` must be positive");
    assert!(harness.state().session.current().is_some(), "the last good scene stays");
    // Attempts are numbered, the kept scene named: a failure never reads like a success.
    harness.get_by_label("#1 failed, scene #1 kept");
    // The error is shown over the image, which keeps its size: the film goes on.
    assert_eq!(finished_film(&mut harness), before, "the last good scene's render restarted");
}

#[test]
fn screenshots_go_to_the_scene_folder_or_the_chosen_one_and_name_the_full_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);
    let pngs = |folder: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
            .expect("folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "png"))
            .collect();
        found.sort();
        found
    };

    harness.state_mut().screenshot();
    let [written] = &pngs(dir.path())[..] else { panic!("one PNG beside the scene: {:?}", pngs(dir.path())) };
    let status = harness.state().status().expect("the screenshot reports").clone();
    assert!(!status.is_error && status.text.contains(&written.display().to_string()), "{status:?}");

    let chosen = dir.path().join("shots");
    std::fs::create_dir(&chosen).expect("temp dir is writable");
    harness.state_mut().screenshot_dir = chosen.clone();
    harness.state_mut().screenshot();
    let [written] = &pngs(&chosen)[..] else { panic!("one PNG in the chosen folder") };
    assert!(harness.state().status().expect("reports").text.contains(&written.display().to_string()));

    harness.state_mut().screenshot_dir = dir.path().join("missing");
    harness.state_mut().screenshot();
    let status = harness.state().status().expect("reports");
    assert!(status.is_error && status.text.contains("does not exist"), "{status:?}");
}

#[test]
fn a_scene_that_never_compiled_shows_only_the_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.ron");
    std::fs::write(&path, "Scene(camera: (look_from: (0.0, 0.0, 0.0)").expect("temp dir is writable");
    let harness = harness(&path);
    harness.get_by_label_contains("Scene error at line 1");
    harness.get_by_label("no scene");
    harness.get_by_label("no image: see the scene error");
}

#[test]
fn the_renderer_sends_a_progressive_image() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);
    let deadline = Instant::now() + Duration::from_secs(20);
    while harness.state().frame().is_none_or(|f| f.samples < 2) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    let frame = harness.state().frame().expect("the render thread sent an image");
    assert!(frame.samples >= 2, "samples accumulate across batches");
    assert_eq!(frame.rgba.len(), (frame.width * frame.height * 4) as usize);
}

#[test]
fn view_of_a_missing_file_is_an_input_error() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_renderer"))
        .args(["view", "no-such-scene.ron", "--backend", "cpu"])
        .output()
        .expect("run renderer");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no-such-scene.ron"), "{stderr}");
}

/// A scene of two spheres, one with a checker texture and one with `textures/a.png`
/// (2 x 2), and a 3 x 1 `textures/b.png` beside it, in `dir`.
fn texture_scene(dir: &Path) -> PathBuf {
    std::fs::create_dir(dir.join("textures")).expect("temp dir is writable");
    let a = image::GrayImage::from_raw(2, 2, vec![0, 255, 255, 0]).expect("2 x 2 pixels");
    a.save(dir.join("textures/a.png")).expect("write a.png");
    let b = image::GrayImage::from_raw(3, 1, vec![0, 255, 0]).expect("3 x 1 pixels");
    b.save(dir.join("textures/b.png")).expect("write b.png");
    let text = "Scene(
    camera: (look_from: (0.0, 1.0, 6.0), look_at: (0.0, 0.0, 0.0), vfov_deg: 40.0),
    settings: (width: 64, height: 48, spp: 1, max_depth: 4, seed: 0),
    materials: {
        \"floor\": Lambert(albedo: (1.0, 1.0, 1.0), texture: Checker(size: 1.0, even: (1.0, 1.0, 1.0), odd: (0.1, 0.1, 0.1))),
        \"globe\": Lambert(albedo: (1.0, 1.0, 1.0), texture: Image(file: \"textures/a.png\")),
    },
    spheres: [
        (center: (-1.0, 0.0, 0.0), radius: 0.8, material: \"floor\"),
        (center: (1.0, 0.0, 0.0), radius: 0.8, material: \"globe\"),
    ],
)
";
    let path = dir.join("scene.ron");
    std::fs::write(&path, text).expect("temp dir is writable");
    path
}

/// Material `index`'s texture in the editor's current scene.
fn texture_of(harness: &Harness<'_, ViewApp>, index: usize) -> Option<scene::Texture> {
    current(harness).materials[index].texture.clone()
}

/// The file, size and wrap of an image texture.
fn image_of(texture: Option<scene::Texture>) -> Option<(String, u32, u32, scene::Wrap)> {
    match texture {
        Some(scene::Texture::Image { file, image, wrap, .. }) => {
            Some((file, image.width, image.height, wrap))
        }
        _ => None,
    }
}

/// Picks `option` in the combo box labelled `combo`. A choice made by accessibility
/// click leaves the popup's open state behind, so the box is clicked until the choice
/// shows.
fn choose(harness: &mut Harness<'_, ViewApp>, combo: &str, option: &str) {
    for _ in 0..2 {
        if harness.query_by_label(option).is_none() {
            harness.get_by_label(combo).click_accesskit();
            harness.run_steps(2);
        }
    }
    harness.get_by_label(option).click_accesskit();
    harness.run_steps(2);
}

/// Picks `kind` in the "texture" combo box.
fn choose_texture_kind(harness: &mut Harness<'_, ViewApp>, kind: &str) {
    choose(harness, "texture", kind);
}

#[test]
fn a_materials_texture_is_shown_edited_swapped_and_saved() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = texture_scene(dir.path());
    let mut harness = harness(&path);
    harness.get_by_label("sphere 0").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().editor.selected, Some(Selected::Sphere(0)));

    // The checker: its size edited in place (its colours are colour buttons beside it).
    harness.get_by_label("even");
    harness.get_by_label("odd");
    harness.get_by_label("size").set_value_accesskit(0.5);
    harness.run_steps(2);
    let Some(scene::Texture::Checker { size, .. }) = texture_of(&harness, 0) else { panic!("a checker") };
    assert_eq!(size, 0.5);

    // Another kind from the combo box: noise, its scale edited.
    choose_texture_kind(&mut harness, "noise");
    assert_eq!(texture_of(&harness, 0), Some(scene::Texture::Noise { scale: 4.0 }));
    harness.get_by_label("scale").set_value_accesskit(2.0);
    harness.run_steps(2);
    assert_eq!(texture_of(&harness, 0), Some(scene::Texture::Noise { scale: 2.0 }));

    // An image: the scene's other image to start with, shown with its size.
    choose_texture_kind(&mut harness, "image");
    assert_eq!(image_of(texture_of(&harness, 0)), Some(("textures/a.png".into(), 2, 2, scene::Wrap::Repeat)));
    harness.get_by_label("2 x 2 pixels");

    // Swap the file: typed in the field, read with the Read button.
    harness.get_by_label("image file").set_text_value_accesskit("textures/b.png");
    harness.run_steps(2);
    harness.get_by_label("Read").click_accesskit();
    harness.run_steps(3);
    assert_eq!(image_of(texture_of(&harness, 0)), Some(("textures/b.png".into(), 3, 1, scene::Wrap::Repeat)));
    harness.get_by_label("3 x 1 pixels");
    assert!(harness.state().session.last_error().is_none(), "every edit validated");
    harness.get_by_label("clamp").click_accesskit();
    harness.run_steps(2);
    assert_eq!(image_of(texture_of(&harness, 0)).map(|i| i.3), Some(scene::Wrap::Clamp));

    // A missing file, entered with Enter: the compiler's message, the scene kept.
    harness.get_by_label("image file").set_text_value_accesskit("textures/missing.png");
    harness.run_steps(2);
    harness.get_by_label("image file").focus();
    harness.run_steps(1);
    harness.key_press(Key::Enter);
    harness.run_steps(3);
    let error = harness.state().session.last_error().expect("the missing image is an error").clone();
    assert!(
        error.message.contains(
            "materials[0].texture.file: cannot use texture image `textures/missing.png`: cannot open"
        ),
        "{error}"
    );
    harness.get_by_label_contains("cannot use texture image `textures/missing.png`");
    assert!(harness.state().status().expect("the edit reports").is_error);
    assert_eq!(image_of(texture_of(&harness, 0)), Some(("textures/b.png".into(), 3, 1, scene::Wrap::Clamp)));

    // Undo steps back through the wrap and the swap; the other material never changed.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(image_of(texture_of(&harness, 0)), Some(("textures/a.png".into(), 2, 2, scene::Wrap::Repeat)));
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);
    assert_eq!(image_of(texture_of(&harness, 1)), Some(("textures/a.png".into(), 2, 2, scene::Wrap::Repeat)));

    // Saved, the file names the new image and reads back as the scene in the editor.
    save(&mut harness);
    let saved = std::fs::read_to_string(&path).expect("saved file");
    assert!(saved.contains("texture: Image(file: \"textures/b.png\", wrap: Clamp)"), "{saved}");
    assert_eq!(scene::load_file(&path).expect("the saved file is a valid scene"), current(&harness));

    // No texture at all.
    choose_texture_kind(&mut harness, "none");
    assert_eq!(texture_of(&harness, 0), None);
}

#[test]
fn an_image_for_a_scene_without_one_waits_for_its_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    image::GrayImage::from_raw(3, 1, vec![0, 255, 0])
        .expect("3 x 1")
        .save(dir.path().join("b.png"))
        .expect("png");
    let mut harness = harness(&path);
    harness.get_by_label("sphere 1").click_accesskit();
    harness.run_steps(2);
    let before = current(&harness);
    let material = before.spheres[1].material as usize;
    assert_eq!(before.materials[material].texture, None);

    // No image in the scene to start from: nothing changes until a file is read.
    choose_texture_kind(&mut harness, "image");
    assert_eq!(current(&harness), before);
    harness.get_by_label("image file").set_text_value_accesskit("b.png");
    harness.run_steps(2);
    harness.get_by_label("Read").click_accesskit();
    harness.run_steps(3);
    assert_eq!(image_of(texture_of(&harness, material)), Some(("b.png".into(), 3, 1, scene::Wrap::Repeat)));
    harness.get_by_label("3 x 1 pixels");

    // Waiting for a file and changing one's mind: back to no texture, no edit made.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    choose_texture_kind(&mut harness, "image");
    choose_texture_kind(&mut harness, "none");
    assert_eq!(current(&harness), before);
    assert!(harness.state().editor.can_redo(), "no edit was made, so the redo is still there");
}

/// Material `index` of the editor's current scene.
fn material_of(harness: &Harness<'_, ViewApp>, index: usize) -> scene::Material {
    current(harness).materials[index].clone()
}

#[test]
fn a_material_switched_to_principled_starts_at_gltfs_defaults_and_edits_a_factor() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);
    harness.get_by_label("sphere 1").click_accesskit();
    harness.run_steps(2);
    let material = current(&harness).spheres[1].material as usize;
    let before = material_of(&harness, material);

    choose(&mut harness, "kind", "Principled");
    let principled = scene::MaterialKind::Principled(scene::Principled::default());
    assert_eq!(material_of(&harness, material).kind, principled);
    // Its texture rows: the base colour's and the three maps'.
    for row in ["base_color_texture", "metallic_roughness_texture", "emission_texture", "normal_texture"] {
        harness.get_by_label(row);
    }
    harness.get_by_label("roughness").set_value_accesskit(0.25);
    harness.run_steps(2);
    let scene::MaterialKind::Principled(edited) = material_of(&harness, material).kind else {
        panic!("still a Principled")
    };
    assert_eq!(edited, scene::Principled { roughness: 0.25, ..scene::Principled::default() });
    assert!(harness.state().session.last_error().is_none(), "every edit validated");

    // Two undo steps: the factor, then the kind.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(material_of(&harness, material).kind, principled);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(material_of(&harness, material), before);
}

/// A scene of one sphere of a Principled material, and `maps/normal.png`, a 2 x 1 RGB
/// image of the bytes [`NORMAL_BYTES`], in `dir`.
fn principled_scene(dir: &Path) -> PathBuf {
    std::fs::create_dir(dir.join("maps")).expect("temp dir is writable");
    let normal = image::RgbImage::from_raw(2, 1, NORMAL_BYTES.to_vec()).expect("2 x 1 pixels");
    normal.save(dir.join("maps/normal.png")).expect("write normal.png");
    let text = "Scene(
    camera: (look_from: (0.0, 1.0, 6.0), look_at: (0.0, 0.0, 0.0), vfov_deg: 40.0),
    settings: (width: 64, height: 48, spp: 1, max_depth: 4, seed: 0),
    materials: { \"pbr\": Principled(base_color: (0.8, 0.7, 0.6), metallic: 0.0, roughness: 0.5) },
    spheres: [(center: (0.0, 0.0, 0.0), radius: 1.0, material: \"pbr\")],
)
";
    let path = dir.join("scene.ron");
    std::fs::write(&path, text).expect("temp dir is writable");
    path
}

/// The normal map's bytes: sRGB decoding would change every one but 0 and 255.
const NORMAL_BYTES: [u8; 6] = [128, 64, 255, 0, 200, 30];

/// The texels of a map that must hold `NORMAL_BYTES` read as data: each byte / 255.
fn assert_read_as_data(map: Option<&scene::Texture>) {
    let Some(scene::Texture::Image { image, .. }) = map else { panic!("an image: {map:?}") };
    let texels: Vec<f32> = image.texels.iter().flatten().copied().collect();
    let stored: Vec<f32> = NORMAL_BYTES.iter().map(|&b| f32::from(b) / 255.0).collect();
    assert_eq!(texels, stored, "read without sRGB decoding");
}

#[test]
fn a_principled_normal_map_is_read_as_data_and_saved_and_a_missing_one_keeps_the_scene() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = principled_scene(dir.path());
    let mut harness = harness(&path);
    harness.get_by_label("sphere 0").click_accesskit();
    harness.run_steps(2);

    // No data image in the scene to share: the row waits for a file, read with Read.
    choose(&mut harness, "normal_texture", "image");
    assert_eq!(material_of(&harness, 0).maps.normal, None);
    harness.get_by_label("normal image file").set_text_value_accesskit("maps/normal.png");
    harness.run_steps(2);
    harness.get_by_label("Read").click_accesskit();
    harness.run_steps(3);
    assert!(harness.state().session.last_error().is_none(), "the map was read");
    assert_read_as_data(material_of(&harness, 0).maps.normal.as_ref());
    harness.get_by_label("2 x 1 pixels");

    save(&mut harness);
    let saved = std::fs::read_to_string(&path).expect("saved file");
    assert!(saved.contains("normal_texture: Image(file: \"maps/normal.png\")"), "{saved}");
    let read_back = scene::load_file(&path).expect("the saved file is a valid scene");
    assert_read_as_data(read_back.materials[0].maps.normal.as_ref());

    // A missing image, entered with Enter: an error at its path, the scene kept.
    harness.get_by_label("normal image file").set_text_value_accesskit("maps/missing.png");
    harness.run_steps(2);
    harness.get_by_label("normal image file").focus();
    harness.run_steps(1);
    harness.key_press(Key::Enter);
    harness.run_steps(3);
    let error = harness.state().session.last_error().expect("the missing map is an error").clone();
    assert!(
        error.message.contains(
            "materials[0].normal_texture.file: cannot use texture image `maps/missing.png`: cannot open"
        ),
        "{error}"
    );
    assert_read_as_data(material_of(&harness, 0).maps.normal.as_ref());

    // Another kind takes no maps: they go, and come back with Ctrl+Z.
    choose(&mut harness, "kind", "Lambert");
    let lambert = material_of(&harness, 0);
    assert!(matches!(lambert.kind, scene::MaterialKind::Lambert { .. }), "{lambert:?}");
    assert_eq!(lambert.maps, scene::Maps::default());
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_read_as_data(material_of(&harness, 0).maps.normal.as_ref());
}

/// A scene of a floor box and a quad read from `quad.obj`, whose MTL gives it a
/// material of its own, in `dir`.
fn mesh_scene(dir: &Path) -> PathBuf {
    let obj = "mtllib quad.mtl\nv -1 0 0\nv 1 0 0\nv 1 1 0\nv -1 1 0\nusemtl paint\nf 1 2 3\nf 1 3 4\n";
    std::fs::write(dir.join("quad.obj"), obj).expect("temp dir is writable");
    std::fs::write(dir.join("quad.mtl"), "newmtl paint\nKd 0.2 0.6 0.2\n").expect("temp dir is writable");
    let text = "Scene(
    camera: (look_from: (0.0, 1.0, 6.0), look_at: (0.0, 0.5, 0.0), vfov_deg: 40.0),
    settings: (width: 64, height: 48, spp: 1, max_depth: 4, seed: 0),
    materials: { \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)), \"red\": Lambert(albedo: (0.8, 0.1, 0.1)) },
    boxes: [(min: (-3.0, -1.0, -3.0), max: (3.0, 0.0, 3.0), material: \"grey\")],
    meshes: [(file: \"quad.obj\")],
)
";
    let path = dir.join("scene.ron");
    std::fs::write(&path, text).expect("temp dir is writable");
    path
}

#[test]
fn a_meshs_material_is_overridden_from_the_panel_saved_and_undone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = mesh_scene(dir.path());
    let mut harness = harness(&path);
    harness.get_by_label("mesh 0 · quad.obj").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().editor.selected, Some(Selected::Mesh(0)));
    harness.get_by_label_contains("the model's materials: paint");

    choose(&mut harness, "material", "red");
    assert_eq!(current(&harness).meshes[0].material, Some(1));
    assert!(harness.state().session.last_error().is_none(), "the override validated");
    harness.get_by_label_contains("material \"red\"");

    save(&mut harness);
    let saved = std::fs::read_to_string(&path).expect("saved file");
    assert!(saved.contains("(file: \"quad.obj\", material: \"red\")"), "{saved}");
    let read_back = scene::load_file(&path).expect("the saved file is a valid scene");
    assert_eq!(read_back.meshes[0].material, Some(1));
    assert_eq!(read_back, current(&harness));

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(current(&harness).meshes[0].material, None, "Ctrl+Z gives the model its own back");
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);
    assert_eq!(current(&harness).meshes[0].material, Some(1));

    // Back to the model's own from the combo box.
    choose(&mut harness, "material", "model's own materials");
    assert_eq!(current(&harness).meshes[0].material, None);

    // Moved, turned and scaled by its transform's rows.
    for (row, value) in [("translate x", 0.5), ("rotate y", 30.0), ("scale", 2.0)] {
        harness.get_by_label(row).set_value_accesskit(value);
        harness.run_steps(2);
    }
    let t = current(&harness).meshes[0].transform;
    assert_eq!((t.translate.x, t.rotate_deg.y, t.scale), (0.5, 30.0, glam::Vec3::splat(2.0)));
    assert!(harness.state().session.last_error().is_none());
}

/// A mesh stretched and mirrored per axis shows a row per axis; an edit of another
/// field keeps all three, an axis' edit changes that axis alone and keeps its sign (a
/// drag never passes through 0), and the save writes the scale per axis. A scale the
/// axes share is one row that sets all three.
#[test]
fn a_stretched_meshs_scale_is_edited_per_axis_and_survives_other_edits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = mesh_scene(dir.path());
    let text = std::fs::read_to_string(&path).expect("scene written").replace(
        "meshes: [(file: \"quad.obj\")]",
        "meshes: [(file: \"quad.obj\", transform: (scale: (1, 2, -1)))]",
    );
    std::fs::write(&path, text).expect("temp dir is writable");
    let mut harness = harness(&path);
    harness.get_by_label("mesh 0 · quad.obj").click_accesskit();
    harness.run_steps(2);
    let scale = |h: &Harness<'_, ViewApp>| current(h).meshes[0].transform.scale;
    assert!(harness.query_by_label("scale").is_none(), "a stretched scale has no shared row");

    for (row, value) in [("translate x", 0.5), ("rotate y", 30.0)] {
        harness.get_by_label(row).set_value_accesskit(value);
        harness.run_steps(2);
    }
    assert_eq!(scale(&harness), glam::Vec3::new(1.0, 2.0, -1.0), "other edits keep the scale");
    harness.get_by_label("scale y").set_value_accesskit(3.0);
    harness.run_steps(2);
    assert_eq!(scale(&harness), glam::Vec3::new(1.0, 3.0, -1.0));
    harness.get_by_label("scale z").set_value_accesskit(2.0);
    harness.run_steps(2);
    assert!(scale(&harness).z < 0.0, "the mirror stays: {}", scale(&harness));
    harness.get_by_label("scale z").set_value_accesskit(-0.5);
    harness.run_steps(2);
    assert_eq!(scale(&harness), glam::Vec3::new(1.0, 3.0, -0.5));
    assert!(harness.state().session.last_error().is_none());

    save(&mut harness);
    let saved = std::fs::read_to_string(&path).expect("saved file");
    assert!(saved.contains("scale: (1.0, 3.0, -0.5)"), "{saved}");
    assert_eq!(scene::load_file(&path).expect("the saved file is valid"), current(&harness));

    // Made uniform in the file, the scale is one row again, which sets all three.
    let text = saved.replace("scale: (1.0, 3.0, -0.5)", "scale: (2, 2, 2)");
    std::fs::write(&path, text).expect("temp dir is writable");
    let mut harness = self::harness(&path);
    harness.get_by_label("mesh 0 · quad.obj").click_accesskit();
    harness.run_steps(2);
    assert!(harness.query_by_label("scale x").is_none(), "a shared scale has one row");
    harness.get_by_label("scale").set_value_accesskit(0.5);
    harness.run_steps(2);
    assert_eq!(scale(&harness), glam::Vec3::splat(0.5));
}

/// The quad scene with the quad placed twice by `instances`, the second in red.
fn instanced_scene(dir: &Path) -> PathBuf {
    let path = mesh_scene(dir);
    let text = std::fs::read_to_string(&path).expect("scene written").replace(
        "meshes: [(file: \"quad.obj\")]",
        "meshes: [(file: \"quad.obj\", instances: [(translate: (-1.2, 0.0, 0.0)), (translate: (1.2, 0.0, 0.0), material: \"red\")])]",
    );
    std::fs::write(&path, text).expect("temp dir is writable");
    path
}

/// Saves with the keyboard (Ctrl+S), which must report no error.
fn save(harness: &mut Harness<'_, ViewApp>) {
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    assert!(!harness.state().status().expect("save reports").is_error);
}

/// Opens the outline's list `list` of a mesh's instances and clicks its entry `entry`.
fn choose_instance(harness: &mut Harness<'_, ViewApp>, list: &str, entry: &str) {
    for label in [list, entry] {
        harness.get_by_label(label).click_accesskit();
        harness.run_steps(2);
    }
}

#[test]
fn an_instance_chosen_in_the_outline_moves_takes_a_material_saves_and_deletes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = instanced_scene(dir.path());
    let mut harness = harness(&path);
    let instances = |h: &Harness<'_, ViewApp>| current(h).meshes[0].instances.clone();
    let before = instances(&harness);
    choose_instance(&mut harness, "Instances of mesh 0 · quad.obj (2)", "mesh 0 · instance 0");
    assert_eq!(harness.state().editor.selected, Some(Selected::Instance { mesh: 0, k: 0 }));

    harness.get_by_label("translate y").set_value_accesskit(0.5);
    harness.run_steps(2);
    assert_eq!(instances(&harness)[0].transform.translate, glam::Vec3::new(-1.2, 0.5, 0.0));
    assert_eq!(instances(&harness)[1], before[1], "the other instance stays");
    let times = harness.state().session.current().expect("current").times;
    assert_eq!((times.bottom_levels, times.bottom_levels_built), (1, 0), "only the top level is rebuilt");

    choose(&mut harness, "material", "red");
    assert_eq!(instances(&harness)[0].material, Some(1));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(instances(&harness)[0].material, None, "Ctrl+Z takes the material back, not the move");
    assert_eq!(instances(&harness)[0].transform.translate.y, 0.5);
    choose(&mut harness, "material", "red");

    save(&mut harness);
    let read_back = scene::load_file(&path).expect("the saved file is a valid scene");
    assert_eq!(read_back, current(&harness));
    assert_eq!(read_back.meshes[0].instances[0].material, Some(1));

    harness.get_by_label("Delete").click_accesskit();
    harness.run_steps(2);
    assert_eq!(instances(&harness), [before[1]], "the first instance is gone, the second stays");
    assert_eq!(harness.state().editor.selected, None);
    // The mesh's last instance is not deleted: without it the mesh would be placed
    // by its own transform, which is not what deleting an instance means.
    harness.get_by_label("mesh 0 · instance 0").click_accesskit();
    harness.run_steps(2);
    let scene = current(&harness);
    assert!(!harness.state().editor.can_delete(&scene));
}

/// The image area keeps its size when the first image arrives (the status line is there
/// from the start), so that image is not thrown away for one of another size.
#[test]
fn the_first_image_is_rendered_at_the_size_it_is_shown() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = unstarted_harness(&canonical_scene(dir.path()), |app| app.controls.max_spp = 4);
    harness.get_by_label_contains("rendering the first image");
    assert!(step_until(&mut harness, |app| app.frame().is_some()), "a first image");
    let first = harness.state().frame().map(|f| (f.width, f.height, f.started));
    assert_eq!(finished_film(&mut harness), first, "the render restarted (at another size)");
}

/// Waits until the editor shows a finished image of an accumulation started after `since`.
/// A frame of an earlier view (the same film at another size) does not count.
fn finished_frame_since(harness: &mut Harness<'_, ViewApp>, since: Instant) -> Vec<u8> {
    let done = |app: &ViewApp| app.finished() && app.frame().is_some_and(|f| f.started >= since);
    assert!(step_until(harness, done), "no finished frame after the edit");
    harness.state().frame().expect("a frame").rgba.clone()
}

#[test]
fn instances_moved_in_the_editor_are_moved_in_place_and_render_as_the_saved_scene() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = instanced_scene(dir.path());
    // Nearer the middle than the other instance, and moved inside the floor's box: the
    // level's margin and the scene's box stay, as an in-place move needs.
    let text = std::fs::read_to_string(&path).expect("scene written").replace("(-1.2,", "(-0.9,");
    std::fs::write(&path, text).expect("temp dir is writable");
    let stop_at_2_spp = |app: &mut ViewApp| app.controls.max_spp = 2;
    let mut harness = harness_with(&path, stop_at_2_spp);
    choose_instance(&mut harness, "Instances of mesh 0 · quad.obj (2)", "mesh 0 · instance 0");
    let mut moved = Vec::new();
    // The second move edits the blob the first edited, on the render thread's copy too.
    for x in [-0.8, -0.6] {
        let since = Instant::now();
        harness.get_by_label("translate x").set_value_accesskit(x);
        harness.run_steps(2);
        let current = harness.state().session.current().expect("current");
        assert_eq!(current.scene.meshes[0].instances[0].transform.translate.x, x as f32);
        assert!(current.times.moved_in_place, "moved at x = {x} by a full compile");
        assert!(current.edit.is_some());
        moved = finished_frame_since(&mut harness, since);
    }

    // The image of the scene moved twice in place is the saved scene's, compiled anew.
    save(&mut harness);
    let since = Instant::now();
    let mut fresh = harness_with(&path, stop_at_2_spp);
    assert_eq!(current(&fresh).meshes[0].instances[0].transform.translate.x, -0.6);
    assert!(
        finished_frame_since(&mut fresh, since) == moved,
        "the moved image differs from the saved scene's"
    );
}

/// The quad scene with the quad placed by an instance file `trees.ply` of three
/// instances (`extra`: a property the editor does not know, so it cannot write it back).
fn instance_file_scene(dir: &Path, extra: bool) -> PathBuf {
    let path = mesh_scene(dir);
    let ply = if extra {
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nproperty float id\nend_header\n-2 0 0 7\n0 0 0 8\n2 0 0 9\n".as_bytes().to_vec()
    } else {
        let at = |x: f32| {
            scene::Transform { translate: glam::Vec3::new(x, 0.0, 0.0), ..Default::default() }.into()
        };
        scene::write_instance_file(&[at(-2.0), at(0.0), at(2.0)], scene::PlyEncoding::BinaryLittleEndian)
    };
    std::fs::write(dir.join("trees.ply"), ply).expect("temp dir is writable");
    let text = std::fs::read_to_string(&path).expect("scene written").replace(
        "meshes: [(file: \"quad.obj\")]",
        "meshes: [(file: \"quad.obj\", instance_file: \"trees.ply\")]",
    );
    std::fs::write(&path, text).expect("temp dir is writable");
    path
}

#[test]
fn an_instance_files_instance_moves_and_saving_writes_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = instance_file_scene(dir.path(), false);
    let mut harness = harness(&path);
    choose_instance(&mut harness, "Instances of mesh 0 · quad.obj (3)", "mesh 0 · instance 1");
    harness.get_by_label_contains("vertex 1 of instance_file `trees.ply`: saving writes that file");
    harness.get_by_label("translate y").set_value_accesskit(1.5);
    harness.run_steps(2);
    let file_instances = |h: &Harness<'_, ViewApp>| current(h).meshes[0].placements.instances.clone();
    assert_eq!(file_instances(&harness)[1].transform.translate, glam::Vec3::new(0.0, 1.5, 0.0));
    assert!(harness.state().session.last_error().is_none());
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(file_instances(&harness)[1].transform.translate.y, 0.0, "Ctrl+Z moves it back");
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);

    save(&mut harness);
    let on_disk = scene::read_instance_file(&dir.path().join("trees.ply")).expect("the file reads back");
    assert_eq!(on_disk.instances, file_instances(&harness), "the moved instance is in the file");
    assert_eq!(on_disk.rewrite, Ok(scene::PlyEncoding::BinaryLittleEndian), "in its own encoding");
    let read_back = scene::load_file(&path).expect("the saved scene is valid");
    assert!(read_back.meshes[0].instances.is_empty(), "the move is the file's, not the scene's");
    assert_eq!(read_back, current(&harness));

    // A file with a property of its own is shown, not edited.
    let other = tempfile::tempdir().expect("temp dir");
    let mut harness = self::harness(&instance_file_scene(other.path(), true));
    choose_instance(&mut harness, "Instances of mesh 0 · quad.obj (3)", "mesh 0 · instance 1");
    harness.get_by_label_contains("which is edited in the file: its vertices have a property `id`");
    assert!(harness.query_by_label("translate y").is_none());
}

/// 1-based line and column (in characters) of the first `needle` in `text`.
fn locate(text: &str, needle: &str) -> (usize, usize) {
    let offset = text.find(needle).expect("needle is in the text");
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Waits (stepping the UI) until `done` holds for the editor's latest frame.
fn wait_for_frame(harness: &mut Harness<'_, ViewApp>, done: impl Fn(&renderer::view::worker::Frame) -> bool) {
    step_until(harness, |app| app.frame().is_some_and(&done));
}

#[test]
fn exposure_and_view_change_the_display_without_restarting_and_save() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);
    harness.state_mut().controls.max_spp = 64;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !harness.state().finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    assert!(harness.state().finished(), "the render finished");
    let finished = harness.state().frame().expect("a frame").rgba.clone();

    // A display change re-reads the finished film: the same samples, other pixels.
    harness.get_by_label("AgX").click_accesskit();
    harness.run_steps(2);
    wait_for_frame(&mut harness, |f| f.rgba != finished);
    let agx = harness.state().frame().expect("a frame");
    assert_eq!(agx.samples, 64, "the view is a display transform: accumulation goes on");
    assert_ne!(agx.rgba, finished);
    let agx_pixels = agx.rgba.clone();
    assert_eq!(current(&harness).settings.view, scene::ViewTransform::Agx);

    harness.get_by_role_and_label(egui::accesskit::Role::Slider, "exposure (stops)").set_value_accesskit(2.0);
    harness.run_steps(2);
    wait_for_frame(&mut harness, |f| f.rgba != agx_pixels);
    assert_eq!(harness.state().frame().expect("a frame").samples, 64);
    assert_eq!(current(&harness).settings.exposure, 2.0);

    harness.get_by_label("Save").click_accesskit();
    harness.run_steps(2);
    let saved = scene::load_file(&path).expect("the saved file is a valid scene");
    assert_eq!((saved.settings.exposure, saved.settings.view), (2.0, scene::ViewTransform::Agx));
    let text = std::fs::read_to_string(&path).expect("saved");
    assert!(text.contains("exposure: 2.0") && text.contains("view: Agx"), "{text}");
}

#[test]
fn the_image_is_denoised_below_the_threshold_and_the_status_line_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);
    let first = harness.state().frame().expect("a frame").clone();
    assert!(first.denoised.is_some(), "the denoiser is on by default at {} spp", first.samples);
    let line = harness.state().status_line().expect("a status line");
    assert!(
        line.starts_with(&format!("{} spp · ", first.samples)) && line.contains("· denoised ("),
        "{line}"
    );
    harness.get_by_label(&line);

    // A depth change restarts the film, so it is shown from sample 1 to 8.
    harness.state_mut().controls.max_depth = Some(3);
    harness.state_mut().controls.denoise_below = 4;
    harness.state_mut().controls.max_spp = 8;
    harness.run_steps(2);
    wait_for_frame(&mut harness, |f| f.samples == 8);
    assert!(harness.state().finished(), "the render finished");
    let last = harness.state().frame().expect("a frame").clone();
    assert_eq!(last.denoised, None, "at the threshold the film is shown as accumulated");
    let line = harness.state().status_line().expect("a status line");
    assert!(line.starts_with("8 spp · ") && line.ends_with("· not denoised · done"), "{line}");
    harness.get_by_label(&line);

    // Raising the threshold past the film's samples shows the same film denoised.
    harness.state_mut().controls.denoise_below = 100;
    harness.run_steps(2);
    wait_for_frame(&mut harness, |f| f.denoised.is_some());
    let denoised = harness.state().frame().expect("a frame");
    assert_eq!(denoised.samples, 8, "a threshold change keeps the film");
    assert_ne!(denoised.rgba, last.rgba, "the denoised image differs from the raw one");

    harness.state_mut().screenshot();
    let status = harness.state().status().expect("the screenshot reports").text.clone();
    assert!(status.ends_with("scene-8spp-denoised.png"), "{status}");
}

#[test]
fn turning_the_denoiser_on_restarts_a_film_without_aovs_and_off_keeps_the_film() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut harness = harness(&path);
    // Off, and a depth change: the film restarts without AOVs.
    harness.state_mut().controls.denoise = false;
    harness.state_mut().controls.max_depth = Some(3);
    harness.run_steps(2);
    wait_for_frame(&mut harness, |f| f.denoised.is_none() && f.samples >= 2);
    assert!(harness.state().status_line().expect("a status line").contains("· not denoised"));
    std::thread::sleep(Duration::from_millis(300));

    let toggled_on = Instant::now();
    harness.get_by_label("denoise").click_accesskit();
    harness.run_steps(2);
    wait_for_frame(&mut harness, |f| f.denoised.is_some());
    assert!(harness.state().controls.denoise, "the checkbox turned the denoiser on");
    let on = harness.state().frame().expect("a frame").clone();
    assert!(on.started >= toggled_on, "the film restarted when the denoiser was turned on");

    harness.get_by_label("denoise").click_accesskit();
    harness.run_steps(2);
    wait_for_frame(&mut harness, |f| f.denoised.is_none());
    let off = harness.state().frame().expect("a frame");
    assert!(!harness.state().controls.denoise);
    assert_eq!(off.started, on.started, "turning the denoiser off keeps the film");
    assert!(off.samples >= on.samples);
}

#[test]
fn edits_of_a_large_scene_keep_changes_not_copies_and_undo_restores_it() {
    use renderer::view::edit::{EditKey, Editor, replace};
    let dir = tempfile::tempdir().expect("temp dir");
    let path = canonical_scene(dir.path());
    let mut original = scene::load_file(&path).expect("scene");
    let extra = (0..20_000).map(|i| scene::Sphere {
        center: glam::Vec3::new((i % 200) as f32, -50.0, (i / 200) as f32),
        radius: 0.25,
        material: 0,
    });
    original.spheres.extend(extra);
    std::fs::write(&path, scene::to_ron(&original)).expect("write");
    let mut session = Session::open(&path, None, SessionOptions::default()).expect("session opens");
    let loaded = session.current().expect("a scene").scene.clone();
    let mut editor = Editor::default();
    for step in 0..10 {
        let sphere = scene::Sphere { radius: 0.5 + step as f32 * 0.01, ..loaded.spheres[step] };
        editor.apply(&mut session, replace(step, sphere), EditKey::Structure).expect("a valid edit");
    }
    // Ten changes of one sphere each: bytes, where ten copies of the scene were megabytes.
    assert!(editor.history_bytes() < 10 * 256, "{} bytes of history", editor.history_bytes());
    assert_eq!(session.current().expect("a scene").scene.spheres[9].radius, 0.59);
    while editor.undo(&mut session).expect("undo") {}
    assert!(session.current().expect("a scene").scene == loaded, "undoing every edit restores the scene");
    for _ in 0..10 {
        assert!(editor.redo(&mut session).expect("redo"));
    }
    assert_eq!(session.current().expect("a scene").scene.spheres[9].radius, 0.59);
}

/// The render thread's next event that `pick` takes, skipping others (20 s at most).
fn next_event<T>(
    worker: &renderer::view::worker::Worker,
    mut pick: impl FnMut(renderer::view::worker::Event) -> Option<T>,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(found) = worker.events().into_iter().find_map(&mut pick) {
            return found;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("the render thread did not report in time");
}

#[test]
fn the_render_thread_lets_go_of_an_uploaded_scene_and_asks_for_it_after_a_backend_switch() {
    use renderer::view::worker::{Command, Event, ViewParams, Worker};
    use std::sync::{Arc, OnceLock};

    let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/three_spheres.ron");
    let scene = Arc::new(renderer::load::load(&asset, &Default::default()).expect("asset loads"));
    let settings = scene::RenderSettings { width: 32, height: 24, spp: 2, ..scene.scene.settings };
    let params = ViewParams { settings, camera: scene.scene.camera, spp_per_frame: 1, denoise_below: None };
    let worker = Worker::spawn(BackendChoice::Cpu, None, Arc::new(OnceLock::new()));
    worker.send(Command::Scene(Arc::clone(&scene)));
    worker.send(Command::View(params));
    let frame = |event| match event {
        Event::Frame(frame) => Some(frame),
        _ => None,
    };
    let first = next_event(&worker, frame);
    // Held only until uploaded: the session may move its instances in place now.
    assert_eq!(Arc::strong_count(&scene), 1, "the render thread still holds the scene");

    // A new backend has no scene: the render thread says so instead of rendering nothing.
    worker.send(Command::Backend(BackendChoice::Cpu));
    next_event(&worker, |event| matches!(event, Event::NeedsScene).then_some(()));
    worker.send(Command::Scene(Arc::clone(&scene)));
    let again = next_event(&worker, |event| frame(event).filter(|f| f.started > first.started));
    assert_eq!((again.samples, &again.rgba), (1, &first.rgba), "the same first sample on the new backend");
}
