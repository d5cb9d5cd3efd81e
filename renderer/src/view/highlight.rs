//! The selection drawn over the render: a ring around a sphere, a box's edges, a
//! terrain's footprint on its origin's plane (its top would need the highest of every
//! pixel, each frame), a mesh's model-space bounding box placed by its transform.

use eframe::egui::{Color32, Painter, Pos2, Rect, Stroke};
use glam::{Affine3A, Vec3};
use scene_compiler::scene::Scene;

use super::pick;
use super::selected::Selected;
use crate::camera::CameraFrame;

/// Image coordinates `(s, t)` (as [`pick::project`] gives them) as a point of `rect`.
pub(super) fn in_rect(rect: Rect, s: f32, t: f32) -> Pos2 {
    Pos2::new(rect.min.x + s * rect.width(), rect.min.y + t * rect.height())
}

/// Outlines `selected` of `scene`, rendered through `camera` into `rect`.
pub(super) fn draw(painter: &Painter, rect: Rect, camera: &CameraFrame, scene: &Scene, selected: Selected) {
    let stroke = Stroke::new(2.0, Color32::from_rgb(255, 200, 0));
    let corners = match selected {
        Selected::Sphere(i) => {
            if let Some(sphere) = scene.spheres.get(i)
                && let Some((s, t, radius)) = pick::project(camera, sphere.center, sphere.radius)
            {
                painter.circle_stroke(in_rect(rect, s, t), (radius * rect.width()).max(4.0), stroke);
            }
            return;
        }
        Selected::Box(i) => scene.boxes.get(i).map(|b| (b.min, b.max, Affine3A::IDENTITY)),
        Selected::Terrain(i) => scene.terrains.get(i).map(|t| {
            let extent = Vec3::new(t.heights.width as f32, 0.0, t.heights.depth as f32) * t.cell;
            (t.origin, t.origin + extent, Affine3A::IDENTITY)
        }),
        // One pass over the positions per frame: about a millisecond per million vertices.
        Selected::Mesh(i) => scene.meshes.get(i).and_then(|m| {
            let positions = &m.data.positions;
            let min = positions.iter().copied().reduce(Vec3::min)?;
            let max = positions.iter().copied().reduce(Vec3::max)?;
            Some((min, max, m.transform.matrix()))
        }),
    };
    let Some((min, max, to_world)) = corners else { return };
    let corner = |k: usize| {
        let local = Vec3::select(glam::BVec3::new(k & 1 != 0, k & 2 != 0, k & 4 != 0), max, min);
        to_world.transform_point3(local)
    };
    let on_screen = |k: usize| pick::project(camera, corner(k), 0.0).map(|(s, t, _)| in_rect(rect, s, t));
    // Corners differing in one bit share an edge; one behind the camera drops its edges.
    for k in 0..8 {
        for bit in [1, 2, 4] {
            if k & bit == 0
                && let (Some(a), Some(b)) = (on_screen(k), on_screen(k | bit))
            {
                painter.line_segment([a, b], stroke);
            }
        }
    }
}
