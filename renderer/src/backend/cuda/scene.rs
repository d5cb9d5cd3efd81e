//! The scene on the device: the blob's payload (everything after the header) in one
//! allocation, filled by one host-to-device copy, the section addresses into it, and
//! the inner nodes in the form the kernels walk: repacked by `repack_nodes` into
//! one-cache-line `DeviceNode`s (kernels/device_nodes.cuh says why), or, for kernels
//! built with `PT_WIDE_BVH`, collapsed on the host into compressed 8-wide nodes
//! (`scene_compiler::bvh::wide`).

use std::ops::Range;
use std::sync::Arc;

use anyhow::Context;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, PushKernelArg};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{HEADER_LEN, NodeBoxesRecord, NodeLinksRecord, PrimKind, SectionId};
use scene_compiler::blob::{BlobEdit, SunDisc};
use scene_compiler::bvh::wide;

use super::module::KernelModule;
use super::params::{SectionPointers, film_launch};
use crate::backend::features;

/// A blob uploaded to the GPU.
pub struct DeviceScene {
    /// Owns the device memory the section pointers point into.
    payload: CudaSlice<u8>,
    /// Each triangle's corners (`LaunchParams::triangle_corners`); none without triangles.
    corners: Option<CudaSlice<u8>>,
    /// The inner nodes as the kernels walk them: repacked binary nodes,
    /// `KernelModule::node_bytes` each, or wide nodes (`wide` true).
    nodes: CudaSlice<u8>,
    wide: bool,
    node_count: u32,
    /// Device addresses of the blob's node_boxes and node_links sections.
    node_sections: (u64, u64),
    pub sections: SectionPointers,
    pub sky_bottom: [f32; 4],
    pub sky_top: [f32; 4],
    /// The environment's rotation (cos, sin) and light pick probability; `LaunchParams::env_rotation_pdf`.
    pub env_rotation_pdf: [f32; 4],
    /// The environment image's size, `BlobHeader::env_size`.
    pub env_size: [u32; 4],
    /// The root link the kernels start from: the blob's (`BlobView::root`), or the wide
    /// tree's.
    pub bvh_root: u32,
    /// The blob's root link, to build the other node form from after a kernel reload.
    binary_root: u32,
    /// Where each primitive kind starts in `prim_materials` (`BlobHeader::kind_first`).
    pub kind_first: [u32; PrimKind::USED],
    /// Lights NEE samples: the blob's count, or 0 when no light has power.
    pub light_count: u32,
    /// The directional lights with a disc (`BlobView::suns`).
    pub suns: Vec<SunDisc>,
    /// The kernel features the scene needs (`backend::features`): it runs a module
    /// compiled with exactly these.
    pub features: u32,
    /// The blob it holds, by its header: the CRC-32 of its payload and its length (what a
    /// [`BlobEdit`] names as `before`).
    stamp: (u32, u64),
}

/// Edited byte ranges closer than this are copied as one: a copy costs about as much
/// to start as this many bytes take to cross.
const JOIN_GAP: usize = 16 << 10;

impl DeviceScene {
    /// Copies `blob`'s payload to the device in one copy, then repacks its nodes.
    pub fn upload(
        stream: &Arc<CudaStream>,
        kernels: &KernelModule,
        blob: &BlobView<'_>,
    ) -> anyhow::Result<DeviceScene> {
        let payload = stream
            .clone_htod(blob.payload())
            .with_context(|| format!("copying the {}-byte scene to the GPU", blob.payload().len()))?;
        // Device allocations are 256-byte aligned and every section offset is 16-aligned
        // relative to the blob start, as is HEADER_LEN: each section pointer is 16-aligned.
        let (base, record) = payload.device_ptr(stream);
        let at = |id: SectionId| base + (blob.header.sections[id as usize].offset - HEADER_LEN as u64);
        let node_sections = (at(SectionId::NodeBoxes), at(SectionId::NodeLinks));
        let node_count = blob.header.node_count;
        let (nodes, bvh_root) = if kernels.wide_bvh {
            upload_wide(stream, blob.node_boxes, blob.node_links, blob.root())?
        } else {
            (repack_nodes(stream, kernels, node_sections, node_count)?, blob.root())
        };
        let triangles = blob.header.prim_count(PrimKind::Triangle);
        let corners = gather_corners(
            stream,
            kernels,
            triangles,
            at(PrimKind::Triangle.section()),
            at(SectionId::Vertices),
        )?;
        let sections = SectionPointers {
            prims: std::array::from_fn(|slot| {
                PrimKind::from_u32(slot as u32).map_or(0, |kind| at(kind.section()))
            }),
            prim_materials: at(SectionId::PrimMaterials),
            materials: at(SectionId::Materials),
            nodes: device_address(stream, &nodes),
            lights: at(SectionId::Lights),
            prim_light_pdfs: if blob.prim_light_pdfs.is_empty() { 0 } else { at(SectionId::PrimLightPdfs) },
            vertices: at(SectionId::Vertices),
            vertex_uvs: if blob.vertex_uvs.is_empty() { 0 } else { at(SectionId::VertexUvs) },
            triangle_tangents: if blob.triangle_tangents.is_empty() {
                0
            } else {
                at(SectionId::TriangleTangents)
            },
            textures: if blob.textures.is_empty() { 0 } else { at(SectionId::Textures) },
            texels: at(SectionId::Texels),
            noise: if blob.noise.is_empty() { 0 } else { at(SectionId::Noise) },
            env_texels: if blob.env_texels.is_empty() { 0 } else { at(SectionId::EnvTexels) },
            env_sampling: if blob.env_sampling.is_empty() { 0 } else { at(SectionId::EnvSampling) },
            triangle_corners: corners.as_ref().map_or(0, |c| device_address(stream, c)),
        };
        // Ends the borrow of `payload` (a no-op event record on our single stream).
        drop(record);
        Ok(DeviceScene {
            payload,
            corners,
            nodes,
            wide: kernels.wide_bvh,
            node_count,
            node_sections,
            sections,
            sky_bottom: blob.globals.sky_bottom,
            sky_top: blob.globals.sky_top,
            env_rotation_pdf: {
                let [cos, sin, ..] = blob.globals.env_rotation;
                [cos, sin, blob.env_light_pdf(), 0.0]
            },
            env_size: blob.header.env_size,
            bvh_root,
            binary_root: blob.root(),
            kind_first: {
                let all = blob.header.kind_first();
                std::array::from_fn(|kind| all[kind])
            },
            light_count: if blob.has_light_power() { blob.header.light_count } else { 0 },
            suns: blob.suns(),
            features: features::scene_features(blob),
            stamp: BlobEdit::stamp(blob.header),
        })
    }

    /// Brings the scene up to date with `blob`, an in-place edit (`edit`) of the blob it
    /// holds that moved instances: copies the edited bytes and repacks the nodes they
    /// touch, a few kilobytes for a moved instance of a million instead of the whole
    /// scene. `Ok(false)`, changing nothing, when it holds another blob, walks wide nodes
    /// (collapsed on the host from every node), or the edit touches a section besides
    /// the instances and the node boxes (whose device copies the upload derives, or
    /// keeps on the host): then the caller uploads it all.
    pub fn apply_edit(
        &mut self,
        stream: &Arc<CudaStream>,
        kernels: &KernelModule,
        blob: &BlobView<'_>,
        edit: &BlobEdit,
    ) -> anyhow::Result<bool> {
        let moved = edit.moved_records(blob.header).filter(|_| self.stamp == edit.before && !self.wide);
        let Some(moved) = moved else { return Ok(false) };
        // The bytes between two ranges are as the device holds them: copied again, harmless.
        let mut joined: Vec<Range<usize>> = Vec::new();
        for range in &edit.ranges {
            match joined.last_mut() {
                Some(last) if range.start <= last.end + JOIN_GAP => last.end = range.end,
                _ => joined.push(range.clone()),
            }
        }
        let payload = blob.payload();
        for range in &joined {
            let at = range.start - HEADER_LEN..range.end - HEADER_LEN;
            stream
                .memcpy_htod(&payload[at.clone()], &mut self.payload.slice_mut(at))
                .with_context(|| format!("copying {} edited bytes of the scene to the GPU", range.len()))?;
        }
        let first = moved.node_boxes.iter().map(|r| r.start).min();
        let end = moved.node_boxes.iter().map(|r| r.end).max();
        if let (Some(first), Some(end)) = (first, end) {
            let count = (end - first) as u32;
            let (b, l) = self.node_sections;
            let at = (
                b + (first * size_of::<NodeBoxesRecord>()) as u64,
                l + (first * size_of::<NodeLinksRecord>()) as u64,
            );
            let nodes = device_address(stream, &self.nodes) + (first * kernels.node_bytes) as u64;
            launch_repack(stream, kernels, at, nodes, count)?;
        }
        self.stamp = BlobEdit::stamp(blob.header);
        Ok(true)
    }

    /// Device memory it holds: the payload, the repacked nodes and the gathered corners.
    pub fn bytes(&self) -> u64 {
        (self.payload.len() + self.nodes.len() + self.corners.as_ref().map_or(0, |c| c.len())) as u64
    }

    /// The scene with its nodes rebuilt for `kernels`, for after a kernel reload, whose
    /// DeviceNode or node form may differ (wide nodes come from Rust's one layout and
    /// are kept as they are). On error the scene is gone: its old nodes were freed
    /// first, because both may not fit at once.
    pub fn with_kernels(
        mut self,
        stream: &Arc<CudaStream>,
        kernels: &KernelModule,
    ) -> anyhow::Result<DeviceScene> {
        if self.wide && kernels.wide_bvh {
            return Ok(self);
        }
        drop(self.nodes);
        if kernels.wide_bvh {
            // The blob is not kept on the host: its binary nodes come back from the device.
            let count = self.node_count as usize;
            let boxes: Vec<NodeBoxesRecord> =
                read_records(stream, &self.payload, self.node_sections.0, count)?;
            let links: Vec<NodeLinksRecord> =
                read_records(stream, &self.payload, self.node_sections.1, count)?;
            (self.nodes, self.bvh_root) = upload_wide(stream, &boxes, &links, self.binary_root)?;
        } else {
            self.nodes = repack_nodes(stream, kernels, self.node_sections, self.node_count)?;
            self.bvh_root = self.binary_root;
        }
        self.wide = kernels.wide_bvh;
        self.sections.nodes = device_address(stream, &self.nodes);
        Ok(self)
    }
}

/// The kernel's nodes built from the blob's node sections (device addresses of
/// node_boxes and node_links, `count` records each) with `kernels`' repack_nodes.
/// One unused record when the root is a leaf, so the allocation is never empty.
fn repack_nodes(
    stream: &Arc<CudaStream>,
    kernels: &KernelModule,
    (boxes, links): (u64, u64),
    count: u32,
) -> anyhow::Result<CudaSlice<u8>> {
    let bytes = kernels.node_bytes * count.max(1) as usize;
    let nodes = stream
        .alloc_zeros::<u8>(bytes)
        .with_context(|| format!("allocating {bytes} bytes of BVH nodes on the GPU"))?;
    if count > 0 {
        launch_repack(stream, kernels, (boxes, links), device_address(stream, &nodes), count)?;
    }
    Ok(nodes)
}

/// Launches `kernels`' repack_nodes on `count` records from the device addresses of
/// node boxes and links into the kernel's nodes at `nodes`; the caller answers for
/// the `count` records at each address.
fn launch_repack(
    stream: &Arc<CudaStream>,
    kernels: &KernelModule,
    (boxes, links): (u64, u64),
    nodes: u64,
    count: u32,
) -> anyhow::Result<()> {
    let mut launch = stream.launch_builder(&kernels.repack_nodes);
    launch.arg(&boxes).arg(&links).arg(&nodes).arg(&count);
    // SAFETY: repack_nodes(const NodeBoxesRecord*, const NodeLinksRecord*, DeviceNode*,
    // unsigned count): the callers pass `count` records of each section (BlobView::parse
    // checked their lengths) and room for `count` nodes of node_bytes at `nodes`.
    unsafe { launch.launch(film_launch(count)) }.context("launching repack_nodes")?;
    Ok(())
}

/// Each of the `count` triangles' three corners as three float4 rows, gathered on the
/// device from the triangle records and the vertices (device addresses of the two
/// sections) by `gather_corners`; none when the blob has no triangles. The blob keeps
/// each vertex once (12-byte triangles that index them); the hit test, which needs the
/// positions only, reads one 48-byte record instead of the indices and then three
/// vertices (docs/performance.md, "Corners gathered at upload").
fn gather_corners(
    stream: &Arc<CudaStream>,
    kernels: &KernelModule,
    count: u32,
    triangles: u64,
    vertices: u64,
) -> anyhow::Result<Option<CudaSlice<u8>>> {
    if count == 0 {
        return Ok(None);
    }
    let bytes = 3 * size_of::<[f32; 4]>() * count as usize;
    let mut corners = stream
        .alloc_zeros::<u8>(bytes)
        .with_context(|| format!("allocating {bytes} bytes of triangle corners on the GPU"))?;
    let mut launch = stream.launch_builder(&kernels.gather_corners);
    launch.arg(&triangles).arg(&vertices).arg(&mut corners).arg(&count);
    // SAFETY: gather_corners(const TriangleRecord*, const float4*, float4*, unsigned count):
    // the triangle section holds `count` records whose indices name vertices of the
    // vertices section (BlobView::parse checked both), and `corners` has room for
    // 3 * count float4s.
    unsafe { launch.launch(film_launch(count)) }.context("launching gather_corners")?;
    Ok(Some(corners))
}

/// The blob's binary trees (the world's and the instances' bottom levels) collapsed
/// into wide nodes and copied to the device, with the root link the kernels start
/// from. Each tree's wide root keeps its binary root's index (`wide::collapse_levels`),
/// so instance records need no change. One unused record when the root is a leaf, so
/// the allocation is never empty.
fn upload_wide(
    stream: &Arc<CudaStream>,
    boxes: &[NodeBoxesRecord],
    links: &[NodeLinksRecord],
    root: u32,
) -> anyhow::Result<(CudaSlice<u8>, u32)> {
    let mut tree = wide::collapse_levels(boxes, links, root)
        .map_err(|problem| anyhow::anyhow!("PT_WIDE_BVH=1 cannot walk this blob: {problem}"))?;
    if tree.nodes.is_empty() {
        tree.nodes.push(wide::WideNodeRecord::default());
    }
    let bytes: &[u8] = bytemuck::cast_slice(&tree.nodes);
    let nodes = stream
        .clone_htod(bytes)
        .with_context(|| format!("copying {} bytes of wide BVH nodes to the GPU", bytes.len()))?;
    Ok((nodes, tree.root))
}

/// `count` records of `T` at device address `at` inside `payload`, copied back.
fn read_records<T: bytemuck::Pod>(
    stream: &Arc<CudaStream>,
    payload: &CudaSlice<u8>,
    at: u64,
    count: usize,
) -> anyhow::Result<Vec<T>> {
    let start = (at - device_address(stream, payload)) as usize;
    let bytes = stream
        .clone_dtoh(&payload.slice(start..start + count * size_of::<T>()))
        .context("reading the BVH nodes back from the GPU")?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// The device address of `slice`.
fn device_address(stream: &Arc<CudaStream>, slice: &CudaSlice<u8>) -> u64 {
    // The event record only ends the borrow (a no-op on our single stream).
    let (address, _record) = slice.device_ptr(stream);
    address
}
