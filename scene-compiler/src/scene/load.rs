//! Loading: reads the files a scene names that it has not read (the environment image,
//! texture images, sphere files, terrain images, model files and instance files),
//! relative to the scene file's folder, before the scene is checked. For a scene read
//! from a file that is every file it names; for an editor's edit, the images it named
//! anew. A file that cannot be used is an [`Issue`] at the value that names it, and
//! what it would have filled stays unread, which the checks take as reported.
//!
//! Images are read against what the images before them left of the scene's texel limit
//! (`budget::TexelBudget`), models against what the models before them left of the
//! triangle limit, so the file that passes a limit is refused before it is decoded.
//!
//! Not here: checking what was read against the scene (`validate.rs`).

use std::path::Path;
use std::sync::Arc;

use super::budget::TexelBudget;
use super::checker::Issue;
use super::material::MAP_FIELDS;
use super::model::{Scene, Sky, Texture};
use super::spans::ValuePath;
use super::{environment, heightmap, instance_file, mesh_file, sphere_file, texture_file};
use crate::limits;

/// Fills in, from `previous` (a scene read earlier from the same folder), the model,
/// instance and sphere files `scene` names that `unchanged` says have not changed since
/// `previous` read them, so that [`read_inputs`] leaves them be: a reload after one file
/// of several changed reads that one. A model that names other files (an `.obj` its
/// `.mtl`, a `.gltf` its buffers), whose changes nothing watches, is read again.
pub(crate) fn reuse(scene: &mut Scene, folder: &Path, previous: &Scene, unchanged: &dyn Fn(&Path) -> bool) {
    let keep = |path: &Path, read: &Path| !read.as_os_str().is_empty() && read == path && unchanged(path);
    let self_contained = |path: &Path| {
        path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ply") || e.eq_ignore_ascii_case("glb"))
    };
    for mesh in &mut scene.meshes {
        let path = folder.join(&mesh.file);
        if self_contained(&path)
            && let Some(old) = previous.meshes.iter().find(|m| keep(&path, &m.data.path))
        {
            mesh.data = Arc::clone(&old.data);
        }
        if let Some(name) = &mesh.instance_file {
            let path = folder.join(name);
            if let Some(old) = previous.meshes.iter().find(|m| keep(&path, &m.placements.path)) {
                mesh.placements = Arc::clone(&old.placements);
            }
        }
    }
    for list in &mut scene.sphere_files {
        let path = folder.join(&list.file);
        if let Some(old) = previous.sphere_files.iter().find(|l| keep(&path, &l.data.path)) {
            list.data = Arc::clone(&old.data);
        }
    }
}

/// Reads every file `scene` names and has not read, from `folder`; returns why each
/// one that could not be used cannot.
pub(crate) fn read_inputs(scene: &mut Scene, folder: &Path) -> Vec<Issue> {
    let root = ValuePath::root();
    let mut issues = Vec::new();
    let mut fail = |path: ValuePath, message: String, label: &str, hint: &str| {
        issues.push(Issue {
            path,
            message,
            label: label.to_owned(),
            hint: Some(hint.to_owned()),
            also: None,
        });
    };

    if let Sky::Environment(env) = &mut scene.sky
        && env.data.is_unread()
    {
        match environment::read(&folder.join(&env.image)) {
            Ok(data) => env.data = Arc::new(data),
            Err(error) => fail(
                root.field("sky").field("image"),
                format!("cannot use environment image `{}`: {error}", env.image),
                "this image",
                "the path is relative to the scene file's folder; images are .exr, .hdr, .png or .jpg",
            ),
        }
    }

    let mut texels = TexelBudget::default();
    for (i, material) in scene.materials.iter_mut().enumerate() {
        let colour_field = material.kind.texture_field();
        let [a, b, c] = material.maps.slots_mut();
        let slots = [
            (&mut material.texture, colour_field),
            (a, MAP_FIELDS[0]),
            (b, MAP_FIELDS[1]),
            (c, MAP_FIELDS[2]),
        ];
        for (texture, field) in slots {
            let Some(Texture::Image { file, image, .. }) = texture else { continue };
            if !image.is_unread() {
                continue;
            }
            match texels.read(folder, file, texture_file::encoding_of(field)) {
                Ok(read) => *image = read,
                Err(message) => fail(
                    root.field("materials").index(i).field(field).field("file"),
                    message,
                    "this image",
                    texture_file::IMAGE_HINT,
                ),
            }
        }
    }

    for (i, list) in scene.sphere_files.iter_mut().enumerate() {
        if !list.data.is_unread() {
            continue;
        }
        match sphere_file::read(&folder.join(&list.file)) {
            Ok(data) => list.data = Arc::new(data),
            Err(error) => fail(
                root.field("sphere_files").index(i).field("file"),
                format!("cannot use sphere file `{}`: {error}", list.file),
                "this file",
                "the path is relative to the scene file's folder; a sphere file is a PLY point list: a `vertex` element with `x y z radius` and an optional integer `material`",
            ),
        }
    }

    for (i, terrain) in scene.terrains.iter_mut().enumerate() {
        if !terrain.heights.is_unread() {
            continue;
        }
        match heightmap::read(&folder.join(&terrain.image)) {
            Ok(heights) => terrain.heights = Arc::new(heights),
            Err(error) => fail(
                root.field("terrains").index(i).field("image"),
                format!("cannot use terrain image `{}`: {error}", terrain.image),
                "this image",
                "the path is relative to the scene file's folder; heightmaps are 8- or 16-bit PNG images",
            ),
        }
    }

    // Triangles of the models read so far (an instanced model's once): each model is
    // read against what is left.
    let mut triangles: usize = scene.meshes.iter().map(|m| m.data.stored_triangles()).sum();
    for (i, mesh) in scene.meshes.iter_mut().enumerate() {
        if let Some(name) = &mesh.instance_file
            && mesh.placements.is_unread()
        {
            match instance_file::read(&folder.join(name)) {
                Ok(data) => mesh.placements = Arc::new(data),
                Err(error) => fail(
                    root.field("meshes").index(i).field("instance_file"),
                    format!("cannot use instance_file `{name}`: {error}"),
                    "this file",
                    &format!("the path is relative to the scene file's folder; {}", instance_file::LAYOUT),
                ),
            }
        }
        if !mesh.data.is_unread() {
            continue;
        }
        let left = limits::MAX_TRIANGLES.saturating_sub(triangles);
        match mesh_file::read_within(&folder.join(&mesh.file), left) {
            Ok(data) => {
                triangles += data.stored_triangles();
                mesh.data = Arc::new(data);
            }
            Err(error) => fail(
                root.field("meshes").index(i).field("file"),
                format!("cannot use model `{}`: {error}", mesh.file),
                "this model",
                "the path is relative to the scene file's folder; models are .obj, .ply, .gltf or .glb",
            ),
        }
    }
    issues
}
