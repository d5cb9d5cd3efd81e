//! The film on the device: per-pixel sums of samples (`float4`, rgb + unused) that
//! the render kernel accumulates into, and the RGBA8 buffer the tonemap kernel fills.
//! The kernel overwrites the sums when `first_sample == 0` (kernels/film.cuh), so a
//! fresh film that starts at a later sample (a shard, one GPU's share) is cleared by
//! the host first (`CudaBackend::render_frame`).

use std::sync::Arc;

use anyhow::Context;
use cudarc::driver::{CudaSlice, CudaStream};

use crate::backend::FilmShape;

/// A `width × height` film in device memory.
pub struct DeviceFilm {
    pub shape: FilmShape,
    pub accum: CudaSlice<[f32; 4]>,
    pub rgba: CudaSlice<u8>,
}

impl DeviceFilm {
    /// A black film with no samples.
    pub fn new(stream: &Arc<CudaStream>, width: u32, height: u32) -> anyhow::Result<DeviceFilm> {
        let pixels = width as usize * height as usize;
        let accum = stream
            .alloc_zeros::<[f32; 4]>(pixels)
            .with_context(|| format!("allocating a {width}x{height} film on the GPU"))?;
        let rgba = stream.alloc_zeros::<u8>(pixels * 4).context("allocating the RGBA8 output on the GPU")?;
        Ok(DeviceFilm { shape: FilmShape { width, height, samples: 0, end: 0 }, accum, rgba })
    }
}
