//! The selection drawn over the render: its [`Outline`] projected through the camera.

use eframe::egui::{Color32, Painter, Pos2, Rect, Stroke};
use glam::Vec3;
use scene_compiler::scene::Scene;

use super::pick;
use super::selected::{Outline, Selected};
use crate::camera::CameraFrame;

/// Image coordinates `(s, t)` (as [`pick::project`] gives them) as a point of `rect`.
pub(super) fn in_rect(rect: Rect, s: f32, t: f32) -> Pos2 {
    Pos2::new(rect.min.x + s * rect.width(), rect.min.y + t * rect.height())
}

/// Outlines `selected` of `scene`, rendered through `camera` into `rect`.
pub(super) fn draw(painter: &Painter, rect: Rect, camera: &CameraFrame, scene: &Scene, selected: Selected) {
    let stroke = Stroke::new(2.0, Color32::from_rgb(255, 200, 0));
    let (min, max, to_world) = match selected.outline(scene) {
        None => return,
        Some(Outline::Ring { center, radius }) => {
            if let Some((s, t, radius)) = pick::project(camera, center, radius) {
                painter.circle_stroke(in_rect(rect, s, t), (radius * rect.width()).max(4.0), stroke);
            }
            return;
        }
        Some(Outline::Box { min, max, to_world }) => (min, max, to_world),
    };
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
