//! Sharded renders through the binary, as a render farm runs them: `render --shard
//! i/N` writes partial films, `merge` adds them; the result is the unsharded render.
//!
//! How close "the same" is (docs/shards.md, "How exact a merge is"): every sample's
//! radiance is the same bits in a shard as in the whole render (streams per pixel and
//! sample index), so only the summation differs. A pixel channel of n = spp samples
//! x_i >= 0 summed in f32 one after another is within (n-1)·u·S of the exact sum S
//! (u = 2^-24); a shard of k samples likewise within (k-1)·u·S_shard; the f64 sum of
//! the shards and the final divisions add at most one more u each. So
//!
//!   |merged - unsharded| <= (spp + k_max + 1) · 2^-24 · max(merged, unsharded)
//!
//! per channel, k_max the largest shard's sample count (the +1 covers the f64 steps
//! and the γ terms' denominators). The 8-bit PNG is then equal unless a channel lies
//! within that bound of a rounding edge of the tonemap, which these small test images
//! do not (checked bit for bit below).

use crate::{bin_support, cpu_support};

use std::path::Path;
use std::process::Output;

use bin_support::{assert_exit, renderer, text};
use cpu_support::{mixed_scene, mixed_scene_dir};
use renderer::shard::partial;
use renderer::shard::{Shard, blob_hash, sample_range};

const WIDTH: u32 = 32;
const HEIGHT: u32 = 24;
/// Uneven in 3 and 16 shards (13/13/14; 2 and 3 samples).
const SPP: u32 = 40;

/// A temp folder with the mixed test scene as `scene.ron` and `scene.blob`.
fn scene_dir() -> tempfile::TempDir {
    mixed_scene_dir(WIDTH, HEIGHT, SPP)
}

/// `render scene --backend cpu <extra> -o <output>`, which must succeed.
fn render(dir: &Path, scene: &str, extra: &[&str], output: &str) {
    let args = [&["render", scene, "--backend", "cpu"], extra, &["-o", output]].concat();
    assert_exit(&renderer(&args, dir), 0);
}

/// Renders every shard of `count` as `<prefix>-<i>.exr`; returns their names.
fn render_shards(dir: &Path, count: u32, extra: &[&str], prefix: &str) -> Vec<String> {
    (0..count)
        .map(|i| {
            let name = format!("{prefix}-{i}.exr");
            let shard = format!("{i}/{count}");
            render(dir, "scene.ron", &[extra, &["--shard", &shard]].concat(), &name);
            name
        })
        .collect()
}

fn merge(dir: &Path, parts: &[String], output: &str) -> Output {
    let mut args = vec!["merge".to_owned()];
    args.extend(parts.iter().cloned());
    args.extend(["-o".to_owned(), output.to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    renderer(&args, dir)
}

fn rgba8(path: &Path) -> Vec<u8> {
    image::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).into_rgba8().into_raw()
}

fn linear(path: &Path) -> Vec<f32> {
    image::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).into_rgba32f().into_raw()
}

/// The bound of the module comment, for `count` shards of `spp` samples.
fn bound(spp: u32, count: u32) -> f64 {
    let k_max = (0..count).map(|i| sample_range(spp, i, count).len()).max().unwrap_or(0) as f64;
    (f64::from(spp) + k_max + 1.0) * 2f64.powi(-24)
}

#[test]
fn merged_shards_give_the_unsharded_png_bit_for_bit_and_the_exr_within_the_bound() {
    let dir = scene_dir();
    let dir = dir.path();
    render(dir, "scene.ron", &[], "full.png");
    render(dir, "scene.ron", &[], "full.exr");
    let full_png = rgba8(&dir.join("full.png"));
    let full_exr = linear(&dir.join("full.exr"));
    assert!(full_png.chunks(4).any(|p| p[0] != full_png[0]), "the image has content");
    for count in [1, 3, 16] {
        let parts = render_shards(dir, count, &[], &format!("n{count}"));
        let out = merge(dir, &parts, &format!("merged-{count}.png"));
        assert_exit(&out, 0);
        assert!(text(&out.stdout).contains(&format!("{SPP} spp in {count} shards")), "{}", text(&out.stdout));
        assert!(
            rgba8(&dir.join(format!("merged-{count}.png"))) == full_png,
            "{count} shards: the merged PNG differs from the unsharded one"
        );
        assert_exit(&merge(dir, &parts, &format!("merged-{count}.exr")), 0);
        let merged = linear(&dir.join(format!("merged-{count}.exr")));
        assert_eq!(merged.len(), full_exr.len());
        let bound = bound(SPP, count);
        let mut exact = true;
        for (i, (&m, &u)) in merged.iter().zip(&full_exr).enumerate() {
            let (m, u) = (f64::from(m), f64::from(u));
            assert!(
                (m - u).abs() <= bound * m.max(u),
                "{count} shards, value {i}: merged {m} vs unsharded {u}"
            );
            exact &= m == u;
        }
        if count == 1 {
            assert!(exact, "one shard is the unsharded film itself: the same bits");
        }
    }
}

#[test]
fn a_partial_film_carries_its_metadata() {
    let dir = scene_dir();
    let dir = dir.path();
    render(dir, "scene.blob", &["--shard", "2/3", "--seed", "9", "--no-nee", "--max-depth", "7"], "p.exr");
    let info = partial::read_info(&dir.join("p.exr")).expect("a partial film");
    let blob = std::fs::read(dir.join("scene.blob")).expect("blob");
    assert_eq!(info.render.blob_hash, blob_hash(&blob));
    assert_eq!((info.render.width, info.render.height), (WIDTH, HEIGHT));
    assert_eq!((info.render.seed, info.render.max_depth, info.render.nee), (9, 7, false));
    assert_eq!((info.render.spp, info.render.shard_count, info.index), (SPP, 3, 2));
    assert_eq!(info.samples, Shard { index: 2, count: 3 }.samples(SPP));
    assert_eq!(info.samples, 26..40);
    assert!(info.backend.starts_with("CPU"), "{}", info.backend);
    // The sums are sums: a pixel of the partial film is about 14 samples' worth of the average.
    let film = partial::read(&dir.join("p.exr")).expect("pixels");
    assert_eq!(film.sums.len(), (WIDTH * HEIGHT) as usize);
}

#[test]
fn a_merged_png_takes_the_parts_exposure_and_view_unless_told_otherwise() {
    let dir = scene_dir();
    let dir = dir.path();
    let display = ["--exposure", "1.5", "--view", "agx"];
    render(dir, "scene.ron", &display, "full.png");
    let parts = render_shards(dir, 2, &display, "d");
    let info = partial::read_info(&dir.join(&parts[0])).expect("a partial film");
    assert_eq!((info.display.exposure, info.display.view), (1.5, scene_compiler::scene::ViewTransform::Agx));
    assert_exit(&merge(dir, &parts, "merged.png"), 0);
    assert!(rgba8(&dir.join("merged.png")) == rgba8(&dir.join("full.png")), "the parts' display");

    let parts: Vec<String> = [&parts[..], &["--exposure".into(), "0".into()]].concat();
    assert_exit(&merge(dir, &parts, "flag.png"), 0);
    render(dir, "scene.ron", &["--view", "agx"], "agx.png");
    assert!(rgba8(&dir.join("flag.png")) == rgba8(&dir.join("agx.png")), "--exposure overrides the parts'");
}

#[test]
fn parts_from_the_ron_and_from_its_blob_merge() {
    let dir = scene_dir();
    let dir = dir.path();
    render(dir, "scene.ron", &["--shard", "0/2"], "a.exr");
    render(dir, "scene.blob", &["--shard", "1/2"], "b.exr");
    render(dir, "scene.ron", &[], "full.png");
    let out = merge(dir, &["a.exr".into(), "b.exr".into()], "merged.png");
    assert_exit(&out, 0);
    assert!(rgba8(&dir.join("merged.png")) == rgba8(&dir.join("full.png")));
}

#[test]
fn more_shards_than_samples_leaves_empty_shards_that_still_merge() {
    let dir = scene_dir();
    let dir = dir.path();
    let parts = render_shards(dir, 5, &["--spp", "3"], "e");
    let empty = partial::read_info(&dir.join(&parts[0])).expect("an empty shard is a partial film");
    assert!(empty.samples.is_empty(), "shard 0/5 of 3 spp is {:?}", empty.samples);
    render(dir, "scene.ron", &["--spp", "3"], "full.png");
    assert_exit(&merge(dir, &parts, "merged.png"), 0);
    assert!(rgba8(&dir.join("merged.png")) == rgba8(&dir.join("full.png")));
}

/// Runs `merge` and checks it fails with `code`, every `needle` in its stderr.
fn merge_fails(dir: &Path, parts: &[&str], code: i32, needles: &[&str]) {
    let parts: Vec<String> = parts.iter().map(|p| (*p).to_owned()).collect();
    let out = merge(dir, &parts, "merged.png");
    assert_exit(&out, code);
    let stderr = text(&out.stderr);
    for needle in needles {
        assert!(stderr.contains(needle), "stderr lacks {needle:?}:\n{stderr}");
    }
    assert!(!dir.join("merged.png").exists(), "no image from a failed merge");
}

#[test]
fn every_merge_error_names_its_shards_or_files() {
    let dir = scene_dir();
    let dir = dir.path();
    let parts = render_shards(dir, 3, &[], "p");
    let [p0, p1, p2] = [&parts[0], &parts[1], &parts[2]].map(String::as_str);

    // Missing and duplicated shards.
    merge_fails(dir, &[p0, p2], 1, &["missing shard 1/3 (samples 13..26)"]);
    merge_fails(dir, &[p0, p1, p1, p2], 1, &["shard 1/3 is given 2 times: `p-1.exr`, `p-1.exr`"]);
    std::fs::copy(dir.join(p2), dir.join("copy.exr")).expect("copy");
    merge_fails(dir, &[p0, p1, p2, "copy.exr"], 1, &["shard 2/3 is given 2 times: `p-2.exr`, `copy.exr`"]);
    merge_fails(dir, &[p1], 1, &["missing shards 0/3 (samples 0..13), 2/3 (samples 26..40)"]);

    // Parts of another render: another scene, resolution, seed, spp, shard count, NEE.
    let mut other = mixed_scene();
    other.settings =
        scene_compiler::scene::RenderSettings { width: WIDTH, height: HEIGHT, spp: SPP, ..other.settings };
    other.spheres[1].radius = 0.9;
    std::fs::write(dir.join("other.ron"), scene_compiler::scene::to_ron(&other)).expect("write");
    let args = ["render", "other.ron", "--backend", "cpu", "--shard", "1/3", "-o", "scene2.exr"];
    assert_exit(&renderer(&args, dir), 0);
    merge_fails(
        dir,
        &[p0, "scene2.exr", p2],
        1,
        &["`scene2.exr` is from another render than `p-0.exr`", "scene blob hash blake3:"],
    );
    for (flags, name, needle) in [
        (&["--width", "16", "--height", "12"][..], "res.exr", "resolution 32x24 ≠ 16x12"),
        (&["--seed", "5"][..], "seed.exr", "seed 7 ≠ 5"),
        (&["--spp", "41"][..], "spp.exr", "total spp 40 ≠ 41"),
        (&["--no-nee"][..], "nee.exr", "next-event estimation on ≠ off"),
        (&["--sampler", "sobol"][..], "sampler.exr", "sampler Independent ≠ Sobol"),
    ] {
        render(dir, "scene.ron", &[flags, &["--shard", "1/3"]].concat(), name);
        merge_fails(dir, &[p0, name, p2], 1, &[&format!("`{name}` is from another render"), needle]);
    }
    render(dir, "scene.ron", &["--shard", "1/4"], "count.exr");
    merge_fails(dir, &[p0, "count.exr", p2], 1, &["shard count 3 ≠ 4"]);

    // Files that are no partial films, and files that cannot be read.
    render(dir, "scene.ron", &[], "plain.exr");
    merge_fails(dir, &[p0, p1, "plain.exr"], 1, &["`plain.exr` is not a partial film", "rtscene.format"]);
    std::fs::write(dir.join("junk.exr"), "not an image").expect("write");
    merge_fails(dir, &[p0, p1, "junk.exr"], 1, &["`junk.exr` is not a partial film: not an OpenEXR file"]);
    merge_fails(dir, &[p0, p1, "absent.exr"], 2, &["cannot read `absent.exr`"]);
    std::fs::create_dir(dir.join("folder.exr")).expect("mkdir");
    merge_fails(dir, &[p0, p1, "folder.exr"], 2, &["cannot read `folder.exr`"]);

    // The output is checked before anything is read.
    let out = merge(dir, &parts, "merged.jpg");
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("merged.jpg"), "{}", text(&out.stderr));
}

#[test]
fn bad_shard_flags_are_usage_errors() {
    let dir = scene_dir();
    let dir = dir.path();
    for (shard, output) in [("3/3", "a.exr"), ("1/0", "a.exr"), ("x", "a.exr"), ("0/2", "a.png")] {
        let out = renderer(&["render", "scene.ron", "--backend", "cpu", "--shard", shard, "-o", output], dir);
        assert_exit(&out, 2);
        assert!(!text(&out.stderr).is_empty());
    }
    let out = renderer(&["merge", "-o", "x.png"], dir);
    assert_exit(&out, 2);
    // The default output of a shard names it.
    assert_exit(&renderer(&["render", "scene.ron", "--backend", "cpu", "--shard", "1/2"], dir), 0);
    assert!(dir.join("scene.shard-1-of-2.exr").is_file());
}
