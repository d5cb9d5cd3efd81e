//! The CPU backend's own copy of a scene: the blob's sections, copied on upload into
//! SIMD-friendly owned arrays (the `BlobView` only borrows, and a backend must own
//! its scene the way the GPU owns its device copy).
//!
//! Indices, order and values are the blob's; two things change shape. `float4`
//! lanes become `Vec3A`/`Vec4`, which load into one SSE register. And each inner
//! node carries its two children's boxes side by side ([`ChildBoxes`], the layout
//! tinybvh calls `BVH_GPU`), so one node visit slab-tests both children in the same
//! SSE instructions; in the blob each box sits with its own node.

use glam::{Vec3A, Vec4};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{GlobalsRecord, LEAF_FLAG, MaterialRecord, NodeBoundsRecord};

/// An inner node's two child boxes, one axis per vector:
/// `(left.min, right.min, left.max, right.max)` of x, y and z.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChildBoxes {
    pub x: Vec4,
    pub y: Vec4,
    pub z: Vec4,
}

impl ChildBoxes {
    fn new(left: &NodeBoundsRecord, right: &NodeBoundsRecord) -> ChildBoxes {
        let axis = |a: usize| Vec4::new(left.min[a], right.min[a], left.max[a], right.max[a]);
        ChildBoxes { x: axis(0), y: axis(1), z: axis(2) }
    }
}

/// A material in the blob's branchless form.
#[derive(Clone, Copy, Debug)]
pub struct Material {
    pub albedo: Vec3A,
    pub fuzz: f32,
    /// Lambert weight, then the cumulative thresholds of metal and dielectric.
    pub lambert_below: f32,
    pub metal_below: f32,
    pub dielectric_below: f32,
    pub ior: f32,
    pub emission: Vec3A,
}

impl Material {
    fn from_record(m: &MaterialRecord) -> Material {
        let [r, g, b, fuzz] = m.albedo_fuzz;
        let [wl, wm, wd, ior] = m.weights_ior;
        let [er, eg, eb, _] = m.emission;
        Material {
            albedo: Vec3A::new(r, g, b),
            fuzz,
            // Summed in the spec's order (wl, wl + wm, wl + wm + wd) so the lobe
            // thresholds round exactly as the kernel's do.
            lambert_below: wl,
            metal_below: wl + wm,
            dielectric_below: wl + wm + wd,
            ior,
            emission: Vec3A::new(er, eg, eb),
        }
    }
}

/// A scene ready for the CPU traversal.
#[derive(Clone, Debug)]
pub struct CpuScene {
    /// center.xyz, radius; in BVH leaf order.
    pub spheres: Vec<Vec4>,
    pub sphere_materials: Vec<u32>,
    pub materials: Vec<Material>,
    /// Per node: its children's boxes (unused zeros for leaves).
    pub child_boxes: Vec<ChildBoxes>,
    /// `(left_or_first, right_or_count)` exactly as in the blob (`LEAF_FLAG` marks leaves).
    pub node_links: Vec<(u32, u32)>,
    pub sky_bottom: Vec3A,
    pub sky_top: Vec3A,
}

impl CpuScene {
    /// Copies a validated blob. `BlobView::parse` checked every index, so the
    /// traversal indexes these arrays without further checks failing.
    pub fn from_blob(blob: &BlobView<'_>) -> CpuScene {
        let lane3 = |v: [f32; 4]| Vec3A::from_vec4(Vec4::from_array(v));
        let g: &GlobalsRecord = blob.globals;
        CpuScene {
            spheres: blob.spheres.iter().map(|s| Vec4::from_array(s.center_radius)).collect(),
            sphere_materials: blob.sphere_materials.to_vec(),
            materials: blob.materials.iter().map(Material::from_record).collect(),
            child_boxes: blob
                .node_links
                .iter()
                .map(|l| match is_leaf(l.right_or_count) {
                    true => ChildBoxes::default(),
                    false => ChildBoxes::new(
                        &blob.node_bounds[l.left_or_first as usize],
                        &blob.node_bounds[l.right_or_count as usize],
                    ),
                })
                .collect(),
            node_links: blob.node_links.iter().map(|l| (l.left_or_first, l.right_or_count)).collect(),
            sky_bottom: lane3(g.sky_bottom),
            sky_top: lane3(g.sky_top),
        }
    }
}

/// True when a node's second link holds a leaf's sphere count.
#[inline(always)]
pub fn is_leaf(right_or_count: u32) -> bool {
    right_or_count & LEAF_FLAG != 0
}

/// A leaf's sphere count.
#[inline(always)]
pub fn leaf_count(right_or_count: u32) -> u32 {
    right_or_count & !LEAF_FLAG
}
