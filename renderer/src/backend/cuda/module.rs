//! The kernel module on a device: found in the disk cache or compiled with NVRTC,
//! then loaded into the context, with the resources the driver gave each kernel.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use cudarc::driver::sys::CUfunction_attribute_enum as Attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;

use super::cache::{self, CacheKey};
use super::nvrtc::Nvrtc;
use super::options::KernelOptions;
use super::sources::KernelSources;
use crate::backend::features::Variant;
use crate::backend::{KernelCompile, KernelResources};

/// The loaded module and the kernels the backend launches.
pub struct KernelModule {
    pub module: Arc<CudaModule>,
    /// The scene features and the sampler compiled in (`backend::features::Variant`).
    pub variant: Variant,
    /// The path tracer without next-event estimation (no lights, or `--no-nee`).
    pub render: CudaFunction,
    /// The path tracer with next-event estimation (kernels/path.cuh says why two).
    pub render_lit: CudaFunction,
    pub tonemap: CudaFunction,
    pub denoise_prepare: CudaFunction,
    pub denoise_clamp: CudaFunction,
    pub denoise_atrous: CudaFunction,
    pub rng_probe: CudaFunction,
    pub sobol_probe: CudaFunction,
    pub repack_nodes: CudaFunction,
    /// Gathers each triangle's corners for the hit test (`LaunchParams::triangle_corners`).
    pub gather_corners: CudaFunction,
    /// `sizeof(DeviceNode)`, read from the module (kernels/device_nodes.cuh).
    pub node_bytes: usize,
    /// Whether the kernels walk wide nodes (`device_wide_bvh`, kernels/device_nodes.cuh).
    pub wide_bvh: bool,
    pub compile: KernelCompile,
    /// NVRTC's log of the compile (ptxas registers and spills), cached with the CUBIN.
    pub log: String,
}

impl KernelModule {
    /// Compiles `sources` for `arch` as `variant` (or takes them from the cache) and
    /// loads them into `ctx`.
    pub fn load(
        ctx: &Arc<CudaContext>,
        sources: &KernelSources,
        options: &KernelOptions,
        arch: &str,
        variant: Variant,
    ) -> anyhow::Result<KernelModule> {
        let start = Instant::now();
        let nvrtc = Nvrtc::load()?;
        let args = options.nvrtc_args(arch, variant);
        let key = CacheKey::new(sources, &args, nvrtc.version(), driver_version()?);
        let cached = options.cache_dir.as_deref().and_then(|dir| cache::load(dir, &key));
        // A cached file the driver refuses (truncated, or from another driver) is compiled again.
        if let Some((image, log)) = cached
            && let Ok(module) = ctx.load_module(Ptx::from_binary(image))
        {
            return KernelModule::new(
                ctx,
                module,
                variant,
                KernelCompile { time: start.elapsed(), cached: true },
                log,
            );
        }
        let cubin = nvrtc.compile(sources, &args)?;
        if let Some(dir) = &options.cache_dir {
            // Best effort: an unwritable cache only costs the next start a compile.
            let _ = cache::store(dir, &key, &cubin.image, &cubin.log);
        }
        let module = ctx
            .load_module(Ptx::from_binary(cubin.image))
            .with_context(|| format!("the CUDA driver did not load the kernels NVRTC compiled for {arch}"))?;
        KernelModule::new(
            ctx,
            module,
            variant,
            KernelCompile { time: start.elapsed(), cached: false },
            cubin.log,
        )
    }

    fn new(
        ctx: &Arc<CudaContext>,
        module: Arc<CudaModule>,
        variant: Variant,
        compile: KernelCompile,
        log: String,
    ) -> anyhow::Result<KernelModule> {
        let stream = ctx.default_stream();
        let constant = |name: &str| -> anyhow::Result<u32> {
            let symbol = module
                .get_global(name, &stream)
                .with_context(|| format!("finding `{name}` in the kernels"))?;
            let bytes = stream.clone_dtoh(&symbol).with_context(|| format!("reading `{name}`"))?;
            <[u8; 4]>::try_from(bytes.as_slice())
                .map(u32::from_le_bytes)
                .ok()
                .with_context(|| format!("`{name}` must be a 4-byte unsigned int, found {bytes:?}"))
        };
        let node_bytes = constant("device_node_bytes")?;
        anyhow::ensure!(node_bytes > 0, "`device_node_bytes` must be > 0");
        let wide_bvh = constant("device_wide_bvh")? != 0;
        let function = |name: &str| {
            module.load_function(name).with_context(|| format!("kernel `{name}` not in the module"))
        };
        Ok(KernelModule {
            variant,
            render: function("render")?,
            render_lit: function("render_lit")?,
            tonemap: function("tonemap")?,
            denoise_prepare: function("denoise_prepare")?,
            denoise_clamp: function("denoise_clamp")?,
            denoise_atrous: function("denoise_atrous")?,
            rng_probe: function("rng_probe")?,
            sobol_probe: function("sobol_probe")?,
            repack_nodes: function("repack_nodes")?,
            gather_corners: function("gather_corners")?,
            node_bytes: node_bytes as usize,
            wide_bvh,
            module,
            compile,
            log,
        })
    }

    /// The resources of the render kernel (blocks of `render_block_threads`) and of tonemap.
    pub fn resources(
        &self,
        render_block_threads: u32,
        film_block_threads: u32,
    ) -> anyhow::Result<Vec<KernelResources>> {
        let query =
            |kernel: &'static str, f: &CudaFunction, block_threads: u32| -> anyhow::Result<KernelResources> {
                let attribute = |a: Attribute| -> anyhow::Result<u32> {
                    Ok(f.get_attribute(a)
                        .with_context(|| format!("cuFuncGetAttribute({a:?}) of `{kernel}`"))?
                        as u32)
                };
                Ok(KernelResources {
                    kernel,
                    registers: attribute(Attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
                    local_bytes: attribute(Attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
                    shared_bytes: attribute(Attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
                    const_bytes: attribute(Attribute::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?,
                    block_threads,
                    blocks_per_sm: f
                        .occupancy_max_active_blocks_per_multiprocessor(block_threads, 0, None)
                        .with_context(|| format!("occupancy of `{kernel}`"))?,
                })
            };
        Ok(vec![
            query("render", &self.render, render_block_threads)?,
            query("render_lit", &self.render_lit, render_block_threads)?,
            query("tonemap", &self.tonemap, film_block_threads)?,
        ])
    }
}

/// The driver's CUDA version, e.g. 13000 for 13.0 (cuDriverGetVersion).
pub fn driver_version() -> anyhow::Result<i32> {
    let mut version = 0;
    // SAFETY: a valid out-pointer; the driver library is loaded (the caller holds a context).
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
        .result()
        .context("cuDriverGetVersion")?;
    Ok(version)
}
