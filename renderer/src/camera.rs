//! The camera frame both backends generate rays from (docs/path-tracing.md), resolved
//! from the scene's [`Camera`], whether it came from a blob ([`scene_compiler::BlobView::camera`])
//! or from the viewer's orbit.

use glam::Vec3;
use scene_compiler::scene::Camera;

/// RTIOW thin-lens camera, resolved for one image aspect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraFrame {
    pub origin: Vec3,
    pub lower_left: Vec3,
    pub horizontal: Vec3,
    pub vertical: Vec3,
    /// Unit camera right and up vectors (lens offsets).
    pub u: Vec3,
    pub v: Vec3,
    pub lens_radius: f32,
}

impl CameraFrame {
    /// The frame for `camera` at `width / height`.
    pub fn new(camera: &Camera, width: u32, height: u32) -> CameraFrame {
        let Camera { look_from, look_at, up, vfov_deg, aperture, focus_dist } = *camera;
        let aspect = width as f32 / height as f32;
        let half_h = (vfov_deg.to_radians() * 0.5).tan();
        let viewport_h = 2.0 * half_h;
        let viewport_w = aspect * viewport_h;
        let w = (look_from - look_at).normalize();
        let u = up.cross(w).normalize();
        let v = w.cross(u);
        let horizontal = focus_dist * viewport_w * u;
        let vertical = focus_dist * viewport_h * v;
        CameraFrame {
            origin: look_from,
            lower_left: look_from - horizontal * 0.5 - vertical * 0.5 - focus_dist * w,
            horizontal,
            vertical,
            u,
            v,
            lens_radius: aperture * 0.5,
        }
    }
}
