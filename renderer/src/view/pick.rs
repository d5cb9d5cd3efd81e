//! Clicking a thing: a ray from the lens center through the clicked point, traced by
//! the CPU backend's own closest-hit traversal (so what is picked is what the renderer
//! draws), mapped back to the primitive's index in its kind's list through the blob's
//! `prim_sources` (the blob stores each kind in leaf order).
//!
//! The blob's boxes are the scene's own followed by every terrain's columns, terrain
//! after terrain (`scene_compiler::terrain::with_columns`): a box past the scene's own
//! selects the terrain whose columns it falls among.

use glam::{Vec3, Vec3A};
use scene_compiler::blob::layout::{PrimKind, prim_parts};
use scene_compiler::scene::Scene;
use scene_compiler::{BlobView, terrain};

use super::selected::Selected;
use crate::backend::cpu::scene::CpuScene;
use crate::backend::cpu::traverse::traverse;
use crate::camera::CameraFrame;

/// The CPU copy of one compiled scene, kept for repeated picks.
#[derive(Clone, Debug)]
pub struct Picker {
    scene: CpuScene,
    /// Per terrain, the index of its first column among the blob's boxes.
    terrain_starts: Vec<usize>,
}

impl Picker {
    /// Copies what picking needs out of the blob compiled from `scene`.
    pub fn new(view: &BlobView<'_>, scene: &Scene) -> Picker {
        let mut terrain_starts = Vec::with_capacity(scene.terrains.len());
        let mut next = scene.boxes.len();
        if let Some((_, counted)) = scene.terrains.split_last() {
            terrain_starts.push(next);
            // The last terrain's count is never needed: it runs to the end.
            for t in counted {
                next += terrain::columns(t).len();
                terrain_starts.push(next);
            }
        }
        Picker { scene: CpuScene::from_blob(view), terrain_starts }
    }

    /// What is nearest under `(s, t)` of `camera`'s image (`s` left to right, `t` top
    /// to bottom, both in 0..=1), through the lens center.
    pub fn pick(&self, camera: &CameraFrame, s: f32, t: f32) -> Option<Selected> {
        let origin = camera.origin;
        let target = camera.lower_left + s * camera.horizontal + (1.0 - t) * camera.vertical;
        let dir = (target - origin).try_normalize()?;
        self.nearest(origin, dir)
    }

    /// What the ray hits first.
    fn nearest(&self, origin: Vec3, dir: Vec3) -> Option<Selected> {
        let hit = traverse(&self.scene, Vec3A::from(origin), Vec3A::from(dir), f32::INFINITY)?;
        let (kind, index) = prim_parts(hit.prim);
        let slot = self.scene.kind_first[kind as usize] + index;
        let source = self.scene.prim_sources[slot as usize] as usize;
        match PrimKind::from_u32(kind)? {
            PrimKind::Sphere => Some(Selected::Sphere(source)),
            PrimKind::Box => Some(match self.terrain_starts.partition_point(|&start| start <= source) {
                0 => Selected::Box(source),
                after => Selected::Terrain(after - 1),
            }),
        }
    }
}

/// Where `center` appears in `camera`'s image: `(s, t)` as in [`Picker::pick`], and a
/// sphere of `radius` there as a fraction of the image width; `None` behind the camera.
pub fn project(camera: &CameraFrame, center: Vec3, radius: f32) -> Option<(f32, f32, f32)> {
    // u × v is the frame's w, which points from the scene back to the eye.
    let forward = -camera.u.cross(camera.v);
    let to_point = center - camera.origin;
    let depth = to_point.dot(forward);
    let corner = camera.lower_left - camera.origin;
    let plane = corner.dot(forward);
    if depth <= 1e-4 || plane <= 0.0 {
        return None;
    }
    let on_plane = to_point * (plane / depth) - corner;
    let s = on_plane.dot(camera.horizontal) / camera.horizontal.length_squared();
    let t = 1.0 - on_plane.dot(camera.vertical) / camera.vertical.length_squared();
    Some((s, t, radius * plane / depth / camera.horizontal.length()))
}

#[cfg(test)]
mod tests {
    use scene_compiler::scene;
    use scene_compiler::{CompileOptions, compile_scene};

    use super::*;
    use crate::backend::cpu::shapes::sphere::intersect_sphere;

    #[test]
    fn picks_the_sphere_in_the_middle_of_three_spheres() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/three_spheres.ron");
        let scene = scene::load_file(std::path::Path::new(path)).expect("asset scene loads");
        let compiled = compile_scene(&scene, &CompileOptions::default());
        let view = BlobView::parse(&compiled.blob).expect("fresh blob parses");
        let picker = Picker::new(&view);
        let camera = CameraFrame::new(&scene.camera, 400, 300);
        // The camera looks at look_at; the sphere nearest to it along the view is hit.
        let picked = picker.pick(&camera, 0.5, 0.5).expect("the center pixel hits a sphere");
        let toward = (scene.camera.look_at - scene.camera.look_from).normalize();
        let expected = scene
            .spheres
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let center_radius = s.center.extend(s.radius);
                intersect_sphere(center_radius, scene.camera.look_from.into(), toward.into(), f32::INFINITY)
                    .map(|t| (t, i))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, i)| i);
        assert_eq!(Some(picked), expected);
        assert_eq!(picker.nearest(Vec3::new(0.0, 5.0, 0.0), Vec3::Y), None, "a ray to the sky hits nothing");
        let (s, t, _) = project(&camera, scene.spheres[picked].center, 0.5).expect("in front of the camera");
        assert_eq!(picker.pick(&camera, s, t), Some(picked), "a sphere's projected center picks it");
    }
}
