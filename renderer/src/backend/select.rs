//! Choosing a backend from `--backend auto|cuda|cpu` (docs/architecture.md).
//!
//! `auto` takes the GPU when a CUDA driver loads and the backend starts, and
//! otherwise falls back to the CPU with a one-line note for the user; `cuda` is the
//! GPU or an error; `cpu` is the CPU. Nothing here panics when CUDA is missing.

use std::path::Path;
use std::time::{Duration, Instant};

use super::Backend;
use super::cpu::CpuBackend;
use super::cuda::{CudaBackend, driver_available};

/// The backend the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BackendChoice {
    /// CUDA when a driver and GPU are usable, else the CPU.
    #[default]
    Auto,
    /// CUDA only; an error when it cannot start.
    Cuda,
    /// The CPU (rayon, all cores).
    Cpu,
}

/// A started backend.
pub struct Selected {
    pub backend: Box<dyn Backend>,
    /// How long starting it took (CUDA context creation and kernel load included).
    pub init_time: Duration,
    /// Why `auto` fell back to the CPU: one line for stderr.
    pub fallback_note: Option<String>,
}

/// Starts the backend for `choice`; `kernels_dir` overrides the embedded CUDA kernels.
pub fn open(choice: BackendChoice, kernels_dir: Option<&Path>) -> anyhow::Result<Selected> {
    let start = Instant::now();
    let (backend, fallback_note): (Box<dyn Backend>, _) = match choice {
        BackendChoice::Cpu => (Box::new(CpuBackend::new()), None),
        BackendChoice::Cuda => {
            if !driver_available() {
                anyhow::bail!("--backend cuda: no CUDA driver found (libcuda.so not loadable)");
            }
            let backend =
                CudaBackend::new(kernels_dir).map_err(|e| e.context("--backend cuda: CUDA did not start"))?;
            (Box::new(backend), None)
        }
        BackendChoice::Auto if !driver_available() => (
            Box::new(CpuBackend::new()),
            Some("no CUDA driver found (libcuda.so not loadable); rendering on the CPU".to_owned()),
        ),
        BackendChoice::Auto => match CudaBackend::new(kernels_dir) {
            Ok(backend) => (Box::new(backend), None),
            Err(e) => (
                Box::new(CpuBackend::new()),
                Some(format!("CUDA did not start ({e:#}); rendering on the CPU")),
            ),
        },
    };
    Ok(Selected { backend, init_time: start.elapsed(), fallback_note })
}
