//! The render kernel's per-launch parameters, copied into the kernel's `__constant__
//! params` (kernels/params.cuh) before each launch, and the block shapes the other
//! kernels are launched with. [`LaunchParams`] is the single source of truth: `cargo run
//! -p tools --bin layout-header` generates its CUDA struct into
//! kernels/launch_params.cuh ([`cuda_header`]), which asserts the size and every offset,
//! with the block shapes before it; renderer/tests/gpu/launch_params_header.rs fails
//! when that file is stale.

use cudarc::driver::LaunchConfig;
use scene_compiler::blob::layout::{
    EnvAliasRecord, EnvTexelRecord, LightRecord, MaterialRecord, NoiseRecord, PrimKind, TextureRecord,
    TriangleTangentsRecord, VertexRecord, VertexUvRecord,
};
use scene_compiler::blob::record::{CudaName, DevicePtr, DevicePtrMut};
use scene_compiler::blob::{SunDisc, cuda_struct, generated_banner};
use scene_compiler::blob_record;
use scene_compiler::limits::MAX_SUNS;

use crate::camera::CameraFrame;

/// `struct DeviceNode` of kernels/device_nodes.cuh: the BVH inner nodes as the kernels
/// repack them on the device (the host only allocates them), so Rust has just the name.
pub enum DeviceNode {}

impl CudaName for DeviceNode {
    const CUDA_NAME: &'static str = "DeviceNode";
}

/// Threads per block of the one-dimensional kernels (tonemap, repack_nodes, the probes):
/// the host's grid and the kernels' index and `__launch_bounds__` use it.
pub const FILM_THREADS: u32 = 256;

/// A launch of one thread per element, in blocks of `FILM_THREADS`.
pub fn film_launch(count: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (count.div_ceil(FILM_THREADS), 1, 1),
        block_dim: (FILM_THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}
/// Threads per side of the denoiser's square blocks (neighbouring taps share L1).
pub const DENOISE_BLOCK: u32 = 16;

blob_record! {
    /// Per-launch parameters of the render kernel, in __constant__ memory.
    #[align(16)]
    pub struct LaunchParams as "LaunchParams" {
        /// Camera frame (renderer/src/camera.rs), xyz each: origin, w = lens radius.
        pub cam_origin_lens: [f32; 4],
        /// The focus plane's lower-left corner (w unused).
        pub cam_lower_left: [f32; 4],
        /// The focus plane's full width, left to right.
        pub cam_horizontal: [f32; 4],
        /// The focus plane's full height, bottom to top.
        pub cam_vertical: [f32; 4],
        /// Unit camera right vector (lens offsets).
        pub cam_u: [f32; 4],
        /// Unit camera up vector (lens offsets).
        pub cam_v: [f32; 4],
        /// Sky radiance at dir.y = -1 (rgb), from the blob's globals.
        pub sky_bottom: [f32; 4],
        /// Sky radiance at dir.y = +1 (rgb).
        pub sky_top: [f32; 4],
        /// Blob sections on the device (one allocation, every section 16-byte aligned):
        /// each kind's records, by kind value (0 for kinds the blob lacks); each shape
        /// header (kernels/shape_*.cuh) reads its own as its record type.
        pub prims: [u64; PrimKind::USED],
        /// Blob section: each primitive's material index.
        pub prim_materials: DevicePtr<u32>,
        /// Blob section.
        pub materials: DevicePtr<MaterialRecord>,
        /// The inner nodes, repacked from the blob's node sections.
        pub nodes: DevicePtr<DeviceNode>,
        /// Blob section: the lights with their alias table.
        pub lights: DevicePtr<LightRecord>,
        /// Blob section: each primitive's light pick probability (0: not a light), or null when no primitive is a light.
        pub prim_light_pdfs: DevicePtr<f32>,
        /// Blob section: the vertices the triangles index.
        pub vertices: DevicePtr<VertexRecord>,
        /// Blob section: the vertices' texture coordinates, or null when the blob has none.
        pub vertex_uvs: DevicePtr<VertexUvRecord>,
        /// Blob section: the textures materials point at, or null when the blob has none.
        pub textures: DevicePtr<TextureRecord>,
        /// Blob section: the image textures' texels (linear rgb, w 0).
        pub texels: DevicePtr<[f32; 4]>,
        /// Blob section: the Perlin table, or null when no texture is noise.
        pub noise: DevicePtr<NoiseRecord>,
        /// The film: per-pixel sums of samples (rgb, w unused).
        pub accum: DevicePtrMut<[f32; 4]>,
        /// The ray counter.
        pub ray_count: DevicePtrMut<u64>,
        /// Image width in pixels.
        pub width: u32,
        /// Image height in pixels.
        pub height: u32,
        /// Bounces per path (docs/path-tracing.md).
        pub max_depth: u32,
        /// The render's random seed.
        pub seed: u32,
        /// Samples already in `accum` (0: overwrite it).
        pub first_sample: u32,
        /// Samples to add in this launch.
        pub samples: u32,
        /// The BVH's root link: inner node 0, or a leaf when the whole scene is one.
        pub bvh_root: u32,
        /// Lights to sample (next-event estimation); 0 turns NEE off (none has power, or `--no-nee`).
        pub light_count: u32,
        /// Where each primitive kind starts in prim_materials (BlobHeader::kind_first), by kind value, for the kinds in use.
        pub kind_first: [u32; PrimKind::USED],
        /// The environment: its rotation about +Y (cos, sin), its light pick probability (0 without one or with NEE off), 0.
        pub env_rotation_pdf: [f32; 4],
        /// The environment image's width and height (0, 0 without one), two zeros.
        pub env_size: [u32; 4],
        /// Blob section: the environment's texels, or null without one.
        pub env_texels: DevicePtr<EnvTexelRecord>,
        /// Blob section: the environment's alias tables, or null without one.
        pub env_sampling: DevicePtr<EnvAliasRecord>,
        /// Blob section: the triangles' vertex tangents, or null when the blob has none.
        pub triangle_tangents: DevicePtr<TriangleTangentsRecord>,
        /// The film's AOV sums, two per pixel (`AovSample`: albedo and depth, normal and
        /// squared luminance), or null when the job keeps none.
        pub aov: DevicePtrMut<[f32; 4]>,
        /// Each triangle's three corners (v0, v1, v2; w 0), gathered from the blob's
        /// triangles and vertices at upload (`gather_corners`, kernels/render.cu), or null
        /// when the blob has no triangles: the hit test reads them in one record.
        pub triangle_corners: DevicePtr<[f32; 4]>,
        /// Directional lights with a disc that escaping rays see (`suns`), at most `MAX_SUNS`.
        pub sun_count: u32,
        /// Zero: the suns' float4 rows start 16-byte aligned.
        pub reserved: u32,
        /// Per sun: the unit direction towards it, w the cosine of its angular radius.
        pub sun_towards_cos: [[f32; 4]; MAX_SUNS],
        /// Per sun: its disc's radiance (irradiance over solid angle), w 0.
        pub sun_radiance: [[f32; 4]; MAX_SUNS],
    }
}

// The constant block the kernels declare has this size (checked again at start-up).
const _: () = assert!(size_of::<LaunchParams>() == 512);

/// The full text of `kernels/launch_params.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("renderer/src/backend/cuda/params.rs");
    out.push_str("#include \"blob_layout.cuh\"\n#include \"device_nodes.cuh\"\n\n");
    out.push_str(&format!("static constexpr unsigned int FILM_THREADS = {FILM_THREADS}u;\n"));
    out.push_str(&format!("static constexpr unsigned int DENOISE_BLOCK = {DENOISE_BLOCK}u;\n\n"));
    out.push_str(&cuda_struct::<LaunchParams>());
    out
}

/// Device addresses of the blob sections the kernel reads, and of the repacked nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SectionPointers {
    /// By kind value, as `LaunchParams::prims`.
    pub prims: [u64; PrimKind::USED],
    pub prim_materials: u64,
    pub materials: u64,
    pub nodes: u64,
    pub lights: u64,
    pub prim_light_pdfs: u64,
    pub vertices: u64,
    /// 0 when the blob has no texture coordinates.
    pub vertex_uvs: u64,
    /// 0 when the blob has no triangle tangents.
    pub triangle_tangents: u64,
    /// Not a blob section: the gathered corners (`LaunchParams::triangle_corners`); 0
    /// without triangles.
    pub triangle_corners: u64,
    pub textures: u64,
    pub texels: u64,
    /// 0 when the blob has no noise table.
    pub noise: u64,
    /// 0 when the blob has no environment.
    pub env_texels: u64,
    pub env_sampling: u64,
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

    /// The suns, at most `MAX_SUNS` (the blob reader refuses more).
    pub fn set_suns(&mut self, suns: &[SunDisc]) {
        for (i, sun) in suns.iter().take(MAX_SUNS).enumerate() {
            let [x, y, z] = sun.towards;
            let [r, g, b] = sun.radiance;
            self.sun_towards_cos[i] = [x, y, z, sun.cos];
            self.sun_radiance[i] = [r, g, b, 0.0];
        }
        self.sun_count = suns.len().min(MAX_SUNS) as u32;
    }

    /// The scene part of the parameters.
    pub fn set_sections(&mut self, sections: &SectionPointers) {
        self.prims = sections.prims;
        self.prim_materials = DevicePtr::new(sections.prim_materials);
        self.materials = DevicePtr::new(sections.materials);
        self.nodes = DevicePtr::new(sections.nodes);
        self.lights = DevicePtr::new(sections.lights);
        self.prim_light_pdfs = DevicePtr::new(sections.prim_light_pdfs);
        self.vertices = DevicePtr::new(sections.vertices);
        self.vertex_uvs = DevicePtr::new(sections.vertex_uvs);
        self.triangle_tangents = DevicePtr::new(sections.triangle_tangents);
        self.triangle_corners = DevicePtr::new(sections.triangle_corners);
        self.textures = DevicePtr::new(sections.textures);
        self.texels = DevicePtr::new(sections.texels);
        self.noise = DevicePtr::new(sections.noise);
        self.env_texels = DevicePtr::new(sections.env_texels);
        self.env_sampling = DevicePtr::new(sections.env_sampling);
    }
}
