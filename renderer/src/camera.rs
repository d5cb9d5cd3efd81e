//! The camera frame both backends generate rays from (docs/path-tracing.md).

use glam::Vec3;
use scene_compiler::blob::layout::GlobalsRecord;

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
    /// The frame for the blob's camera at `width / height`.
    pub fn new(globals: &GlobalsRecord, width: u32, height: u32) -> CameraFrame {
        let [fx, fy, fz, vfov_deg] = globals.camera_from_vfov;
        let [ax, ay, az, aperture] = globals.camera_at_aperture;
        let [ux, uy, uz, focus_dist] = globals.camera_up_focus;
        let (look_from, look_at, up) = (Vec3::new(fx, fy, fz), Vec3::new(ax, ay, az), Vec3::new(ux, uy, uz));
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
