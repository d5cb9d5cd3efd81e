//! The CPU backend's own copy of a scene: the blob's sections, copied on upload into
//! SIMD-friendly owned arrays (the `BlobView` only borrows, and a backend must own
//! its scene the way the GPU owns its device copy).
//!
//! Indices, order and values are the blob's; two things change shape. `float4`
//! lanes become `Vec3A`/`Vec4`, which load into one SSE register. And each inner
//! node's boxes stay the blob's three rows, one per axis ([`ChildBoxes`]): the CPU
//! slab test sorts planes with SIMD min/max over both children at once, so it needs
//! no mirrored, direction-ordered copy (the CUDA node repack builds one).

use glam::{Vec3A, Vec4};
use scene_compiler::BlobView;
use scene_compiler::blob::BlobEdit;
use scene_compiler::blob::layout::{GlobalsRecord, NodeBoxesRecord, PrimKind};

use super::environment::EnvMap;
use super::instances::CpuInstance;
use super::lights::{Light, Sun};
use super::material::{Alpha, Material};
use super::shapes::Shapes;
use super::textures::Textures;

/// An inner node's two child boxes, one axis per vector:
/// `(left.min, right.min, left.max, right.max)` of x, y and z.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChildBoxes {
    pub x: Vec4,
    pub y: Vec4,
    pub z: Vec4,
}

impl ChildBoxes {
    fn new(boxes: &NodeBoxesRecord) -> ChildBoxes {
        ChildBoxes {
            x: Vec4::from_array(boxes.x),
            y: Vec4::from_array(boxes.y),
            z: Vec4::from_array(boxes.z),
        }
    }
}

/// A scene ready for the CPU traversal.
#[derive(Clone, Debug)]
pub struct CpuScene {
    /// Every kind's shapes, in BVH leaf order.
    pub shapes: Shapes,
    /// The instances, in leaf order (their slots in the per-primitive arrays follow
    /// the triangles').
    pub instances: Vec<CpuInstance>,
    /// Per primitive, kinds one after another: its material id.
    pub prim_materials: Vec<u32>,
    /// Per primitive, same order: its index in the scene's list of its kind.
    pub prim_sources: Vec<u32>,
    /// Where each kind starts in `prim_materials` and `prim_sources`.
    pub kind_first: [u32; PrimKind::SLOTS],
    /// Per primitive, same order: the probability of picking its light (0: not a light).
    pub prim_light_pdfs: Vec<f32>,
    pub materials: Vec<Material>,
    pub textures: Textures,
    /// The lights next-event estimation picks from; empty when none has any power
    /// (then NEE is off and no extra random numbers are drawn).
    pub lights: Vec<Light>,
    /// The directional lights of `lights` with a disc, which escaping rays can see.
    pub suns: Vec<Sun>,
    /// Per inner node: its children's boxes.
    pub child_boxes: Vec<ChildBoxes>,
    /// Per inner node: its `(left, right)` child links exactly as in the blob.
    pub node_links: Vec<(u32, u32)>,
    /// The root link (`BlobView::root`).
    pub root: u32,
    pub sky_bottom: Vec3A,
    pub sky_top: Vec3A,
    /// The environment sky, when the scene has one (then it replaces the gradient).
    pub env: Option<EnvMap>,
    /// Whether a material cuts its surface out (`Alpha::Mask` or `Blend`): only then do
    /// the traversals test alpha at their hits.
    pub has_alpha: bool,
    /// The blob it was copied from, by its header: the CRC-32 of its payload and its
    /// length (what a [`BlobEdit`] names as `before`).
    stamp: (u32, u64),
}

impl CpuScene {
    /// Copies a validated blob. `BlobView::parse` checked every index, so the
    /// traversal indexes these arrays without further checks failing.
    pub fn from_blob(blob: &BlobView<'_>) -> CpuScene {
        let lane3 = |v: [f32; 4]| Vec3A::from_vec4(Vec4::from_array(v));
        let g: &GlobalsRecord = blob.globals;
        let materials: Vec<Material> = blob.materials.iter().map(Material::from_record).collect();
        let lights: Vec<Light> = if blob.has_light_power() {
            blob.lights.iter().map(Light::from_record).collect()
        } else {
            Vec::new()
        };
        CpuScene {
            suns: blob.suns().iter().map(Sun::from_disc).collect(),
            lights,
            has_alpha: materials.iter().any(|m| m.alpha_mode != Alpha::Opaque),
            materials,
            shapes: Shapes::from_blob(blob),
            instances: {
                let first = blob.header.kind_first()[PrimKind::Instance as usize] as usize;
                let records = blob.records::<scene_compiler::scene::Instance>();
                records
                    .iter()
                    .zip(&blob.prim_materials[first..])
                    .map(|(r, &m)| CpuInstance::from_record(r, m))
                    .collect()
            },
            prim_materials: blob.prim_materials.to_vec(),
            prim_sources: blob.prim_sources.to_vec(),
            kind_first: blob.header.kind_first(),
            prim_light_pdfs: blob.prim_light_pdfs.to_vec(),
            textures: Textures::from_blob(blob),
            child_boxes: blob.node_boxes.iter().map(ChildBoxes::new).collect(),
            node_links: blob.node_links.iter().map(|l| (l.left, l.right)).collect(),
            root: blob.root(),
            sky_bottom: lane3(g.sky_bottom),
            sky_top: lane3(g.sky_top),
            env: EnvMap::from_blob(blob),
            stamp: BlobEdit::stamp(blob.header),
        }
    }

    /// Brings the copy up to date with `blob`, an in-place edit (`edit`) of the blob it
    /// was copied from that moved instances: the instances and node boxes in the edited
    /// ranges are read again. False, changing nothing, when it was copied from another
    /// blob or the edit touches another section: then the caller copies it all.
    pub fn apply_edit(&mut self, blob: &BlobView<'_>, edit: &BlobEdit) -> bool {
        let moved = edit.moved_records(blob.header).filter(|_| self.stamp == edit.before);
        let Some(moved) = moved else { return false };
        let first = blob.header.kind_first()[PrimKind::Instance as usize] as usize;
        let placed = blob.records::<scene_compiler::scene::Instance>();
        for i in moved.instances.into_iter().flatten() {
            self.instances[i] = CpuInstance::from_record(&placed[i], blob.prim_materials[first + i]);
        }
        for i in moved.node_boxes.into_iter().flatten() {
            self.child_boxes[i] = ChildBoxes::new(&blob.node_boxes[i]);
        }
        self.stamp = BlobEdit::stamp(blob.header);
        true
    }
}
