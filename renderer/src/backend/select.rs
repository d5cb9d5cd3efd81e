//! Choosing a backend from `--backend auto|cuda|cpu` (docs/architecture.md).
//!
//! `auto` takes the GPU when a CUDA driver loads and the backend starts, and
//! otherwise falls back to the CPU with a one-line note for the user; `cuda` is the
//! GPU or an error; `cpu` is the CPU. Nothing here panics when CUDA is missing.
//! `--gpus all|0,2` ([`GpuSelection`], [`open_gpus`]) opens one CUDA backend per
//! listed GPU and drives them together ([`MultiBackend`]).

use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::Backend;
use super::cpu::CpuBackend;
use super::cuda::{CudaBackend, driver_available, probe_driver};
use super::multi::{Device, MultiBackend};

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

/// The GPUs `--gpus` names: every one, or a list of device numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuSelection {
    All,
    List(Vec<usize>),
}

impl FromStr for GpuSelection {
    type Err = String;

    /// `all`, or device numbers separated by commas (`0,2`), each at most once.
    fn from_str(text: &str) -> Result<GpuSelection, String> {
        if text.trim().eq_ignore_ascii_case("all") {
            return Ok(GpuSelection::All);
        }
        let mut list = Vec::new();
        for item in text.split(',') {
            let ordinal: usize = item.trim().parse().map_err(|_| {
                format!("`{text}` is not a GPU list: write `all` or device numbers such as `0,2`")
            })?;
            if list.contains(&ordinal) {
                return Err(format!("`{text}` names GPU {ordinal} twice"));
            }
            list.push(ordinal);
        }
        Ok(GpuSelection::List(list))
    }
}

impl GpuSelection {
    /// The device numbers, given `count` GPUs on the machine.
    pub fn resolve(&self, count: usize) -> anyhow::Result<Vec<usize>> {
        match self {
            GpuSelection::All => Ok((0..count).collect()),
            GpuSelection::List(list) => {
                if let Some(missing) = list.iter().find(|&&o| o >= count) {
                    anyhow::bail!(
                        "--gpus: there is no GPU {missing}; the CUDA driver reports {count} (numbered from 0)"
                    );
                }
                Ok(list.clone())
            }
        }
    }
}

/// Starts one CUDA backend per GPU of `selection`, one after the other (the first
/// compiles the kernels or takes them from the disk cache, the others find them
/// there); several are driven by a [`MultiBackend`] whose devices weigh their SM
/// counts, one alone is returned as it is. Errors (no driver, no such GPU, a GPU that
/// fails to start) say which GPU.
pub fn open_gpus(selection: &GpuSelection, kernels_dir: Option<&Path>) -> anyhow::Result<Selected> {
    let start = Instant::now();
    let count = probe_driver().context("--gpus needs CUDA")?;
    let ordinals = selection.resolve(count)?;
    let mut backends = Vec::with_capacity(ordinals.len());
    for &ordinal in &ordinals {
        let backend = CudaBackend::on_device(ordinal, kernels_dir)
            .with_context(|| format!("--gpus: CUDA did not start on GPU {ordinal}"))?;
        backends.push(backend);
    }
    if backends.len() == 1 {
        let backend: Box<dyn Backend> = Box::new(backends.remove(0));
        return Ok(Selected { backend, init_time: start.elapsed(), fallback_note: None });
    }
    let models: Vec<String> = backends.iter().map(|b| b.model().to_owned()).collect();
    let name = if models.iter().all(|m| *m == models[0]) {
        let list: Vec<String> = ordinals.iter().map(usize::to_string).collect();
        format!("CUDA × {} · {} (GPUs {})", backends.len(), models[0], list.join(", "))
    } else {
        let each: Vec<String> = ordinals.iter().zip(&models).map(|(o, m)| format!("GPU {o} {m}")).collect();
        format!("CUDA × {} · {}", backends.len(), each.join(" + "))
    };
    let devices = backends
        .into_iter()
        .zip(ordinals.iter().zip(&models))
        .map(|(backend, (ordinal, model))| Device {
            label: format!("GPU {ordinal} · {model}"),
            weight: backend.multiprocessors(),
            backend: Box::new(backend),
        })
        .collect();
    let backend: Box<dyn Backend> = Box::new(MultiBackend::new(name, devices)?);
    Ok(Selected { backend, init_time: start.elapsed(), fallback_note: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_lists_parse() {
        assert_eq!("all".parse::<GpuSelection>(), Ok(GpuSelection::All));
        assert_eq!("0,2".parse::<GpuSelection>(), Ok(GpuSelection::List(vec![0, 2])));
        assert_eq!("1".parse::<GpuSelection>(), Ok(GpuSelection::List(vec![1])));
        for bad in ["", "0,,1", "x", "0,0", "-1"] {
            assert!(bad.parse::<GpuSelection>().is_err(), "{bad}");
        }
        assert_eq!(GpuSelection::All.resolve(2).ok(), Some(vec![0, 1]));
        assert!(GpuSelection::List(vec![0, 2]).resolve(2).is_err());
    }
}
