//! How the kernels are built and launched: NVRTC flags, the render block shape, the
//! kernels' compile-time switches and the compiled-kernel cache folder.
//!
//! The environment can change all but the flags, so a kernel variant can be measured
//! on a GPU machine that has no Rust toolchain:
//! `RENDERER_CUDA_BLOCK=16x8`, `RENDERER_KERNEL_DEFINES="PT_PATH_REGENERATION=1"`,
//! `RENDERER_KERNEL_CACHE=<dir>|off`.

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::backend::features::Variant;

/// Env var: render block shape, `<width>x<height>` threads.
pub const BLOCK_ENV: &str = "RENDERER_CUDA_BLOCK";
/// Env var: extra `-D` defines for the kernels, `NAME` or `NAME=VALUE`, space or comma separated.
pub const DEFINES_ENV: &str = "RENDERER_KERNEL_DEFINES";
/// Env var: the compiled-kernel cache folder, or `off`.
pub const CACHE_ENV: &str = "RENDERER_KERNEL_CACHE";

/// Render block shape (threads): 16x8 pixels keep a warp on a 16x2 tile, whose camera
/// rays take similar BVH paths; 8x8, 8x4 and 16x4 were slower (docs/performance.md,
/// "Choices in the code").
pub const DEFAULT_BLOCK: (u32, u32) = (16, 8);

/// Build and launch options of the CUDA kernels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelOptions {
    /// Render block shape (width, height) in threads; a multiple of 32 threads in all.
    pub block: (u32, u32),
    /// Extra preprocessor defines (`NAME` or `NAME=VALUE`); see kernels/render.cu.
    pub defines: Vec<String>,
    /// Where compiled kernels are cached; `None` compiles at every start.
    pub cache_dir: Option<PathBuf>,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions { block: DEFAULT_BLOCK, defines: Vec::new(), cache_dir: default_cache_dir() }
    }
}

impl KernelOptions {
    /// The defaults, changed by `RENDERER_CUDA_BLOCK`, `RENDERER_KERNEL_DEFINES` and
    /// `RENDERER_KERNEL_CACHE` where set.
    pub fn from_env() -> anyhow::Result<KernelOptions> {
        let mut options = KernelOptions::default();
        if let Ok(block) = std::env::var(BLOCK_ENV) {
            options.block = parse_block(&block).with_context(|| format!("{BLOCK_ENV}={block}"))?;
        }
        if let Ok(defines) = std::env::var(DEFINES_ENV) {
            options.defines =
                defines.split([' ', ',']).filter(|d| !d.is_empty()).map(str::to_owned).collect();
        }
        if let Some(dir) = std::env::var_os(CACHE_ENV) {
            options.cache_dir = if dir == "off" { None } else { Some(PathBuf::from(dir)) };
        }
        options.validate()?;
        Ok(options)
    }

    /// Checks the block shape and the define syntax.
    pub fn validate(&self) -> anyhow::Result<()> {
        let (w, h) = self.block;
        let threads = w * h;
        if w == 0 || h == 0 || threads % 32 != 0 || threads > 1024 {
            bail!("render block {w}x{h}: needs a multiple of 32 threads, at most 1024");
        }
        for define in &self.defines {
            let name = define.split_once('=').map_or(define.as_str(), |(name, _)| name);
            let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                bail!("kernel define `{define}` is not NAME or NAME=VALUE");
            }
        }
        Ok(())
    }

    /// The NVRTC command line for GPU architecture `arch` (`sm_90`).
    /// `variant`: the scene features and the sampler to compile in (`backend::features`).
    pub fn nvrtc_args(&self, arch: &str, variant: Variant) -> Vec<String> {
        let mut args = vec![
            // A real architecture: NVRTC emits CUBIN (SASS), which loads without a JIT
            // step and does not depend on the driver accepting NVRTC's PTX version.
            format!("--gpu-architecture={arch}"),
            "--std=c++17".to_owned(),
            // Approximate division, sqrt, rsqrt and sincos, flush-to-zero denormals. A
            // path tracer averages noisy samples: errors of a few ulp (sincos ~1e-6
            // absolute) are far below the noise at any sample count, and the faster
            // instructions matter in the bounce loop. tests/gpu/vs_cpu.rs holds the
            // result to the CPU backend's exact math.
            "--use_fast_math".to_owned(),
            "-default-device".to_owned(),
            // Source lines for Nsight Compute and compute-sanitizer reports; no speed cost.
            "-lineinfo".to_owned(),
            // Registers and spills per kernel in the log (`CudaBackend::compile_log`).
            "--ptxas-options=-v".to_owned(),
            format!("-DPT_BLOCK_W={}", self.block.0),
            format!("-DPT_BLOCK_H={}", self.block.1),
        ];
        args.extend(variant.defines());
        args.extend(self.defines.iter().map(|d| format!("-D{d}")));
        args
    }
}

/// `$XDG_CACHE_HOME/renderer/kernels`, else `~/.cache/renderer/kernels`.
fn default_cache_dir() -> Option<PathBuf> {
    let base =
        std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|home| PathBuf::from(home).join(".cache"))
        })?;
    Some(base.join("renderer").join("kernels"))
}

fn parse_block(text: &str) -> anyhow::Result<(u32, u32)> {
    let (w, h) = text.split_once('x').context("expected <width>x<height>, e.g. 16x8")?;
    Ok((w.trim().parse().context("block width")?, h.trim().parse().context("block height")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_and_defines_are_checked() {
        assert_eq!(parse_block("16x8").unwrap(), (16, 8));
        assert!(parse_block("16").is_err());
        let mut options = KernelOptions { block: (8, 2), defines: vec![], cache_dir: None };
        assert!(options.validate().is_err(), "16 threads is not a whole warp");
        options.block = (16, 8);
        options.defines = vec!["PT_PATH_REGENERATION=1".into(), "X".into()];
        options.validate().unwrap();
        options.defines = vec!["-O0".into()];
        assert!(options.validate().is_err());
    }

    #[test]
    fn args_carry_the_block_and_defines() {
        let options = KernelOptions { block: (16, 8), defines: vec!["A=1".into()], cache_dir: None };
        let args = options.nvrtc_args("sm_86", Variant::of_features(0));
        assert!(args.contains(&"--gpu-architecture=sm_86".to_owned()));
        assert!(args.contains(&"-DPT_BLOCK_W=16".to_owned()));
        assert!(args.contains(&"-DPT_BLOCK_H=8".to_owned()));
        assert!(args.contains(&"-DA=1".to_owned()));
        assert!(args.contains(&"-DPT_FEATURES=0u".to_owned()));
        assert!(args.contains(&"-DPT_SAMPLER=0u".to_owned()));
    }
}
