//! The film on the device: per-pixel sums of samples (`float4`, rgb + unused) that
//! the render kernel accumulates into, the AOV sums of a film that keeps them, and the
//! RGBA8 buffer the tonemap kernel fills. The kernel overwrites the sums when
//! `first_sample == 0` (kernels/film.cuh), so a fresh film that starts at a later
//! sample (a shard, one GPU's share) is cleared by the host first
//! (`CudaBackend::render_frame`). The denoiser's buffers ([`DenoiseBuffers`]) are made
//! at the first `denoise` of a film of this size.

use std::sync::Arc;

use anyhow::Context;
use cudarc::driver::{CudaSlice, CudaStream};

use crate::backend::FilmShape;

/// A `width × height` film in device memory.
pub struct DeviceFilm {
    pub shape: FilmShape,
    pub accum: CudaSlice<[f32; 4]>,
    /// Two `float4` per pixel (`denoise::AovSample`) when the film keeps AOVs.
    pub aov: Option<CudaSlice<[f32; 4]>>,
    pub rgba: CudaSlice<u8>,
    pub denoise: Option<DenoiseBuffers>,
    /// Whether `denoise.output` holds the film's current image, denoised.
    pub denoised: bool,
}

impl DeviceFilm {
    /// A black film with no samples, with AOV sums when `aovs`.
    pub fn new(stream: &Arc<CudaStream>, width: u32, height: u32, aovs: bool) -> anyhow::Result<DeviceFilm> {
        let pixels = width as usize * height as usize;
        let accum = stream
            .alloc_zeros::<[f32; 4]>(pixels)
            .with_context(|| format!("allocating a {width}x{height} film on the GPU"))?;
        let aov = if aovs {
            Some(
                stream
                    .alloc_zeros::<[f32; 4]>(2 * pixels)
                    .context("allocating the film's AOV sums on the GPU")?,
            )
        } else {
            None
        };
        let rgba = stream.alloc_zeros::<u8>(pixels * 4).context("allocating the RGBA8 output on the GPU")?;
        Ok(DeviceFilm {
            shape: FilmShape { width, height, samples: 0, end: 0 },
            accum,
            aov,
            rgba,
            denoise: None,
            denoised: false,
        })
    }
}

/// The denoiser's working images (kernels/denoise.cuh), one element per pixel.
pub struct DenoiseBuffers {
    /// Irradiance and variance, ping-pong between the passes.
    pub color: [CudaSlice<[f32; 4]>; 2],
    /// Unit normal and depth.
    pub guide: CudaSlice<[f32; 4]>,
    pub depth_gradient: CudaSlice<f32>,
    /// The albedo the last pass multiplies back.
    pub albedo: CudaSlice<[f32; 4]>,
    /// The denoised image (rgb, alpha 1).
    pub output: CudaSlice<[f32; 4]>,
}

impl DenoiseBuffers {
    pub fn new(stream: &Arc<CudaStream>, pixels: usize) -> anyhow::Result<DenoiseBuffers> {
        let image =
            || stream.alloc_zeros::<[f32; 4]>(pixels).context("allocating the denoiser's images on the GPU");
        Ok(DenoiseBuffers {
            color: [image()?, image()?],
            guide: image()?,
            depth_gradient: stream
                .alloc_zeros::<f32>(pixels)
                .context("allocating the denoiser's images on the GPU")?,
            albedo: image()?,
            output: image()?,
        })
    }
}
