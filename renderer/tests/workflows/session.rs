//! The live-editing `Session` on real files in temp folders: every way an editor
//! saves, broken saves, bursts of saves, the session's own saves (of the scene and of
//! instance files) and edits, and the kernels folder. Waits poll with generous
//! deadlines; nothing asserts on time.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use renderer::session::{Changed, Reload, Session, SessionOptions};
use scene_compiler::scene;

/// Long enough for a loaded two-core machine; tests end as soon as the condition holds.
const DEADLINE: Duration = Duration::from_secs(20);
/// How long "nothing happens" is watched for (several debounce periods) before
/// [`assert_no_late_reload`] proves it.
const QUIET: Duration = Duration::from_millis(600);
/// The radius of the barrier scene [`assert_no_late_reload`] saves: no test writes it.
const BARRIER_RADIUS: f32 = 0.375;

/// A small valid scene whose second sphere has `radius`; its line is [`RADIUS_LINE`].
fn scene_text(radius: f32) -> String {
    format!(
        "Scene(
    camera: (look_from: (0.0, 0.0, 2.0), look_at: (0.0, 0.0, 0.0), up: (0.0, 1.0, 0.0), vfov_deg: 40.0),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    materials: {{ \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)) }},
    spheres: [
        (center: (0.0, -100.5, 0.0), radius: 100.0, material: \"grey\"),
        (center: (0.0, 0.0, 0.0), radius: {radius:?}, material: \"grey\"),
    ],
)
"
    )
}

/// The 1-based line and column of the second sphere's radius value in [`scene_text`].
const RADIUS_LINE: usize = 7;
const RADIUS_COLUMN: usize = 43;

fn scene_dir(radius: f32) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, scene_text(radius)).expect("write scene");
    (dir, path)
}

fn open(path: &Path) -> Session {
    let session = Session::open(path, None, SessionOptions::default()).expect("open session");
    assert!(session.last_error().is_none(), "{:?}", session.last_error());
    session
}

/// The current scene's second sphere radius.
fn radius(session: &Session) -> Option<f32> {
    session.current().and_then(|c| c.scene.spheres.get(1)).map(|s| s.radius)
}

/// Collects reloads until `done` holds or the deadline passes (then panics with what came).
fn wait_for(session: &mut Session, what: &str, done: impl Fn(&Session, &[Reload]) -> bool) -> Vec<Reload> {
    let deadline = Instant::now() + DEADLINE;
    let mut reloads = Vec::new();
    while !done(session, &reloads) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}; reloads so far: {reloads:#?}");
        reloads.extend(session.wait(Duration::from_millis(200)));
    }
    reloads
}

/// Reloads within [`QUIET`].
fn quiet(session: &mut Session) -> Vec<Reload> {
    let deadline = Instant::now() + QUIET;
    let mut reloads = Vec::new();
    while Instant::now() < deadline {
        reloads.extend(session.wait(deadline.saturating_duration_since(Instant::now())));
    }
    reloads
}

/// Proves that no reload is still on its way: saves a barrier scene (radius
/// [`BARRIER_RADIUS`]) and checks that the next reload is the barrier's. The watcher
/// delivers events in order and the session handles them in order, so a late reload
/// of anything written before would come first: a window alone ([`quiet`]) cannot
/// tell "nothing" from "later than the window". The barrier is renamed over the
/// scene, which is read at once even under an endless debounce.
fn assert_no_late_reload(session: &mut Session, scene: &Path) {
    save_by_rename(scene, scene_text(BARRIER_RADIUS));
    let reloads = wait_for(session, "the barrier scene", |s, _| radius(s) == Some(BARRIER_RADIUS));
    assert_eq!(reloads.len(), 1, "a reload came before the barrier's: {reloads:#?}");
    assert!(session.last_error().is_none(), "{:?}", session.last_error());
}

/// Saves the way most editors do: a new file renamed over the old one.
fn save_by_rename(path: &Path, content: impl AsRef<[u8]>) {
    let temp = path.with_extension("swp");
    std::fs::write(&temp, content).expect("write temp");
    std::fs::rename(&temp, path).expect("rename over");
}

#[test]
fn an_in_place_write_reloads_the_scene() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    assert_eq!((session.generation(), radius(&session)), (1, Some(0.5)));

    std::fs::write(&path, scene_text(0.25)).expect("write");
    let reloads = wait_for(&mut session, "the new radius", |s, _| radius(s) == Some(0.25));
    let last = reloads.last().expect("a reload");
    assert_eq!((last.changed, last.outcome.clone(), last.content_changed), (Changed::Scene, Ok(()), true));
    assert_eq!(last.generation, session.generation());
    assert!(session.generation() >= 2);
}

#[test]
fn rename_over_saves_keep_being_seen() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    // A watch on the file itself would die after the first of these.
    for r in [0.3, 0.35, 0.4] {
        save_by_rename(&path, scene_text(r));
        wait_for(&mut session, "the renamed-over scene", |s, _| radius(s) == Some(r));
    }
    assert!(session.last_error().is_none());
}

/// A session whose debounce is far longer than any test waits: whatever it reports
/// within [`DEADLINE`] did not wait for the debounce.
fn open_with_endless_debounce(path: &Path) -> Session {
    let options = SessionOptions { debounce: Duration::from_secs(3600), ..SessionOptions::default() };
    let session = Session::open(path, None, options).expect("open session");
    assert!(session.last_error().is_none(), "{:?}", session.last_error());
    session
}

#[test]
fn a_rename_over_save_is_read_without_waiting_for_the_debounce() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open_with_endless_debounce(&path);
    save_by_rename(&path, scene_text(0.25));
    let reloads = wait_for(&mut session, "the renamed-over scene", |s, _| radius(s) == Some(0.25));
    assert_eq!(reloads.len(), 1, "{reloads:#?}");
    let reload = &reloads[0];
    assert_eq!(
        (reload.changed, reload.outcome.clone(), reload.content_changed),
        (Changed::Scene, Ok(()), true)
    );
    assert_eq!((reload.generation, session.generation()), (2, 2));

    // A renamed-over file is complete: its error is reported at once too.
    let (_dir, path) = scene_dir(0.5);
    let mut session = open_with_endless_debounce(&path);
    save_by_rename(&path, scene_text(-1.0));
    wait_for(&mut session, "the error", |s, _| s.last_error().is_some());
    assert_eq!(radius(&session), Some(0.5), "the last good scene stays");
}

#[test]
fn an_in_place_write_is_read_at_once_but_its_error_waits_for_the_debounce() {
    // A write that parses is taken at once.
    let (_dir, path) = scene_dir(0.5);
    let mut session = open_with_endless_debounce(&path);
    std::fs::write(&path, scene_text(0.25)).expect("write");
    wait_for(&mut session, "the written scene", |s, _| radius(s) == Some(0.25));

    // One that does not might be half-written: it is read again after the debounce (or
    // at its next event) before its error is reported, so within QUIET nothing happens.
    let (_dir, path) = scene_dir(0.5);
    let mut session = open_with_endless_debounce(&path);
    std::fs::write(&path, scene_text(-1.0)).expect("write");
    let reloads = quiet(&mut session);
    assert!(reloads.is_empty(), "held back: {reloads:#?}");
    assert!(session.last_error().is_none());
    assert_eq!((session.generation(), radius(&session)), (1, Some(0.5)));
    // No barrier here: under this debounce any later save is held too, for an hour.

    // With an ordinary debounce the error does come, after it.
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    std::fs::write(&path, scene_text(-1.0)).expect("write");
    let reloads = wait_for(&mut session, "the error", |s, _| s.last_error().is_some());
    let error = session.last_error().expect("error");
    assert_eq!((error.line, error.column), (Some(RADIUS_LINE), Some(RADIUS_COLUMN)), "{}", error.message);
    assert_eq!(reloads.len(), 1, "{reloads:#?}");
}

#[test]
fn a_deleted_scene_keeps_the_last_good_one_and_its_return_reloads() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    std::fs::remove_file(&path).expect("delete");
    let reloads = quiet(&mut session);
    assert!(reloads.is_empty(), "a delete alone reloads nothing: {reloads:#?}");
    assert_eq!(radius(&session), Some(0.5));
    assert!(session.last_error().is_none());
    assert_no_late_reload(&mut session, &path);

    std::fs::write(&path, scene_text(0.2)).expect("recreate");
    wait_for(&mut session, "the recreated scene", |s, _| radius(s) == Some(0.2));
    assert!(session.last_error().is_none());
}

#[test]
fn a_broken_save_keeps_the_last_good_scene_and_a_fix_recovers() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    let generation = session.generation();

    save_by_rename(&path, scene_text(-1.0));
    let reloads = wait_for(&mut session, "the error", |s, _| s.last_error().is_some());
    let error = session.last_error().expect("error").clone();
    assert_eq!((error.line, error.column), (Some(RADIUS_LINE), Some(RADIUS_COLUMN)), "{}", error.message);
    assert!(error.message.contains(&format!("scene.ron:{RADIUS_LINE}:{RADIUS_COLUMN}")), "{}", error.message);
    let failed = reloads.last().expect("a reload");
    assert_eq!(failed.outcome.as_ref().err(), Some(&error));
    assert_eq!(failed.generation, generation);
    assert_eq!((session.generation(), radius(&session)), (generation, Some(0.5)), "last good scene kept");

    save_by_rename(&path, scene_text(0.3));
    wait_for(&mut session, "the fix", |s, _| radius(s) == Some(0.3));
    assert!(session.last_error().is_none(), "the fix clears the error");
    assert!(session.generation() > generation);
}

/// How many reloads a burst of saves gives depends on scheduling (a save that comes
/// after a stall of more than the debounce starts a new burst): the watcher's unit
/// tests pin the coalescing on synthetic times. Here, what holds however the saves and
/// reads interleave.
#[test]
fn a_hundred_saves_in_a_row_end_on_the_last_and_never_go_back() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    let radii: Vec<f32> = (1..=100).map(|i| 0.1 + i as f32 / 1000.0).collect();
    let last = radii[radii.len() - 1];
    // The radius made current by each successful reload, in order.
    let mut loaded = Vec::new();
    let mut record = |session: &Session, reloads: Vec<Reload>| {
        for reload in reloads {
            assert_eq!(reload.changed, Changed::Scene, "{reload:#?}");
            if reload.outcome.is_ok() {
                assert!(reload.content_changed, "a reload of unchanged content: {reload:#?}");
                loaded.push((reload.generation, radius(session).expect("a current scene")));
            }
        }
    };
    for (i, r) in radii.iter().enumerate() {
        // Polled as a viewer's frame loop would, so reloads can happen mid-burst.
        let reloads = session.poll();
        record(&session, reloads);
        // Both ways editors save, mixed.
        if i % 2 == 0 {
            std::fs::write(&path, scene_text(*r)).expect("write");
        } else {
            save_by_rename(&path, scene_text(*r));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let deadline = Instant::now() + DEADLINE;
    while radius(&session) != Some(last) {
        assert!(Instant::now() < deadline, "timed out waiting for the last save; loaded so far: {loaded:?}");
        let reloads = session.wait(Duration::from_millis(200));
        record(&session, reloads);
    }
    let reloads = quiet(&mut session);
    record(&session, reloads);

    assert!(session.last_error().is_none(), "{:?}", session.last_error());
    assert_eq!(loaded.last(), Some(&(session.generation(), last)), "the last save is current: {loaded:?}");
    // Each successful reload is one generation on and a later save than the one before:
    // a read never sees anything but a whole save, and never an older one.
    let saves = loaded.iter().map(|&(_, r)| radii.iter().position(|&saved| saved == r));
    let order: Vec<usize> = saves.map(|i| i.expect("a reload loaded a radius no save wrote")).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "reloads went back to older saves: {loaded:?}");
    let generations: Vec<u64> = loaded.iter().map(|&(g, _)| g).collect();
    assert_eq!(generations, (2..2 + loaded.len() as u64).collect::<Vec<_>>(), "{loaded:?}");
    assert_no_late_reload(&mut session, &path);
}

#[test]
fn the_sessions_own_save_does_not_reload_again() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    let mut edited = session.current().expect("scene").scene.clone();
    edited.spheres[1].radius = 0.45;
    session.save(&edited).expect("save");
    assert_eq!((session.generation(), radius(&session)), (2, Some(0.45)));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), scene::to_ron(&edited));

    let echoes = quiet(&mut session);
    assert!(echoes.is_empty(), "the save's own event must not reload: {echoes:#?}");
    assert_eq!(session.generation(), 2);
    assert_no_late_reload(&mut session, &path);

    // The watch survives the save's rename.
    std::fs::write(&path, scene_text(0.15)).expect("write");
    wait_for(&mut session, "an edit after the save", |s, _| radius(s) == Some(0.15));

    let mut broken = edited.clone();
    broken.spheres[1].radius = -2.0;
    assert!(session.save(&broken).is_err(), "an invalid scene is not saved");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), scene_text(0.15));
}

#[test]
fn apply_makes_an_edit_current_without_writing_the_file() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    let mut edited = session.current().expect("scene").scene.clone();
    edited.spheres[1].radius = 0.125;
    let reload = session.apply(edited.clone()).expect("apply");
    assert_eq!((reload.changed, reload.outcome, reload.content_changed), (Changed::Scene, Ok(()), true));
    assert_eq!((reload.generation, session.generation()), (2, 2));
    assert_eq!(session.current().expect("scene").scene, edited);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), scene_text(0.5));

    let same = session.apply(edited.clone()).expect("apply again");
    assert!(!same.content_changed, "an unchanged edit needs no upload");

    edited.spheres[1].radius = -1.0;
    let error = session.apply(edited).expect_err("a negative radius");
    // An edit has no text to point into: the error names the value instead.
    assert!(
        error.message.contains("spheres[1].radius") && error.message.contains("positive"),
        "{}",
        error.message
    );
    assert_eq!(session.last_error(), Some(&error));
    assert_eq!(radius(&session), Some(0.125), "the last good scene stays");
}

#[test]
fn a_kernel_source_change_is_reported_as_kernels() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene_path = dir.path().join("scene.ron");
    std::fs::write(&scene_path, scene_text(0.5)).expect("write scene");
    let kernels = dir.path().join("kernels");
    std::fs::create_dir(&kernels).expect("kernels folder");
    std::fs::write(kernels.join("render.cu"), "// v1\n").expect("write kernel");
    let mut session = Session::open(&scene_path, Some(&kernels), SessionOptions::default()).expect("open");
    assert_eq!(session.kernels_dir(), Some(kernels.as_path()));

    std::fs::write(kernels.join("notes.txt"), "not a kernel").expect("write notes");
    assert!(quiet(&mut session).is_empty(), "only .cu and .cuh count");
    assert_no_late_reload(&mut session, &scene_path);
    let scene_radius = radius(&session);

    std::fs::write(kernels.join("path.cuh"), "// new header\n").expect("write header");
    let reloads = wait_for(&mut session, "a kernels reload", |_, r| !r.is_empty());
    assert_eq!(reloads.len(), 1, "{reloads:#?}");
    let reload = &reloads[0];
    assert_eq!(
        (reload.changed, reload.outcome.clone(), reload.content_changed),
        (Changed::Kernels, Ok(()), false)
    );
    assert_eq!(reload.generation, session.generation());
    assert_eq!(radius(&session), scene_radius, "the scene is untouched");
}

#[test]
fn a_blob_session_decodes_its_scene_and_reloads_the_blob() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = scene::parse(&scene_text(0.5), "scene.ron").expect("parse");
    let blob = |scene: &scene::Scene| {
        scene_compiler::compile_scene(scene, &scene_compiler::CompileOptions::default()).blob.to_vec()
    };
    let path = dir.path().join("scene.blob");
    std::fs::write(&path, blob(&source)).expect("write blob");
    let mut session = open(&path);
    let decoded = session.current().expect("scene").scene.clone();
    assert_eq!(decoded.spheres, source.spheres);
    assert_eq!(blob(&decoded), blob(&source), "the decoded scene compiles to the same blob");
    assert!(session.save(&decoded).is_err(), "a blob session cannot save RON over the blob");

    let mut moved = source.clone();
    moved.spheres[1].radius = 0.2;
    save_by_rename(&path, blob(&moved));
    wait_for(&mut session, "the new blob", |s, _| radius(s) == Some(0.2));
}

/// A scene with one terrain read from `maps/height.png` (a folder of its own, so the
/// watch on an input's folder is tested, not the scene folder's).
fn terrain_scene_dir(first: u8) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("maps")).expect("maps folder");
    let image = dir.path().join("maps/height.png");
    std::fs::write(&image, heightmap_png(first)).expect("write heightmap");
    let text = "Scene(
    camera: (look_from: (0.0, 5.0, 8.0), look_at: (1.0, 0.0, 1.0), vfov_deg: 40.0),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    materials: { \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)) },
    terrains: [Heightmap(image: \"maps/height.png\", material: \"grey\")],
)
";
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, text).expect("write scene");
    (dir, path, image)
}

/// A 2 x 2 heightmap PNG whose first pixel is `first`.
fn heightmap_png(first: u8) -> Vec<u8> {
    let image = image::GrayImage::from_raw(2, 2, vec![first, 1, 1, 1]).expect("2 x 2 pixels");
    let mut bytes = Vec::new();
    image.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png).expect("encode PNG");
    bytes
}

/// The current scene's first heightmap pixel.
fn first_height(session: &Session) -> Option<u16> {
    session.current().map(|c| c.scene.terrains[0].heights.value(0, 0))
}

#[test]
fn saving_a_terrain_image_reloads_the_scene_by_rename_or_in_place() {
    let (_dir, path, image) = terrain_scene_dir(3);
    let mut session = open(&path);
    assert_eq!(first_height(&session), Some(3));

    save_by_rename(&image, heightmap_png(7));
    wait_for(&mut session, "the renamed-over image", |s, _| first_height(s) == Some(7));

    std::fs::write(&image, heightmap_png(9)).expect("write in place");
    wait_for(&mut session, "the image written in place", |s, _| first_height(s) == Some(9));

    // The same pixels written again: a compile, but nothing new, so no reload.
    std::fs::write(&image, heightmap_png(9)).expect("write in place");
    assert_eq!(quiet(&mut session), []);
    assert_no_late_reload(&mut session, &path);
}

#[test]
fn a_broken_terrain_image_is_reported_at_its_line_and_a_fix_recovers() {
    let (_dir, path, image) = terrain_scene_dir(3);
    let mut session = open(&path);
    save_by_rename(&image, b"not a png at all");
    let reloads = wait_for(&mut session, "the broken image's error", |s, _| s.last_error().is_some());
    assert!(reloads.iter().any(|r| r.outcome.is_err()), "{reloads:#?}");
    let error = session.last_error().expect("an error");
    assert_eq!(error.line, Some(5), "{error}");
    assert!(error.message.contains("maps/height.png"), "{error}");
    assert_eq!(first_height(&session), Some(3), "the last good scene stays");

    save_by_rename(&image, heightmap_png(4));
    wait_for(&mut session, "the fixed image", |s, _| first_height(s) == Some(4) && s.last_error().is_none());
}

/// A scene with one mesh read from `models/ico.obj` (a folder of its own), an
/// icosphere of `subdivisions`.
fn mesh_scene_dir(subdivisions: u32) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("models")).expect("models folder");
    let model = dir.path().join("models/ico.obj");
    std::fs::write(&model, ico_obj(subdivisions)).expect("write model");
    let text = "Scene(
    camera: (look_from: (0.0, 1.0, 5.0), look_at: (0.0, 0.0, 0.0), vfov_deg: 40.0),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    materials: { \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)) },
    meshes: [(file: \"models/ico.obj\", material: \"grey\")],
)
";
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, text).expect("write scene");
    (dir, path, model)
}

/// An icosphere of `subdivisions` as an OBJ file's bytes.
fn ico_obj(subdivisions: u32) -> Vec<u8> {
    use scene_compiler::procedural::{Format, icosphere, write};
    let file = tempfile::NamedTempFile::new().expect("temp file");
    let path = file.path().with_extension("obj");
    write(&icosphere(subdivisions, 1.0), Format::Obj, &path).expect("write OBJ");
    let bytes = std::fs::read(&path).expect("read OBJ");
    std::fs::remove_file(&path).expect("remove OBJ");
    bytes
}

/// The current scene's mesh's triangle count.
fn mesh_triangles(session: &Session) -> Option<usize> {
    session.current().map(|c| c.scene.meshes[0].data.triangles.len())
}

#[test]
fn saving_a_model_file_reloads_the_scene_by_rename_or_in_place() {
    let (_dir, path, model) = mesh_scene_dir(0);
    let mut session = open(&path);
    assert_eq!(mesh_triangles(&session), Some(20));

    save_by_rename(&model, ico_obj(1));
    wait_for(&mut session, "the renamed-over model", |s, _| mesh_triangles(s) == Some(80));

    std::fs::write(&model, ico_obj(2)).expect("write in place");
    wait_for(&mut session, "the model written in place", |s, _| mesh_triangles(s) == Some(320));

    // A broken model: its error at the mesh's line, the last good scene kept.
    save_by_rename(&model, b"f 1 2 3\n");
    wait_for(&mut session, "the broken model's error", |s, _| s.last_error().is_some());
    let error = session.last_error().expect("an error");
    assert_eq!(error.line, Some(5), "{error}");
    assert!(error.message.contains("models/ico.obj"), "{error}");
    assert_eq!(mesh_triangles(&session), Some(320), "the last good scene stays");
}

/// A scene with the icosphere of `models/ico.obj` placed by the instance file
/// `forest/trees.ply` (folders of their own): three instances along x at `heights`.
fn instance_file_scene_dir(heights: [f32; 3]) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    for folder in ["models", "forest"] {
        std::fs::create_dir(dir.path().join(folder)).expect("folder");
    }
    std::fs::write(dir.path().join("models/ico.obj"), ico_obj(0)).expect("write model");
    let trees = dir.path().join("forest/trees.ply");
    std::fs::write(&trees, trees_ply(heights)).expect("write instance file");
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, input_scene_text(TREES, 40.0)).expect("write scene");
    (dir, path, trees)
}

/// The instance-file scene's mesh: the line `input_scene_text` places.
const TREES: &str =
    r#"meshes: [(file: "models/ico.obj", material: "grey", instance_file: "forest/trees.ply")],"#;

/// A small scene whose primitives come from a file, `source` (its list's line, line 5),
/// seen with `vfov_deg`.
fn input_scene_text(source: &str, vfov_deg: f32) -> String {
    format!(
        "Scene(
    camera: (look_from: (0.0, 1.0, 9.0), look_at: (0.0, 0.0, 0.0), vfov_deg: {vfov_deg:?}),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    materials: {{ \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)) }},
    {source}
)
"
    )
}

/// Three instances at x = -3, 0, 3 and `heights`, as an instance file's bytes (binary
/// little endian, as `Session::save` writes it back).
fn trees_ply(heights: [f32; 3]) -> Vec<u8> {
    use scene_compiler::scene::{PlacedInstance, PlyEncoding, Transform, write_instance_file};
    let at = |k: usize| -> PlacedInstance {
        let translate = glam::Vec3::new(3.0 * k as f32 - 3.0, heights[k], 0.0);
        Transform { translate, ..Transform::default() }.into()
    };
    write_instance_file(&[at(0), at(1), at(2)], PlyEncoding::BinaryLittleEndian)
}

/// The heights of the current scene's instance file's instances.
fn tree_heights(session: &Session) -> Option<Vec<f32>> {
    session
        .current()
        .map(|c| c.scene.meshes[0].placements.instances.iter().map(|p| p.transform.translate.y).collect())
}

/// The instance file the session's save writes comes back from the watcher as a change
/// of an input of the scene: that echo, like the scene file's, compiles nothing (at 10^6
/// instances a second's compile that finds the scene unchanged), so an edit applied
/// since the save stays current; another program's write of the file still reloads,
/// also when it writes back what the session wrote after the scene was read from the
/// file again.
#[test]
fn the_sessions_own_instance_file_write_does_not_reload_but_another_programs_does() {
    let (_dir, path, trees) = instance_file_scene_dir([0.0; 3]);
    let mut session = open(&path);
    assert_eq!(tree_heights(&session), Some(vec![0.0; 3]));

    // The editor's save of a moved instance of the file: the file, then the scene.
    let mut moved = session.current().expect("scene").scene.clone();
    std::sync::Arc::make_mut(&mut moved.meshes[0].placements).instances[1].transform.translate.y = 1.5;
    session.save(&moved).expect("save");
    assert_eq!((session.generation(), tree_heights(&session)), (2, Some(vec![0.0, 1.5, 0.0])));
    assert_eq!(std::fs::read(&trees).expect("read"), trees_ply([0.0, 1.5, 0.0]), "the file is written");
    // An edit the session makes before it hears of its writes: their echo would read
    // the files again over it.
    let mut edited = moved.clone();
    edited.camera.vfov_deg = 30.0;
    session.apply(edited.clone()).expect("apply");
    let echoes = quiet(&mut session);
    assert!(echoes.is_empty(), "the save's own writes must not reload: {echoes:#?}");
    assert_eq!(session.generation(), 3);
    assert_eq!(session.current().expect("scene").scene, edited, "the edit since the save stays");
    // Nothing is on its way: the next reload is this camera save's.
    save_by_rename(&path, input_scene_text(TREES, 20.0));
    let reloads = wait_for(&mut session, "the camera save", |s, _| {
        s.current().is_some_and(|c| c.scene.camera.vfov_deg == 20.0)
    });
    assert_eq!(reloads.len(), 1, "a reload came before the camera save's: {reloads:#?}");

    // Another program's writes of the file reload, in place or by rename, and so does
    // one that puts back what the session wrote, since the scene was read from the file.
    save_by_rename(&trees, trees_ply([0.0, 0.0, 2.5]));
    wait_for(&mut session, "the renamed-over instance file", |s, _| {
        tree_heights(s) == Some(vec![0.0, 0.0, 2.5])
    });
    std::fs::write(&trees, trees_ply([0.0, 1.5, 0.0])).expect("write in place");
    wait_for(&mut session, "the instance file as the session wrote it", |s, _| {
        tree_heights(s) == Some(vec![0.0, 1.5, 0.0])
    });
    assert!(session.last_error().is_none(), "{:?}", session.last_error());
}

/// A scene whose sphere's material has an image texture, `textures/t.png` (a folder of
/// its own), `width` x 1 grey pixels.
fn texture_scene_dir(width: u32) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("textures")).expect("textures folder");
    let image = dir.path().join("textures/t.png");
    std::fs::write(&image, grey_png(width)).expect("write texture");
    let text = "Scene(
    camera: (look_from: (0.0, 1.0, 5.0), look_at: (0.0, 0.0, 0.0), vfov_deg: 40.0),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    materials: { \"wood\": Lambert(albedo: (1, 1, 1),
                                    texture: Image(file: \"textures/t.png\")) },
    spheres: [(center: (0, 0, 0), radius: 1, material: \"wood\")],
)
";
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, text).expect("write scene");
    (dir, path, image)
}

/// A `width` x 1 grey PNG's bytes.
fn grey_png(width: u32) -> Vec<u8> {
    let image = image::GrayImage::from_raw(width, 1, vec![128; width as usize]).expect("width x 1");
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).expect("encode PNG");
    bytes.into_inner()
}

/// The current scene's texture's width.
fn texture_width(session: &Session) -> Option<u32> {
    session.current().and_then(|c| match &c.scene.materials[0].texture {
        Some(scene_compiler::scene::Texture::Image { image, .. }) => Some(image.width),
        _ => None,
    })
}

#[test]
fn saving_a_texture_image_reloads_the_scene_by_rename_or_in_place() {
    let (_dir, path, image) = texture_scene_dir(2);
    let mut session = open(&path);
    assert_eq!(texture_width(&session), Some(2));

    save_by_rename(&image, grey_png(3));
    wait_for(&mut session, "the renamed-over texture", |s, _| texture_width(s) == Some(3));

    std::fs::write(&image, grey_png(5)).expect("write in place");
    wait_for(&mut session, "the texture written in place", |s, _| texture_width(s) == Some(5));

    // A broken image: its error at the texture's file, the last good scene kept.
    save_by_rename(&image, b"not a png");
    wait_for(&mut session, "the broken texture's error", |s, _| s.last_error().is_some());
    let error = session.last_error().expect("an error");
    assert_eq!(error.line, Some(5), "{error}");
    assert!(error.message.contains("textures/t.png"), "{error}");
    assert_eq!(texture_width(&session), Some(5), "the last good scene stays");
}

/// A scene whose spheres come from `points/s.ply` (a folder of its own): `n` spheres in
/// a row, binary little endian. Its `sphere_files` entry is on line 5.
fn sphere_file_scene_dir(n: usize) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("points")).expect("points folder");
    let points = dir.path().join("points/s.ply");
    std::fs::write(&points, sphere_ply(n)).expect("write sphere file");
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, input_scene_text(POINTS, 40.0)).expect("write scene");
    (dir, path, points)
}

/// The sphere-file scene's list: the line `input_scene_text` places.
const POINTS: &str = r#"sphere_files: [(file: "points/s.ply", materials: ["grey"])],"#;

/// `n` spheres in a row as a sphere file's bytes.
fn sphere_ply(n: usize) -> Vec<u8> {
    use scene_compiler::scene::{PlyEncoding, Sphere, write_sphere_file};
    let spheres: Vec<Sphere> = (0..n)
        .map(|i| Sphere { center: glam::Vec3::new(i as f32, 0.0, 0.0), radius: 0.4, material: 0 })
        .collect();
    write_sphere_file(&spheres, PlyEncoding::BinaryLittleEndian, false)
}

/// How many spheres the current scene's sphere file holds.
fn file_spheres(session: &Session) -> Option<usize> {
    session.current().map(|c| c.scene.sphere_files[0].data.spheres.len())
}

#[test]
fn saving_a_sphere_file_reloads_the_scene_by_rename_or_in_place() {
    let (_dir, path, points) = sphere_file_scene_dir(3);
    let mut session = open(&path);
    assert_eq!(file_spheres(&session), Some(3));
    assert!(session.current().is_some_and(|c| c.scene.spheres.is_empty()));

    // The scene file an hour old: a reload the sphere file caused is timed from its save.
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(an_hour_ago))
        .expect("set mtime");
    save_by_rename(&points, sphere_ply(5));
    let reloads = wait_for(&mut session, "the renamed-over sphere file", |s, _| file_spheres(s) == Some(5));
    let detect = reloads.last().expect("a reload").detect;
    assert!(detect < Duration::from_secs(60), "detect {detect:?} counts from the scene file's save");

    std::fs::write(&points, sphere_ply(7)).expect("write in place");
    wait_for(&mut session, "the sphere file written in place", |s, _| file_spheres(s) == Some(7));

    // A camera save reuses the tree built over the file's spheres.
    save_by_rename(&path, input_scene_text(POINTS, 30.0));
    wait_for(&mut session, "the camera edit", |s, _| {
        s.current().is_some_and(|c| c.scene.camera.vfov_deg == 30.0)
    });
    assert!(session.current().is_some_and(|c| c.times.bvh_reused), "a camera edit reuses the BVH");

    // A broken sphere file: its error at the entry's line, the last good scene kept.
    save_by_rename(&points, b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n0\n");
    wait_for(&mut session, "the broken sphere file's error", |s, _| s.last_error().is_some());
    let error = session.last_error().expect("an error");
    assert_eq!(error.line, Some(5), "{error}");
    assert!(error.message.contains("points/s.ply") && error.message.contains("`y`"), "{error}");
    assert_eq!(file_spheres(&session), Some(7), "the last good scene stays");

    save_by_rename(&points, sphere_ply(2));
    wait_for(&mut session, "the fixed sphere file", |s, _| {
        file_spheres(s) == Some(2) && s.last_error().is_none()
    });
}

#[test]
fn a_camera_edit_reuses_the_bvh_and_a_resized_sphere_refits_it() {
    let (_dir, path) = scene_dir(0.5);
    let mut session = open(&path);
    let origin = |s: &Session| s.current().map(|c| (c.times.bvh_reused, c.times.bvh_refitted));
    assert_eq!(origin(&session), Some((false, false)), "the first load builds");
    save_by_rename(&path, scene_text(0.5).replace("vfov_deg: 40.0", "vfov_deg: 30.0"));
    wait_for(&mut session, "the camera edit", |s, _| {
        s.current().is_some_and(|c| c.scene.camera.vfov_deg == 30.0)
    });
    assert_eq!(origin(&session), Some((true, false)));
    save_by_rename(&path, scene_text(0.75).replace("vfov_deg: 40.0", "vfov_deg: 30.0"));
    wait_for(&mut session, "the radius edit", |s, _| radius(s) == Some(0.75));
    assert_eq!(origin(&session), Some((false, true)));
}

/// A scene under an environment sky read from `skies/sky.exr` (a folder of its own),
/// a 2 x 1 image whose first texel is `first` grey.
fn environment_scene_dir(first: f32) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("skies")).expect("skies folder");
    let image = dir.path().join("skies/sky.exr");
    std::fs::write(&image, sky_exr(first)).expect("write sky");
    let text = "Scene(
    camera: (look_from: (0.0, 1.0, 5.0), look_at: (0.0, 0.0, 0.0), vfov_deg: 40.0),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    materials: { \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)) },
    spheres: [(center: (0.0, 0.0, 0.0), radius: 1.0, material: \"grey\")],
    sky: Environment(image: \"skies/sky.exr\"),
)
";
    let path = dir.path().join("scene.ron");
    std::fs::write(&path, text).expect("write scene");
    (dir, path, image)
}

/// A 2 x 1 float EXR whose first texel is `first` in every channel, the second 1.
fn sky_exr(first: f32) -> Vec<u8> {
    let image = image::Rgb32FImage::from_raw(2, 1, vec![first, first, first, 1.0, 1.0, 1.0]).expect("2 x 1");
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgb32F(image)
        .write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::OpenExr)
        .expect("encode EXR");
    bytes
}

/// The current scene's first environment texel (red).
fn first_texel(session: &Session) -> Option<f32> {
    session.current().and_then(|c| match &c.scene.sky {
        scene::Sky::Environment(env) => Some(env.data.texels[0][0]),
        _ => None,
    })
}

#[test]
fn saving_the_environment_image_reloads_the_scene_and_a_broken_one_is_reported() {
    let (_dir, path, image) = environment_scene_dir(2.0);
    let mut session = open(&path);
    assert_eq!(first_texel(&session), Some(2.0));

    save_by_rename(&image, sky_exr(5.0));
    wait_for(&mut session, "the renamed-over sky", |s, _| first_texel(s) == Some(5.0));
    std::fs::write(&image, sky_exr(7.0)).expect("write in place");
    wait_for(&mut session, "the sky written in place", |s, _| first_texel(s) == Some(7.0));

    save_by_rename(&image, b"not an image");
    wait_for(&mut session, "the broken sky's error", |s, _| s.last_error().is_some());
    let error = session.last_error().expect("an error");
    assert_eq!(error.line, Some(6), "{error}");
    assert!(error.message.contains("skies/sky.exr"), "{error}");
    assert_eq!(first_texel(&session), Some(7.0), "the last good scene stays");

    save_by_rename(&image, sky_exr(3.0));
    wait_for(&mut session, "the fixed sky", |s, _| first_texel(s) == Some(3.0) && s.last_error().is_none());
}

/// Issue 35's save-to-frame: a save of the instance file that moves one instance is a
/// move in place. The model (a PLY, unchanged, written long enough ago to be trusted by
/// its size and time) comes from the current scene instead of being read again, the
/// blob is rewritten where the instance and the boxes above it lie (`edit` names those
/// bytes), and it renders what a fresh compile of the same files renders.
#[test]
fn moving_an_instance_in_its_file_moves_it_in_place_and_reads_the_model_once() {
    use scene_compiler::procedural::{Format, icosphere, write};
    let dir = tempfile::tempdir().expect("temp dir");
    for folder in ["models", "forest"] {
        std::fs::create_dir(dir.path().join(folder)).expect("folder");
    }
    let model = dir.path().join("models/ico.ply");
    write(&icosphere(2, 1.0), Format::PlyLittleEndian, &model).expect("model");
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let file = std::fs::File::options().write(true).open(&model).expect("open model");
    file.set_modified(an_hour_ago).expect("set the model's time");
    let trees = dir.path().join("forest/trees.ply");
    // The third instance is the tallest: moving the second up to half its height keeps
    // the root's box.
    std::fs::write(&trees, trees_ply([0.0, 0.0, 2.0])).expect("write instance file");
    let path = dir.path().join("scene.ron");
    let mesh = r#"meshes: [(file: "models/ico.ply", material: "grey", instance_file: "forest/trees.ply")],"#;
    std::fs::write(&path, input_scene_text(mesh, 40.0)).expect("write scene");
    let mut session = open(&path);
    let read_once = std::sync::Arc::clone(&session.current().expect("scene").scene.meshes[0].data);
    // A device holding the scene as it was, to be brought up to date by the edit alone.
    let mut device = crate::cpu_support::cpu_backend(&session.current().expect("scene").blob);

    save_by_rename(&trees, trees_ply([0.0, 1.0, 2.0]));
    wait_for(&mut session, "the moved instance", |s, _| tree_heights(s) == Some(vec![0.0, 1.0, 2.0]));
    let current = session.current().expect("scene");
    assert!(current.times.moved_in_place, "{:?}", current.times);
    assert!(std::sync::Arc::ptr_eq(&current.scene.meshes[0].data, &read_once), "the model is not read again");
    let edit = current.edit.as_ref().expect("the bytes the move rewrote");
    let rewritten: usize = edit.ranges.iter().map(|r| r.len()).sum();
    assert!(
        rewritten > 0 && rewritten < current.blob.len() / 4,
        "{rewritten} of {} bytes",
        current.blob.len()
    );

    use renderer::backend::Backend;
    device.update(&current.view(), edit).expect("update");
    let fresh = crate::cpu_support::compile(&scene_compiler::scene::load_file(&path).expect("the files"));
    let job = crate::cpu_support::job(&fresh, 16, 8, 2, 4, 1);
    device.render(&job).expect("render");
    let (fresh_image, _) = crate::cpu_support::render(&fresh, &job);
    assert_eq!(device.read_linear().expect("read"), fresh_image, "the update renders as a fresh compile");
}
