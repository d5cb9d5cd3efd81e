//! What compiling a scene takes in memory, estimated from its counts before any of it is
//! built (issue 37): a scene too big for the machine is refused with the numbers, instead
//! of an allocation failure or the kernel's out-of-memory killer halfway through.
//!
//! The per-item costs are peaks measured with `/usr/bin/time -f %M` on `scene-compiler
//! build` (2026-11-26): a 1M-sphere grid from a PLY sphere file, 291 MB (290 B a
//! sphere); a 4096 × 8192 heightmap, 33.5M terrain columns, 6.4 GB (190 B a box); a
//! 5.2M-triangle PLY mesh, 1.1 GB since blob format 14 stores a vertex once (214 B a
//! triangle, 2026-11-27; 1.8 GB before); two 8192² textures, 5.6 GB (42 B a texel, the
//! decode included). They are rounded up: an estimate that refuses a scene the machine
//! could just hold is better than one that lets it die.

use crate::scene::list::ListItem;
use crate::scene::{Mesh, Scene, Sky, SphereList, Terrain};

const BYTES_PER_SPHERE: u64 = 320;
const BYTES_PER_BOX: u64 = 220;
const BYTES_PER_TRIANGLE: u64 = 240;
const BYTES_PER_TEXEL: u64 = 48;
/// The program itself, its tables and the scene file.
const BASE: u64 = 64 << 20;

/// The estimated peak of compiling `scene`, in bytes.
pub fn estimate(scene: &Scene) -> u64 {
    let spheres = scene.spheres.len() + SphereList::primitives(&scene.sphere_files);
    let boxes = scene.boxes.len() + Terrain::primitives(&scene.terrains);
    let triangles = Mesh::primitives(&scene.meshes);
    // The images as the blob stores them (a shared one once), as validation counts them.
    let mut texels = crate::scene::budget::texels(scene);
    if let Sky::Environment(env) = &scene.sky {
        texels += u64::from(env.data.width) * u64::from(env.data.height);
    }
    BASE + spheres as u64 * BYTES_PER_SPHERE
        + boxes as u64 * BYTES_PER_BOX
        + triangles as u64 * BYTES_PER_TRIANGLE
        + texels * BYTES_PER_TEXEL
}

/// The memory the machine can give a new allocation now (Linux's `MemAvailable`); `None`
/// where it cannot be read, and then nothing is refused.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// An error when compiling `scene` needs more than `available` bytes (see [`available`]).
pub fn check(scene: &Scene, available: Option<u64>) -> Result<(), String> {
    let needed = estimate(scene);
    match available {
        Some(free) if needed > free => Err(format!(
            "compiling this scene needs about {} of memory and this machine has {} available: \
             use fewer or smaller primitives, heightmaps or images, or a machine with more memory",
            gib(needed),
            gib(free)
        )),
        _ => Ok(()),
    }
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::scene::Sphere;

    fn spheres(n: usize) -> Scene {
        let sphere = Sphere { center: Vec3::ZERO, radius: 1.0, material: 0 };
        Scene { spheres: vec![sphere; n], ..Scene::default() }
    }

    #[test]
    fn the_estimate_grows_with_the_scene() {
        assert_eq!(estimate(&spheres(0)), BASE);
        assert_eq!(estimate(&spheres(1000)), BASE + 1000 * BYTES_PER_SPHERE);
    }

    #[test]
    fn a_scene_past_the_available_memory_is_refused_with_both_sizes() {
        let scene = spheres(1_000_000);
        let needed = estimate(&scene);
        assert!(check(&scene, Some(needed)).is_ok());
        assert!(check(&scene, None).is_ok());
        let message = check(&scene, Some(needed / 2)).unwrap_err();
        assert!(message.contains("0.4 GiB") && message.contains("0.2 GiB"), "{message}");
    }

    #[test]
    fn available_memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(available().is_some_and(|b| b > 0));
        }
    }
}
