//! Clicking a sphere: a CPU ray through the BVH of the compiled blob
//! ([`BlobView::tree`]), mapped back to the sphere's index in the scene through the
//! blob's `sphere_sources` (the blob stores spheres in leaf order).

use glam::Vec3;
use scene_compiler::BlobView;
use scene_compiler::bvh::{Aabb, Bvh, NodeKind};

use crate::camera::CameraFrame;

/// The BVH and spheres of one compiled scene, kept for repeated picks.
#[derive(Clone, Debug)]
pub struct Picker {
    tree: Bvh,
    /// Center and radius per sphere, in blob (leaf) order.
    spheres: Vec<[f32; 4]>,
    /// Scene index of each blob sphere.
    sources: Vec<u32>,
}

impl Picker {
    /// Copies what picking needs out of a blob.
    pub fn new(view: &BlobView<'_>) -> Picker {
        Picker {
            tree: view.tree(),
            spheres: view.spheres.iter().map(|s| s.center_radius).collect(),
            sources: view.sphere_sources.to_vec(),
        }
    }

    /// The scene index of the nearest sphere under `(s, t)` of `camera`'s image
    /// (`s` left to right, `t` top to bottom, both in 0..=1), through the lens center.
    pub fn pick(&self, camera: &CameraFrame, s: f32, t: f32) -> Option<usize> {
        let origin = camera.origin;
        let target = camera.lower_left + s * camera.horizontal + (1.0 - t) * camera.vertical;
        let dir = (target - origin).try_normalize()?;
        self.nearest(origin, dir).map(|blob_index| self.sources[blob_index] as usize)
    }

    /// Index (blob order) of the closest sphere hit by the ray, if any.
    fn nearest(&self, origin: Vec3, dir: Vec3) -> Option<usize> {
        let inv_dir = dir.recip();
        let mut best: Option<(f32, usize)> = None;
        let mut stack = vec![0u32];
        while let Some(index) = stack.pop() {
            let Some(node) = self.tree.nodes.get(index as usize) else { continue };
            let t_max = best.map_or(f32::INFINITY, |(t, _)| t);
            if !hits_box(&node.bounds, origin, inv_dir, t_max) {
                continue;
            }
            match node.kind {
                NodeKind::Inner { left, right } => stack.extend([right, left]),
                NodeKind::Leaf { first, count } => {
                    for slot in first..first + count {
                        let sphere = self.tree.prim_order[slot as usize] as usize;
                        if let Some(t) = hit_sphere(self.spheres[sphere], origin, dir)
                            && t < best.map_or(f32::INFINITY, |(b, _)| b)
                        {
                            best = Some((t, sphere));
                        }
                    }
                }
            }
        }
        best.map(|(_, sphere)| sphere)
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

/// Slab test: does the ray enter `bounds` before `t_max`?
fn hits_box(bounds: &Aabb, origin: Vec3, inv_dir: Vec3, t_max: f32) -> bool {
    let t0 = (bounds.min - origin) * inv_dir;
    let t1 = (bounds.max - origin) * inv_dir;
    let near = t0.min(t1).max_element().max(0.0);
    let far = t0.max(t1).min_element().min(t_max);
    near <= far
}

/// Distance along the unit ray to the sphere's first surface in front of the origin.
fn hit_sphere([x, y, z, radius]: [f32; 4], origin: Vec3, dir: Vec3) -> Option<f32> {
    let oc = origin - Vec3::new(x, y, z);
    let half_b = oc.dot(dir);
    let c = oc.length_squared() - radius * radius;
    let discriminant = half_b * half_b - c;
    if discriminant < 0.0 {
        return None;
    }
    let root = discriminant.sqrt();
    [-half_b - root, -half_b + root].into_iter().find(|&t| t > 1e-4)
}

#[cfg(test)]
mod tests {
    use scene_compiler::scene;
    use scene_compiler::{CompileOptions, compile_scene};

    use super::*;
    use crate::view::orbit::Orbit;

    #[test]
    fn picks_the_sphere_in_the_middle_of_three_spheres() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/scenes/three_spheres.ron");
        let scene = scene::load_file(std::path::Path::new(path)).expect("asset scene loads");
        let compiled = compile_scene(&scene, &CompileOptions::default());
        let view = BlobView::parse(&compiled.blob).expect("fresh blob parses");
        let picker = Picker::new(&view);
        let camera = Orbit::from_camera(&scene.camera).frame(400, 300);
        // The camera looks at look_at; the sphere nearest to it along the view is hit.
        let picked = picker.pick(&camera, 0.5, 0.5).expect("the center pixel hits a sphere");
        let toward = (scene.camera.look_at - scene.camera.look_from).normalize();
        let expected = scene
            .spheres
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                hit_sphere([s.center.x, s.center.y, s.center.z, s.radius], scene.camera.look_from, toward)
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
