//! Long renders that survive: `render --checkpoint` saves the film between batches and
//! on SIGINT/SIGTERM (exit 4, no image), `--resume` renders only the samples the
//! checkpoint lacks, and the result is the uninterrupted render's PNG byte for byte
//! (CPU backend). The signals are real: either sent by this test to the running
//! process, or raised by the process itself at an exact sample through the fault
//! plan (`RENDERER_FAULTS=batch:2,signal:TERM@7`), so the interruption points are
//! exact and no test depends on timing.

use crate::{bin_support, cpu_support};

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use bin_support::{assert_exit, renderer, text};
use cpu_support::mixed_scene_dir;
use renderer::shard::partial;

const WIDTH: u32 = 24;
const HEIGHT: u32 = 16;
const SPP: u32 = 40;
/// Exit code of an interrupted render whose checkpoint was saved.
const INTERRUPTED: i32 = 4;

/// `renderer args...` in `dir` with the fault plan `faults` (none when empty).
fn run(dir: &Path, args: &[&str], faults: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_renderer"));
    command.args(args).current_dir(dir);
    if !faults.is_empty() {
        command.env("RENDERER_FAULTS", faults);
    }
    command.output().expect("run renderer")
}

/// `render scene.ron --backend cpu -o <output> <extra>`.
fn render(dir: &Path, output: &str, extra: &[&str], faults: &str) -> Output {
    run(dir, &[&["render", "scene.ron", "--backend", "cpu", "-o", output], extra].concat(), faults)
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The samples a checkpoint holds.
fn saved(path: &Path) -> std::ops::Range<u32> {
    let info = partial::read_info(path).unwrap_or_else(|e| panic!("{e}"));
    assert!(info.checkpoint, "{} is marked as a checkpoint", path.display());
    info.samples
}

#[test]
fn sigterm_and_sigint_at_several_points_then_resume_give_the_same_png() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    assert_exit(&render(dir, "whole.png", &[], ""), 0);
    let whole = bytes(&dir.join("whole.png"));
    // Batches of 2: the signal arrives once the film ends at or past the sample given.
    for (signal, at, stopped) in [("TERM", 1, 2), ("INT", 7, 8), ("TERM", 22, 22), ("INT", 37, 38)] {
        let ckpt = format!("{signal}{at}.ckpt.exr");
        let out_name = format!("{signal}{at}.png");
        let plan = format!("batch:2,signal:{signal}@{at}");
        let out = render(dir, &out_name, &["--checkpoint", &ckpt], &plan);
        assert_exit(&out, INTERRUPTED);
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&format!("SIG{signal} received: samples 0..{stopped} of 0..{SPP} saved")),
            "{stderr}"
        );
        assert!(stderr.contains(&format!("--resume {ckpt}")), "{stderr}");
        assert!(!dir.join(&out_name).exists(), "no image from an interrupted render");
        assert_eq!(saved(&dir.join(&ckpt)), 0..stopped);

        let out = render(dir, &out_name, &["--checkpoint", &ckpt, "--resume", &ckpt], "");
        assert_exit(&out, 0);
        assert!(text(&out.stderr).contains(&format!("samples 0..{stopped} of 0..{SPP} were done")));
        assert!(bytes(&dir.join(&out_name)) == whole, "SIG{signal} at {at}: the resumed PNG differs");
        assert!(!dir.join(&ckpt).exists(), "the checkpoint of a finished render is removed");
    }
}

#[test]
fn a_render_interrupted_twice_resumes_twice_to_the_same_png() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    assert_exit(&render(dir, "whole.png", &[], ""), 0);
    let ckpt = ["--checkpoint", "r.ckpt.exr"];
    assert_exit(&render(dir, "r.png", &ckpt, "batch:3,signal:TERM@5"), INTERRUPTED);
    assert_eq!(saved(&dir.join("r.ckpt.exr")), 0..6);
    let resume = [&ckpt[..], &["--resume", "r.ckpt.exr"]].concat();
    // The second run continues from sample 6 in batches of 3: 9, 12, ...
    assert_exit(&render(dir, "r.png", &resume, "batch:3,signal:INT@20"), INTERRUPTED);
    assert_eq!(saved(&dir.join("r.ckpt.exr")), 0..21);
    assert_exit(&render(dir, "r.png", &resume, ""), 0);
    assert!(bytes(&dir.join("r.png")) == bytes(&dir.join("whole.png")));
}

#[test]
fn a_signal_from_outside_saves_the_film_and_exits_4() {
    // Big enough that it is still rendering when the first checkpoint appears: the
    // test waits for that file (an event, not a time) and then sends the signal.
    let dir = mixed_scene_dir(48, 32, 1 << 20);
    let dir = dir.path();
    for signal in ["-TERM", "-INT"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_renderer"))
            .args(["render", "scene.ron", "--backend", "cpu", "-o", "big.png"])
            .args(["--checkpoint", "big.ckpt.exr", "--checkpoint-every", "0"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start renderer");
        while !dir.join("big.ckpt.exr").exists() {
            assert!(
                child.try_wait().expect("wait").is_none(),
                "the render ended before its first checkpoint"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let kill = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("run kill");
        assert!(kill.success());
        let out = child.wait_with_output().expect("wait");
        assert_exit(&out, INTERRUPTED);
        let done = saved(&dir.join("big.ckpt.exr"));
        assert!(done.start == 0 && done.end > 0 && done.end < 1 << 20, "{done:?}");
        assert!(!dir.join("big.png").exists());
        // It resumes where it stopped (and is stopped again one batch later).
        let at = format!("batch:1,signal:TERM@{}", done.end + 1);
        let out = render(dir, "big.png", &["--checkpoint", "big.ckpt.exr", "--resume", "big.ckpt.exr"], &at);
        assert_exit(&out, INTERRUPTED);
        assert_eq!(saved(&dir.join("big.ckpt.exr")), 0..done.end + 1);
        std::fs::remove_file(dir.join("big.ckpt.exr")).expect("remove");
    }
}

#[test]
fn a_signal_during_a_checkpoint_write_finishes_that_checkpoint() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    assert_exit(&render(dir, "whole.png", &[], ""), 0);
    let args = ["--checkpoint", "w.ckpt.exr", "--checkpoint-every", "0"];
    // Checkpoints after samples 2, 4, 6: SIGTERM arrives while the third is written.
    let out = render(dir, "w.png", &args, "batch:2,signal-in-checkpoint:TERM@3");
    assert_exit(&out, INTERRUPTED);
    assert_eq!(saved(&dir.join("w.ckpt.exr")), 0..6);
    let out = render(dir, "w.png", &[&args[..], &["--resume", "w.ckpt.exr"]].concat(), "");
    assert_exit(&out, 0);
    assert!(bytes(&dir.join("w.png")) == bytes(&dir.join("whole.png")));
}

#[test]
fn a_crash_during_a_checkpoint_write_keeps_the_previous_checkpoint() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    assert_exit(&render(dir, "whole.png", &[], ""), 0);
    let args = ["--checkpoint", "c.ckpt.exr", "--checkpoint-every", "0"];
    // The process aborts in the middle of the third checkpoint, as a SIGKILL or a
    // power cut would leave it: the second (samples 0..4) must be whole.
    let out = render(dir, "c.png", &args, "batch:2,abort-in-checkpoint:3");
    assert_eq!(out.status.signal(), Some(6), "aborted: {}", text(&out.stderr));
    assert_eq!(saved(&dir.join("c.ckpt.exr")), 0..4);
    let out = render(dir, "c.png", &[&args[..], &["--resume", "c.ckpt.exr"]].concat(), "");
    assert_exit(&out, 0);
    assert!(bytes(&dir.join("c.png")) == bytes(&dir.join("whole.png")));
}

#[test]
fn a_checkpoint_of_another_render_is_refused_with_the_reasons() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    let out = render(dir, "a.png", &["--checkpoint", "a.ckpt.exr", "--seed", "3"], "batch:2,signal:TERM@4");
    assert_exit(&out, INTERRUPTED);
    let resume = |extra: &[&str]| render(dir, "a.png", &[&["--resume", "a.ckpt.exr"], extra].concat(), "");
    for (extra, reason) in [
        (&["--seed", "4"][..], "seed 4 ≠ 3"),
        (&["--seed", "3", "--spp", "41"], "total spp 41 ≠ 40"),
        (&["--seed", "3", "--width", "25", "--height", "16"], "resolution 25x16 ≠ 24x16"),
        (&["--seed", "3", "--no-nee"], "next-event estimation off ≠ on"),
        (&["--seed", "3", "--max-depth", "3"], "max depth 3 ≠"),
    ] {
        let out = resume(extra);
        assert_exit(&out, 1);
        let stderr = text(&out.stderr);
        assert!(stderr.contains("`a.ckpt.exr` is not a checkpoint of this render"), "{stderr}");
        assert!(stderr.contains(reason), "{extra:?}: {stderr}");
        assert!(!dir.join("a.png").exists());
    }
    // Another scene: one sphere moved.
    let ron = std::fs::read_to_string(dir.join("scene.ron")).expect("read");
    let moved = ron.replacen("radius: 1.0", "radius: 1.1", 1);
    assert_ne!(moved, ron);
    std::fs::write(dir.join("scene.ron"), moved).expect("write");
    let out = resume(&["--seed", "3"]);
    assert_exit(&out, 1);
    assert!(text(&out.stderr).contains("scene blob hash blake3:"), "{}", text(&out.stderr));
    // A shard's checkpoint does not resume the whole render, nor another shard.
    let out =
        render(dir, "s1.exr", &["--shard", "1/3", "--checkpoint", "s.ckpt.exr"], "batch:2,signal:TERM@16");
    assert_exit(&out, INTERRUPTED);
    let out = render(dir, "s2.exr", &["--shard", "2/3", "--resume", "s.ckpt.exr"], "");
    assert_exit(&out, 1);
    assert!(
        text(&out.stderr).contains("it is shard 1/3 and this render is shard 2/3"),
        "{}",
        text(&out.stderr)
    );
    let out = render(dir, "all.png", &["--resume", "s.ckpt.exr"], "");
    assert_exit(&out, 1);
    assert!(text(&out.stderr).contains("shard count 1 ≠ 3"), "{}", text(&out.stderr));
}

#[test]
fn a_shard_checkpoints_and_resumes_to_the_same_part() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    // Shard 1/3 is samples 13..26.
    assert_exit(&render(dir, "whole-1.exr", &["--shard", "1/3"], ""), 0);
    let args = ["--shard", "1/3", "--checkpoint", "p.ckpt.exr"];
    assert_exit(&render(dir, "part-1.exr", &args, "batch:2,signal:TERM@17"), INTERRUPTED);
    assert_eq!(saved(&dir.join("p.ckpt.exr")), 13..17);
    // merge refuses a checkpoint: it is not a finished part.
    for i in [0, 2] {
        assert_exit(&render(dir, &format!("part-{i}.exr"), &["--shard", &format!("{i}/3")], ""), 0);
    }
    let out = renderer(&["merge", "part-0.exr", "p.ckpt.exr", "part-2.exr", "-o", "m.png"], dir);
    assert_exit(&out, 1);
    assert!(text(&out.stderr).contains("is a checkpoint of shard 1/3 (samples 13..17 of 13..26)"));
    assert_exit(&render(dir, "part-1.exr", &[&args[..], &["--resume", "p.ckpt.exr"]].concat(), ""), 0);
    let resumed = partial::read(&dir.join("part-1.exr")).expect("a part");
    let whole = partial::read(&dir.join("whole-1.exr")).expect("a part");
    assert_eq!(resumed.info, whole.info);
    let bits = |f: &partial::PartialFilm| f.sums.iter().map(|p| p.map(f32::to_bits)).collect::<Vec<_>>();
    assert!(bits(&resumed) == bits(&whole), "the resumed shard's sums are the uninterrupted shard's bits");
    let out = renderer(&["merge", "part-0.exr", "part-1.exr", "part-2.exr", "-o", "m.png"], dir);
    assert_exit(&out, 0);
}

#[test]
fn checkpoint_flags_are_checked_before_any_work() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    let out = render(dir, "x.png", &["--checkpoint", "x.ckpt.png"], "");
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("a checkpoint is a partial film of float sums; give an `.exr` file"));
    let out = render(dir, "x.exr", &["--checkpoint", "x.exr"], "");
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("is the output"));
    let out = render(dir, "x.png", &["--checkpoint-every", "5"], "");
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("--checkpoint"), "{}", text(&out.stderr));
    let out = render(dir, "x.png", &["--resume", "missing.ckpt.exr"], "");
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("cannot read `missing.ckpt.exr`"), "{}", text(&out.stderr));
    let out = render(dir, "x.png", &["--checkpoint", "x.ckpt.exr"], "lunch:1");
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("unknown fault `lunch`"), "{}", text(&out.stderr));
    // A side the film cannot hold: the message says what the limit is.
    let out = render(dir, "x.png", &["--width", "100000", "--height", "100000"], "");
    assert_exit(&out, 2);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("100000 pixels is more than a film holds: at most 16384 pixels per side"),
        "{stderr}"
    );
    assert!(!dir.join("x.png").exists());
}

#[test]
fn a_device_failure_is_exit_3_and_the_last_checkpoint_resumes() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    assert_exit(&render(dir, "whole.png", &[], ""), 0);
    for (plan, stage) in [("upload:1", "upload #1"), ("launch:3", "launch #3"), ("readback:1", "readback #1")]
    {
        let out = render(dir, "f.png", &[], &format!("batch:2,{plan}"));
        assert_exit(&out, 3);
        assert!(
            text(&out.stderr).contains(&format!("CPU: {stage} failed (injected")),
            "{}",
            text(&out.stderr)
        );
        assert!(!dir.join("f.png").exists());
    }
    let out = run(dir, &["bench", "scene.ron", "--backend", "cpu", "--frames", "2"], "launch:2");
    assert_exit(&out, 3);
    assert!(text(&out.stderr).contains("launch #2 failed"), "{}", text(&out.stderr));
    // Checkpoints after samples 2, 4 and 6; the fourth batch's launch fails: exit 3, and
    // the checkpoint of samples 0..6 finishes the render on another device.
    let args = ["--checkpoint", "d.ckpt.exr", "--checkpoint-every", "0"];
    let out = render(dir, "d.png", &args, "batch:2,launch:4");
    assert_exit(&out, 3);
    assert_eq!(saved(&dir.join("d.ckpt.exr")), 0..6);
    assert_exit(&render(dir, "d.png", &[&args[..], &["--resume", "d.ckpt.exr"]].concat(), ""), 0);
    assert!(bytes(&dir.join("d.png")) == bytes(&dir.join("whole.png")));
}

#[test]
fn a_checkpoint_that_cannot_be_written_is_a_warning_and_after_a_signal_exit_2() {
    let dir = mixed_scene_dir(WIDTH, HEIGHT, SPP);
    let dir = dir.path();
    assert_exit(&render(dir, "whole.png", &[], ""), 0);
    let args = ["--checkpoint", "k.ckpt.exr", "--checkpoint-every", "0"];
    // The second periodic save fails (a full disk): a warning, the first one stays, and
    // the signal at sample 6 saves the third.
    let out = render(dir, "k.png", &args, "batch:2,fail-checkpoint:2,signal:TERM@6");
    assert_exit(&out, INTERRUPTED);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: saving the checkpoint: cannot write `k.ckpt.exr`: no space left"),
        "{stderr}"
    );
    assert!(stderr.contains("rendering on (the previous checkpoint, if any, is kept)"), "{stderr}");
    assert_eq!(saved(&dir.join("k.ckpt.exr")), 0..6);
    // The save after the signal fails: exit 2, and the checkpoint of 0..6 is still whole.
    let resume = [&args[..], &["--resume", "k.ckpt.exr"]].concat();
    let out = render(dir, "k.png", &resume, "batch:2,fail-checkpoint:1,signal:TERM@7");
    assert_exit(&out, 2);
    assert!(
        text(&out.stderr).contains("SIGTERM received, but the checkpoint was not saved"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(saved(&dir.join("k.ckpt.exr")), 0..6);
    assert_exit(&render(dir, "k.png", &resume, ""), 0);
    assert!(bytes(&dir.join("k.png")) == bytes(&dir.join("whole.png")));
}
