//! Edits of a scene that moves instances, as a live session makes them: moved in place
//! (`scene_compiler::moves`: the blob is byte for byte the refit compile's of the same
//! edit, its header's checksum holds, the ranges it reports cover every byte that
//! changed, and every edit it does not handle leaves the compile untouched), checked
//! where they moved (`scene::check_edit`), and parsed again taking the files that did
//! not change from the scene before (`scene::parse_reusing`).

use std::sync::Arc;

use glam::Vec3;
use scene_compiler::blob::layout::HEADER_LEN;
use scene_compiler::bvh;
use scene_compiler::compile::compile_scene_reusing;
use scene_compiler::moves::move_instances;
use scene_compiler::procedural::{Format, icosphere, write};
use scene_compiler::scene::{self, PlacedInstance, PlyEncoding, Scene, Transform};
use scene_compiler::{BlobView, CompileOptions, compile_scene};

/// A 12 x 12 grid of rotated, scaled spheres on a ground box wider than the grid (so a
/// move inside it keeps the root's box): the first 4 placed by `instances`, the rest by
/// an instance file.
fn grid_scene(dir: &std::path::Path) -> Scene {
    write(&icosphere(2, 1.0), Format::PlyLittleEndian, &dir.join("ico.ply")).expect("model");
    let placed: Vec<PlacedInstance> = (0..144)
        .map(|i| {
            let translate = Vec3::new(3.0 * (i % 12) as f32, 1.0, 3.0 * (i / 12) as f32);
            let transform = Transform {
                translate,
                rotate_deg: Vec3::new(0.0, 7.0 * i as f32, 0.0),
                scale: Vec3::splat(0.8),
            };
            PlacedInstance { transform, material: None }
        })
        .collect();
    let file = scene::write_instance_file(&placed[4..], PlyEncoding::BinaryLittleEndian);
    std::fs::write(dir.join("grid.ply"), file).expect("instance file");
    let inline: String = placed[..4]
        .iter()
        .map(|p| {
            let (t, r) = (p.transform.translate, p.transform.rotate_deg);
            format!(
                "(translate: ({}, {}, {}), rotate_deg: ({}, {}, {}), scale: 0.8),",
                t.x, t.y, t.z, r.x, r.y, r.z
            )
        })
        .collect();
    let text = format!(
        r#"Scene(
    camera: (look_from: (-5, 6, -5), look_at: (15, 0, 15), vfov_deg: 50),
    materials: {{ "ground": Lambert(albedo: (0.5, 0.5, 0.5)), "m": Lambert(albedo: (0.6, 0.3, 0.2)) }},
    boxes: [(min: (-100, -1, -100), max: (100, 0, 100), material: "ground")],
    meshes: [(file: "ico.ply", material: "m", instances: [{inline}], instance_file: "grid.ply")],
)"#
    );
    std::fs::write(dir.join("grid.ron"), text).expect("scene file");
    scene::load_file(&dir.join("grid.ron")).map_err(|e| e.to_string()).expect("scene")
}

/// `scene` with placement `k` of its mesh moved by `by`.
fn moved(scene: &Scene, k: usize, by: Vec3) -> Scene {
    let mut out = scene.clone();
    let mesh = &mut out.meshes[0];
    match k.checked_sub(mesh.instances.len()) {
        None => mesh.instances[k].transform.translate += by,
        Some(j) => Arc::make_mut(&mut mesh.placements).instances[j].transform.translate += by,
    }
    out
}

#[test]
fn a_move_in_place_writes_the_refit_compiles_blob_and_says_where() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = grid_scene(dir.path());
    let options = CompileOptions::default();
    let mut compiled = compile_scene(&scene, &options);
    let mut index = None;
    let mut before = scene.clone();
    // An inline instance, then two of the file's (one twice), with one index throughout.
    // Moves that keep below the tallest instance and within the ground: the root's box.
    for (k, by) in
        [(2, Vec3::new(0.5, 0.0, -0.25)), (77, Vec3::new(0.0, -0.4, 1.0)), (130, Vec3::X), (77, -Vec3::Z)]
    {
        let after = moved(&before, k, by);
        let refit = compile_scene_reusing(&after, &options, Some(compiled.previous(&before)));
        assert!(refit.bvh_refitted, "the whole compile refits this edit");
        let old_blob = compiled.blob.to_vec();
        let edit = move_instances(compiled.in_place(&before, &mut index), &after).expect("a move in place");
        assert!(
            compiled.blob[..] == refit.blob[..],
            "placement {k}: the refit compile's blob, byte for byte"
        );
        BlobView::parse(&compiled.blob).expect("the checksum in the header holds");
        assert_eq!(*compiled.bvh, *refit.bvh, "the refitted tree");
        let measured = bvh::stats(&compiled.bvh).sah_cost;
        assert!((compiled.bvh_stats.sah_cost - measured).abs() <= 1e-5 * measured, "SAH cost kept up");
        // Every changed byte past the header is inside a reported range, the ranges hold
        // one record and a few node records each, and the header names the old blob.
        let header: scene_compiler::blob::layout::BlobHeader =
            bytemuck::pod_read_unaligned(&old_blob[..HEADER_LEN]);
        assert_eq!(edit.before, (header.payload_crc32, header.total_len));
        let covered = |at: usize| edit.ranges.iter().any(|r| r.contains(&at));
        let changed: Vec<usize> =
            (HEADER_LEN..old_blob.len()).filter(|&i| old_blob[i] != compiled.blob[i]).collect();
        assert!(
            !changed.is_empty() && changed.iter().all(|&i| covered(i)),
            "placement {k}: ranges cover the change"
        );
        assert!(edit.ranges.iter().all(|r| r.start >= HEADER_LEN && r.end <= old_blob.len()));
        let written: usize = edit.ranges.iter().map(|r| r.len()).sum();
        assert!(written < 2_000, "placement {k}: {written} bytes rewritten");
        before = after;
    }
}

#[test]
fn edits_other_than_moves_leave_the_compile_untouched() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = grid_scene(dir.path());
    let options = CompileOptions::default();
    let mut compiled = compile_scene(&scene, &options);
    let blob = compiled.blob.to_vec();
    let tree = compiled.bvh.clone();
    let mut index = None;
    let mut camera = moved(&scene, 3, Vec3::X);
    camera.camera.vfov_deg = 30.0;
    let mut material = scene.clone();
    material.meshes[0].instances[1].material = Some(0);
    let mut shrunk = scene.clone();
    shrunk.meshes[0].instances[1].transform.scale = Vec3::splat(0.3);
    let mut transform = scene.clone();
    transform.meshes[0].transform.translate.y = 0.5;
    let refusals = [
        ("nothing moved", scene.clone()),
        ("the camera too", camera),
        ("an instance's material", material),
        ("the mesh's transform", transform),
        // Past the ground box: the root's box, and with it every margin, changes.
        ("out of the root's box", moved(&scene, 5, Vec3::new(0.0, 300.0, 0.0))),
        // Shrunk below every other instance: the margins of the model's own nodes (how far
        // a ray's origin lands in its space through an instance's inverse) grow.
        ("smaller than every other instance", shrunk),
    ];
    for (what, edit) in refusals {
        assert!(
            move_instances(compiled.in_place(&scene, &mut index), &edit).is_none(),
            "{what}: not moved in place"
        );
        assert!(compiled.blob[..] == blob[..] && compiled.bvh == tree, "{what}: the compile is as it was");
    }
}

#[test]
fn an_edit_is_checked_where_it_moved() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = grid_scene(dir.path());
    let good = moved(&scene, 77, Vec3::new(0.5, 0.0, 0.5));
    scene::check_edit(&good, &scene, "grid").expect("a move within range");
    let mut far = moved(&scene, 77, Vec3::ZERO);
    Arc::make_mut(&mut far.meshes[0].placements).instances[73].transform.translate.x = f32::NAN;
    let error = scene::check_edit(&far, &scene, "grid").expect_err("a NaN placement").to_string();
    assert!(error.contains("vertex 73") && error.contains("non-finite"), "{error}");
    let mut flat = scene.clone();
    flat.meshes[0].instances[2].transform.scale = Vec3::new(1.0, 1e-30, 1.0);
    let error = scene::check_edit(&flat, &scene, "grid").expect_err("a flattened instance").to_string();
    assert!(error.contains("instances[2]"), "{error}");
}

#[test]
fn a_reparse_takes_the_files_that_did_not_change_from_the_scene_before() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = grid_scene(dir.path());
    let path = dir.path().join("grid.ron");
    let (text, origin) = (std::fs::read_to_string(&path).expect("text"), path.display().to_string());
    let reuse = |unchanged| scene::Reuse { previous: &scene, unchanged };
    let all = scene::parse_reusing(&text, &origin, reuse(&|_| true)).expect("reparse");
    assert!(Arc::ptr_eq(&all.meshes[0].data, &scene.meshes[0].data), "the model taken");
    assert!(Arc::ptr_eq(&all.meshes[0].placements, &scene.meshes[0].placements), "the instance file taken");
    let changed = |file: &std::path::Path| !file.ends_with("grid.ply");
    let some = scene::parse_reusing(&text, &origin, reuse(&changed)).expect("reparse");
    assert!(Arc::ptr_eq(&some.meshes[0].data, &scene.meshes[0].data), "the model taken");
    assert!(!Arc::ptr_eq(&some.meshes[0].placements, &scene.meshes[0].placements), "the instance file read");
    assert_eq!(some, scene, "read again, the same");
}
