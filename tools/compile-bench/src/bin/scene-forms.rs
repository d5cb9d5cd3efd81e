//! The large-scene forms side by side (docs/architecture.md, "Big scenes: sphere
//! files, not RON"): reading a scene whose spheres are written in RON and one whose
//! spheres are in a PLY sphere file; then
//! the whole compile of each, and a save that changes only the camera (the parse and a
//! compile that reuses the previous BVH, as `renderer watch` does). The forms alternate within every round, so a machine
//! whose speed drifts slows them alike; it prints each stage's best and median.
//!
//! `cargo run --release -p compile-bench --bin scene-forms -- grid.ron grid-ply.ron [rounds]`
//! with the two forms `scene-gen grid` writes (with and without `--ply`).

use std::path::Path;
use std::time::{Duration, Instant};

use scene_compiler::scene::{self, Scene};
use scene_compiler::{CompileOptions, compile_scene, compile_scene_reusing};

/// Reads a scene file to text and parses it (timed together: the file read is part of
/// what each form costs).
fn read(path: &Path) -> (Scene, Duration) {
    let start = Instant::now();
    let bytes = scene_compiler::files::read(path).expect("read the scene");
    let text = scene_compiler::files::text(&bytes).expect("UTF-8");
    let scene = scene::parse(text, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
    (scene, start.elapsed())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [ron, ply, rest @ ..] = &args[..] else {
        eprintln!("usage: scene-forms <spheres in RON.ron> <sphere file form.ron> [rounds (default 7)]");
        std::process::exit(2);
    };
    let rounds: usize = rest.first().map_or(7, |r| r.parse().expect("rounds is a number"));
    let (ron, ply) = (Path::new(ron), Path::new(ply));
    let forms = [("spheres in RON", ron), ("PLY sphere file", ply)];
    let mut times = vec![(Vec::new(), Vec::new(), Vec::new()); forms.len()];
    let mut blobs = Vec::new();
    for round in 0..rounds {
        for (k, &(_, path)) in forms.iter().enumerate() {
            let start = Instant::now();
            let (scene, parsed) = read(path);
            let options = CompileOptions::default();
            let compiled = compile_scene(&scene, &options);
            let total = start.elapsed();
            // The camera save: the file read and parsed again, the tree reused.
            let start = Instant::now();
            let (mut saved, _) = read(path);
            saved.camera.vfov_deg += 1.0;
            let previous = compiled.previous(&scene);
            let recompiled = compile_scene_reusing(&saved, &options, Some(previous));
            assert!(recompiled.bvh_reused);
            times[k].2.push(start.elapsed());
            times[k].0.push(parsed);
            times[k].1.push(total);
            if round == 0 {
                blobs.push(compiled.blob);
            }
            drop(scene);
        }
    }
    let same = blobs.windows(2).all(|w| w[0][..] == w[1][..]);
    println!("{rounds} rounds, forms alternating; blobs equal: {same}");
    println!(
        "{:<18} {:>22} {:>26} {:>22}",
        "form", "read+parse best/median", "read+parse+compile best/median", "camera save best/median"
    );
    for ((name, _), (parse, total, save)) in forms.iter().zip(&mut times) {
        let stat = |v: &mut Vec<Duration>| {
            v.sort();
            format!("{:.3} / {:.3} s", v[0].as_secs_f64(), v[v.len() / 2].as_secs_f64())
        };
        println!("{name:<18} {:>22} {:>26} {:>22}", stat(parse), stat(total), stat(save));
    }
}
