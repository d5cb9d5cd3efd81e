//! `renderer watch` driven as a user would: the real binary on the CPU at a tiny size,
//! a scene file edited underneath it, its stdout read line by line.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// Long enough for a loaded two-core machine; the test moves on as soon as a line comes.
const DEADLINE: Duration = Duration::from_secs(30);

/// A small scene; `sky` sets every pixel that misses (so the image visibly changes);
/// `radius` is on line 7, column 43.
fn scene_text(sky: f32, radius: f32) -> String {
    format!(
        "Scene(
    camera: (look_from: (0.0, 0.0, 2.0), look_at: (0.0, 0.0, 0.0), up: (0.0, 1.0, 0.0), vfov_deg: 40.0),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    sky: Constant(({sky:?}, {sky:?}, {sky:?})),
    materials: {{ \"grey\": Lambert(albedo: (0.5, 0.5, 0.5)) }},
    spheres: [
        (center: (0.0, 0.0, 0.0), radius: {radius:?}, material: \"grey\"),
    ],
)
"
    )
}

/// The child process, killed when the test ends however it ends.
struct Watch(Child);

/// Starts `renderer watch <args>` in `dir` with its stdout piped, and its stdout lines.
fn start_watch(dir: &Path, args: &[&str]) -> (Watch, Receiver<String>) {
    let child = Command::new(env!("CARGO_BIN_EXE_renderer"))
        .arg("watch")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start renderer watch");
    let mut watch = Watch(child);
    let lines = lines(&mut watch.0);
    (watch, lines)
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Stdout lines, read on a thread so the test can wait with a deadline.
fn lines(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// The next stdout line, or a panic naming what was expected.
fn next_line(lines: &Receiver<String>, expected: &str) -> String {
    lines.recv_timeout(DEADLINE).unwrap_or_else(|e| panic!("no line ({e}) while waiting for {expected}"))
}

/// Waits until the file's bytes differ from `old`.
fn changed_from(path: &Path, old: &[u8]) -> Vec<u8> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let now = std::fs::read(path).unwrap_or_default();
        if !now.is_empty() && now != old {
            return now;
        }
        assert!(Instant::now() < deadline, "{} was not rewritten", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Saves atomically, as editors do (an in-place write could be read half-written).
fn save_by_rename(path: &Path, text: &str) {
    let temp = path.with_extension("swp");
    std::fs::write(&temp, text).expect("write temp");
    std::fs::rename(&temp, path).expect("rename over");
}

#[test]
fn watch_renders_after_every_save_and_survives_a_broken_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("scene.ron");
    let out = dir.path().join("frame.png");
    std::fs::write(&scene, scene_text(0.2, 0.5)).expect("write scene");
    let (mut watch, lines) = start_watch(
        dir.path(),
        &[
            "scene.ron",
            "--out",
            "frame.png",
            "--backend",
            "cpu",
            "--width",
            "16",
            "--height",
            "8",
            "--spp",
            "1",
            "--frames",
            "2",
        ],
    );

    let first = next_line(&lines, "the first frame");
    assert!(first.starts_with("gen 1 scene: open "), "{first}");
    assert!(first.contains("first frame") && first.contains("Mrays/s"), "{first}");
    let image = std::fs::read(&out).expect("the first frame was written before its line");

    save_by_rename(&scene, &scene_text(0.9, 0.5));
    let line = next_line(&lines, "the reload line");
    assert!(line.starts_with("gen 2 scene: detect "), "{line}");
    for part in ["compile", "upload", "first frame", "(render", "total", "Mrays/s"] {
        assert!(line.contains(part), "`{part}` missing: {line}");
    }
    let image = changed_from(&out, &image);

    save_by_rename(&scene, &scene_text(0.9, -1.0));
    let line = next_line(&lines, "the error line");
    assert!(line.contains("scene.ron:7:43:"), "the error is located: {line}");
    assert!(line.ends_with("keeping generation 2"), "{line}");
    assert!(watch.0.try_wait().expect("status").is_none(), "a broken save does not stop watch");

    save_by_rename(&scene, &scene_text(0.4, 0.5));
    let line = next_line(&lines, "the recovery line");
    assert!(line.starts_with("gen 3 scene: detect "), "{line}");
    changed_from(&out, &image);

    // Two successful reloads were asked for: it exits by itself, successfully.
    let deadline = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(status) = watch.0.try_wait().expect("status") {
            break status;
        }
        assert!(Instant::now() < deadline, "watch did not exit after --frames 2");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
}

#[test]
fn watch_starts_on_a_broken_scene_and_renders_once_it_is_fixed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("scene.ron");
    std::fs::write(&scene, scene_text(0.2, -1.0)).expect("write scene");
    // Kept until the end: dropping it kills the process.
    let (_watch, lines) = start_watch(
        dir.path(),
        &[
            "scene.ron",
            "-o",
            "frame.png",
            "--backend",
            "cpu",
            "--width",
            "8",
            "--height",
            "4",
            "--frames",
            "1",
        ],
    );

    let line = next_line(&lines, "the error line");
    assert!(line.contains("scene.ron:7:43:") && line.ends_with("waiting for a fix"), "{line}");
    save_by_rename(&scene, &scene_text(0.2, 0.5));
    let line = next_line(&lines, "the first frame");
    assert!(line.starts_with("gen 1 scene: detect "), "{line}");
    let frame = image::open(dir.path().join("frame.png")).expect("the frame was written");
    assert_eq!((frame.width(), frame.height()), (8, 4));
}

#[test]
fn a_device_failure_keeps_the_last_image_and_the_next_save_renders_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("scene.ron");
    let out = dir.path().join("frame.png");
    std::fs::write(&scene, scene_text(0.2, 0.5)).expect("write scene");
    // The backend's second render call fails, as a GPU's launch would
    // (RENDERER_FAULTS, docs/faults.md).
    let child = Command::new(env!("CARGO_BIN_EXE_renderer"))
        .args(["watch", "scene.ron", "--out", "frame.png", "--backend", "cpu", "--spp", "1", "--frames", "1"])
        .env("RENDERER_FAULTS", "launch:2")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start renderer watch");
    let mut watch = Watch(child);
    let lines = lines(&mut watch.0);
    let first = next_line(&lines, "the first frame");
    assert!(first.starts_with("gen 1 scene"), "{first}");
    let image = std::fs::read(&out).expect("the first frame");

    save_by_rename(&scene, &scene_text(0.8, 0.5));
    let failed = next_line(&lines, "the failed frame");
    assert!(
        failed.starts_with("error device: CPU: launch #2 failed")
            && failed.ends_with("; keeping the last image"),
        "{failed}"
    );
    assert!(std::fs::read(&out).expect("the image") == image, "the last good image stays");

    save_by_rename(&scene, &scene_text(0.5, 0.5));
    let again = next_line(&lines, "the next frame");
    assert!(again.starts_with("gen ") && again.contains(" scene: "), "{again}");
    changed_from(&out, &image);
    let status = watch.0.wait().expect("wait");
    assert!(status.success(), "--frames 1 counts the successful reload: {status:?}");
}
