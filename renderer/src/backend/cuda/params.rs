//! The render kernel's per-launch parameters: the host side of `LaunchParams` in
//! kernels/params.cuh, copied into the kernel's `__constant__ params` before each
//! launch. Both sides assert the same size and offsets.

use bytemuck::{Pod, Zeroable};

use crate::camera::CameraFrame;

/// Mirror of `struct LaunchParams` (kernels/params.cuh); device pointers are `u64`.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LaunchParams {
    pub cam_origin_lens: [f32; 4],
    pub cam_lower_left: [f32; 4],
    pub cam_horizontal: [f32; 4],
    pub cam_vertical: [f32; 4],
    pub cam_u: [f32; 4],
    pub cam_v: [f32; 4],
    pub sky_bottom: [f32; 4],
    pub sky_top: [f32; 4],
    pub spheres: u64,
    pub sphere_materials: u64,
    pub materials: u64,
    pub nodes: u64,
    pub accum: u64,
    pub ray_count: u64,
    pub width: u32,
    pub height: u32,
    pub max_depth: u32,
    pub seed: u32,
    pub first_sample: u32,
    pub samples: u32,
    pub bvh_root: u32,
    pub padding: [u32; 1],
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<LaunchParams>() == 208);
    assert!(offset_of!(LaunchParams, spheres) == 128);
    assert!(offset_of!(LaunchParams, accum) == 160);
    assert!(offset_of!(LaunchParams, width) == 176);
    assert!(offset_of!(LaunchParams, samples) == 196);
    assert!(offset_of!(LaunchParams, bvh_root) == 200);
};

/// Device addresses of the blob sections the kernel reads, and of the repacked nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SectionPointers {
    pub spheres: u64,
    pub sphere_materials: u64,
    pub materials: u64,
    pub nodes: u64,
}

/// `v.xyz` with `w` in the fourth lane.
fn lanes(v: glam::Vec3, w: f32) -> [f32; 4] {
    [v.x, v.y, v.z, w]
}

impl LaunchParams {
    /// The camera part of the parameters.
    pub fn set_camera(&mut self, camera: &CameraFrame) {
        self.cam_origin_lens = lanes(camera.origin, camera.lens_radius);
        self.cam_lower_left = lanes(camera.lower_left, 0.0);
        self.cam_horizontal = lanes(camera.horizontal, 0.0);
        self.cam_vertical = lanes(camera.vertical, 0.0);
        self.cam_u = lanes(camera.u, 0.0);
        self.cam_v = lanes(camera.v, 0.0);
    }

    /// The scene part of the parameters.
    pub fn set_sections(&mut self, sections: &SectionPointers) {
        self.spheres = sections.spheres;
        self.sphere_materials = sections.sphere_materials;
        self.materials = sections.materials;
        self.nodes = sections.nodes;
    }
}
