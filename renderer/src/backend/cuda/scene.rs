//! The scene on the device: the blob's payload (everything after the header) in one
//! allocation, filled by one host-to-device copy, and the section addresses into it.

use std::sync::Arc;

use anyhow::Context;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{HEADER_LEN, SectionId};

use super::params::SectionPointers;

/// A blob uploaded to the GPU.
pub struct DeviceScene {
    /// Owns the device memory the pointers point into.
    _payload: CudaSlice<u8>,
    pub sections: SectionPointers,
    pub sky_bottom: [f32; 4],
    pub sky_top: [f32; 4],
    /// The BVH's root link (`BlobView::root`).
    pub bvh_root: u32,
}

impl DeviceScene {
    /// Copies `blob`'s payload to the device in one copy.
    pub fn upload(stream: &Arc<CudaStream>, blob: &BlobView<'_>) -> anyhow::Result<DeviceScene> {
        let payload = stream
            .clone_htod(blob.payload())
            .with_context(|| format!("copying the {}-byte scene to the GPU", blob.payload().len()))?;
        let (base, record) = payload.device_ptr(stream);
        // Device allocations are 256-byte aligned and every section offset is 16-aligned
        // relative to the blob start, as is HEADER_LEN: each section pointer is 16-aligned.
        let at = |id: SectionId| base + (blob.header.sections[id as usize].offset - HEADER_LEN as u64);
        let sections = SectionPointers {
            spheres: at(SectionId::Spheres),
            sphere_materials: at(SectionId::SphereMaterials),
            materials: at(SectionId::Materials),
            node_boxes: at(SectionId::NodeBoxes),
            node_links: at(SectionId::NodeLinks),
        };
        // Ends the borrow of `payload` (a no-op event record on our single stream).
        drop(record);
        Ok(DeviceScene {
            _payload: payload,
            sections,
            sky_bottom: blob.globals.sky_bottom,
            sky_top: blob.globals.sky_top,
            bvh_root: blob.root(),
        })
    }
}
