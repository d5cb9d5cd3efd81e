//! The editor's camera: an orbit around a target point (orbit, pan, zoom, WASD fly)
//! that starts from, and resets to, the scene's own camera.
//!
//! Angles are measured in a frame built from the scene camera's `up` and its initial
//! view direction, so a reset reproduces the scene camera exactly, whatever its up.

use glam::Vec3;
use scene_compiler::scene::Camera;

/// Radians of orbit per point of mouse drag.
const ORBIT_PER_POINT: f32 = 0.008;
/// Pitch stops short of the poles, where the view direction would be parallel to `up`.
const MAX_PITCH: f32 = 1.55;
/// Fly speed in view distances per second, so small and large scenes feel the same.
const FLY_DISTANCES_PER_SECOND: f32 = 0.5;

/// An orbit camera; `focus_ratio` keeps the thin lens focused at the same relative depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    pub target: Vec3,
    pub distance: f32,
    yaw: f32,
    pitch: f32,
    up: Vec3,
    /// Horizontal axes of the orbit frame: `yaw = 0` looks from `target + distance * forward_axis`.
    forward_axis: Vec3,
    side_axis: Vec3,
    vfov_deg: f32,
    aperture: f32,
    focus_ratio: f32,
}

impl Orbit {
    /// The orbit that reproduces `camera`.
    pub fn from_camera(camera: &Camera) -> Orbit {
        let up = camera.up.try_normalize().unwrap_or(Vec3::Y);
        let offset = camera.look_from - camera.look_at;
        let distance = offset.length().max(1e-4);
        let flat = offset - up * offset.dot(up);
        let forward_axis = flat.try_normalize().unwrap_or_else(|| up.any_orthonormal_vector());
        let side_axis = up.cross(forward_axis);
        Orbit {
            target: camera.look_at,
            distance,
            yaw: 0.0,
            pitch: (offset.dot(up) / distance).clamp(-1.0, 1.0).asin().clamp(-MAX_PITCH, MAX_PITCH),
            up,
            forward_axis,
            side_axis,
            vfov_deg: camera.vfov_deg,
            aperture: camera.aperture,
            focus_ratio: camera.focus_dist / distance,
        }
    }

    /// Where the eye is.
    pub fn eye(&self) -> Vec3 {
        self.target + self.distance * self.eye_direction()
    }

    /// Unit vector from the target towards the eye.
    fn eye_direction(&self) -> Vec3 {
        let (sin_yaw, cos_yaw) = self.yaw.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch.sin_cos();
        let horizontal = self.forward_axis * cos_yaw + self.side_axis * sin_yaw;
        horizontal * cos_pitch + self.up * sin_pitch
    }

    /// Unit camera right and up vectors.
    fn right_up(&self) -> (Vec3, Vec3) {
        let w = self.eye_direction();
        let right = self.up.cross(w).normalize_or(self.side_axis);
        (right, w.cross(right))
    }

    /// Turns around the target by a mouse drag of `(dx, dy)` points.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * ORBIT_PER_POINT;
        self.pitch = (self.pitch + dy * ORBIT_PER_POINT).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Slides target and eye so the scene follows a drag of `(dx, dy)` points in a
    /// view `view_height` points tall.
    pub fn pan(&mut self, dx: f32, dy: f32, view_height: f32) {
        let world_per_point =
            2.0 * self.distance * (self.vfov_deg.to_radians() * 0.5).tan() / view_height.max(1.0);
        let (right, up) = self.right_up();
        self.target += (-dx * right + dy * up) * world_per_point;
    }

    /// Moves towards the target for positive `scroll` (points of wheel travel).
    pub fn zoom(&mut self, scroll: f32) {
        self.distance = (self.distance * (-scroll * 0.002).exp()).max(1e-3);
    }

    /// Moves eye and target together: `forward`, `right` and `rise` in -1..=1, over `dt` seconds.
    pub fn fly(&mut self, forward: f32, right: f32, rise: f32, dt: f32) {
        let (right_axis, _) = self.right_up();
        let step = self.distance * FLY_DISTANCES_PER_SECOND * dt;
        self.target += (-forward * self.eye_direction() + right * right_axis + rise * self.up) * step;
    }

    /// The scene-format camera this orbit looks through (what a save would store).
    pub fn camera(&self) -> Camera {
        Camera {
            look_from: self.eye(),
            look_at: self.target,
            up: self.up,
            vfov_deg: self.vfov_deg,
            aperture: self.aperture,
            focus_dist: self.focus_ratio * self.distance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtiow_camera() -> Camera {
        Camera {
            look_from: Vec3::new(13.0, 2.0, 3.0),
            look_at: Vec3::ZERO,
            up: Vec3::Y,
            vfov_deg: 20.0,
            aperture: 0.1,
            focus_dist: 10.0,
        }
    }

    #[test]
    fn reset_reproduces_the_scene_camera() {
        let camera = Orbit::from_camera(&rtiow_camera()).camera();
        assert!((camera.look_from - rtiow_camera().look_from).length() < 1e-5);
        assert!((camera.focus_dist - 10.0).abs() < 1e-5);
    }

    #[test]
    fn orbit_keeps_the_distance_and_zoom_shortens_it() {
        let mut orbit = Orbit::from_camera(&rtiow_camera());
        let before = orbit.distance;
        orbit.orbit(40.0, -25.0);
        assert!(((orbit.eye() - orbit.target).length() - before).abs() < 1e-4);
        orbit.zoom(100.0);
        assert!(orbit.distance < before);
    }

    #[test]
    fn pan_and_fly_move_eye_and_target_together() {
        let mut orbit = Orbit::from_camera(&rtiow_camera());
        let offset = orbit.eye() - orbit.target;
        orbit.pan(30.0, 10.0, 600.0);
        orbit.fly(1.0, 0.5, 0.0, 0.1);
        assert!((orbit.eye() - orbit.target - offset).length() < 1e-4);
        assert!(orbit.target.length() > 0.0);
    }
}
