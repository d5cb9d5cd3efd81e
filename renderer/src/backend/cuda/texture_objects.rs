//! Experiment (issue 26): the image textures as CUDA texture objects, for kernels built
//! with `PT_TEXTURE_OBJECTS` (kernels/texture_objects.cuh says what they do with them).
//! Made at upload only when the module says `texture_objects_enabled`; otherwise the
//! kernels read the blob's texels with plain loads and nothing here runs.
//!
//! One CUDA array of float4 texels per distinct image (records naming the same texels
//! share it) and one texture object per image record: normalized coordinates, linear
//! filtering, the record's wrap mode on both axes. Their handles go to the device as a
//! `u64` per texture record (0 for checker and noise), which the kernel indexes by
//! record; the launch writes the table's address into the module's `texture_objects`.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context;
use cudarc::driver::sys::{
    self, CUDA_ARRAY_DESCRIPTOR, CUDA_MEMCPY2D, CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC, CUaddress_mode,
    CUarray, CUarray_format, CUfilter_mode, CUmemorytype, CUresourcetype, CUtexObject,
};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::{TEXTURE_IMAGE, WRAP_CLAMP};

/// Bytes of one texel (float4).
const TEXEL_BYTES: usize = 16;

/// The texture objects of one uploaded scene, destroyed with it.
pub struct TextureObjects {
    /// Kept so the context outlives the arrays and objects it holds.
    ctx: Arc<CudaContext>,
    arrays: Vec<CUarray>,
    objects: Vec<CUtexObject>,
    /// By texture record index: the object's handle, or 0.
    pub table: CudaSlice<u64>,
    /// Device memory of the arrays.
    pub bytes: u64,
}

// SAFETY: the arrays and texture objects are driver handles of `ctx`, usable from any
// thread that binds it (every use here binds it first), as cudarc's own handles are.
unsafe impl Send for TextureObjects {}

impl TextureObjects {
    /// Arrays and texture objects for `blob`'s image textures.
    pub fn upload(stream: &Arc<CudaStream>, blob: &BlobView<'_>) -> anyhow::Result<TextureObjects> {
        let ctx = Arc::clone(stream.context());
        ctx.bind_to_thread().context("binding the CUDA context for texture objects")?;
        let mut made = TextureObjects {
            ctx,
            arrays: Vec::new(),
            objects: Vec::new(),
            // Never empty: a scene without textures still gets a valid (unused) address.
            table: stream
                .alloc_zeros::<u64>(blob.textures.len().max(1))
                .context("allocating texture objects")?,
            bytes: 0,
        };
        let mut handles = vec![0u64; blob.textures.len().max(1)];
        let mut arrays: HashMap<(u32, u32, u32), CUarray> = HashMap::new();
        for (record, handle) in blob.textures.iter().zip(&mut handles) {
            if record.kind != TEXTURE_IMAGE {
                continue;
            }
            let [first, width, height, wrap] = record.image;
            let array = match arrays.get(&(first, width, height)) {
                Some(&array) => array,
                None => {
                    let texels = &blob.texels[first as usize..(first + width * height) as usize];
                    let array = made.array(texels, width, height)?;
                    arrays.insert((first, width, height), array);
                    array
                }
            };
            *handle = made.object(array, wrap == WRAP_CLAMP)?;
        }
        stream.memcpy_htod(&handles, &mut made.table).context("copying texture objects to the GPU")?;
        Ok(made)
    }

    /// The device address of the handle table.
    pub fn table_address(&self, stream: &Arc<CudaStream>) -> u64 {
        let (address, _record) = self.table.device_ptr(stream);
        address
    }

    /// A `width` x `height` float4 CUDA array holding `texels` (row 0 the top row).
    fn array(&mut self, texels: &[[f32; 4]], width: u32, height: u32) -> anyhow::Result<CUarray> {
        let descriptor = CUDA_ARRAY_DESCRIPTOR {
            Width: width as usize,
            Height: height as usize,
            Format: CUarray_format::CU_AD_FORMAT_FLOAT,
            NumChannels: 4,
        };
        let mut array: CUarray = std::ptr::null_mut();
        // SAFETY: valid out-pointer and descriptor; the context is bound to this thread.
        unsafe { sys::cuArrayCreate_v2(&mut array, &descriptor) }
            .result()
            .with_context(|| format!("cuArrayCreate of a {width} x {height} float4 texture"))?;
        self.arrays.push(array);
        let row = width as usize * TEXEL_BYTES;
        // Every field spelled out: its memory-type enums have no zero value, so a zeroed
        // CUDA_MEMCPY2D is invalid (Rust aborts on `mem::zeroed` of one).
        let copy = CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: CUmemorytype::CU_MEMORYTYPE_HOST,
            srcHost: texels.as_ptr().cast(),
            srcDevice: 0,
            srcArray: std::ptr::null_mut(),
            srcPitch: row,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: CUmemorytype::CU_MEMORYTYPE_ARRAY,
            dstHost: std::ptr::null_mut(),
            dstDevice: 0,
            dstArray: array,
            dstPitch: 0,
            WidthInBytes: row,
            Height: height as usize,
        };
        // SAFETY: `texels` holds width * height float4s (the caller sliced them), the array
        // was just made with that size; a synchronous copy from pageable memory.
        unsafe { sys::cuMemcpy2D_v2(&copy) }.result().context("cuMemcpy2D of texels into a CUDA array")?;
        self.bytes += (row * height as usize) as u64;
        Ok(array)
    }

    /// A texture object on `array`: normalized coordinates, bilinear, wrap or clamp.
    fn object(&mut self, array: CUarray, clamp: bool) -> anyhow::Result<u64> {
        // SAFETY: all-zero is a valid resource description to fill in.
        let mut resource: CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        resource.resType = CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
        resource.res.array.hArray = array;
        let mode = if clamp {
            CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP
        } else {
            CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP
        };
        // SAFETY: all-zero is a valid texture description (no mipmaps, no anisotropy).
        let mut texture: CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
        texture.addressMode = [mode; 3];
        texture.filterMode = CUfilter_mode::CU_TR_FILTER_MODE_LINEAR;
        texture.flags = sys::CU_TRSF_NORMALIZED_COORDINATES;
        let mut object: CUtexObject = 0;
        // SAFETY: valid out-pointer and descriptions, a live array; no view description.
        unsafe { sys::cuTexObjectCreate(&mut object, &resource, &texture, std::ptr::null()) }
            .result()
            .context("cuTexObjectCreate")?;
        self.objects.push(object);
        Ok(object)
    }
}

impl Drop for TextureObjects {
    fn drop(&mut self) {
        // Best effort: a context that cannot be bound any more has freed them already.
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        for &object in &self.objects {
            // SAFETY: made by cuTexObjectCreate, destroyed once.
            let _ = unsafe { sys::cuTexObjectDestroy(object) };
        }
        for &array in &self.arrays {
            // SAFETY: made by cuArrayCreate, destroyed once, after the objects reading it.
            let _ = unsafe { sys::cuArrayDestroy(array) };
        }
    }
}
