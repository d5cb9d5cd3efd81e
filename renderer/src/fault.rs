//! Injected faults, for tests of what no healthy machine does on its own: a GPU
//! whose launch, upload or read-back fails, a GPU with little free memory, a signal
//! or a crash at an exact point of a long render.
//!
//! The plan comes from the environment variable [`FAULTS_ENV`] (`RENDERER_FAULTS`),
//! items separated by commas (docs/faults.md lists them):
//!
//! - `upload:N`, `launch:N`, `readback:N`: the CUDA backend's Nth scene upload,
//!   kernel launch or film read-back fails (counted per GPU, from 1), `@G` limits it
//!   to GPU `G` (`launch:3@1`). The error is the one a real CUDA failure gives,
//!   naming the stage and the GPU.
//! - `free-memory:BYTES[@G]`: the CUDA backend sees this much free device memory
//!   instead of asking the driver (the memory check before an upload).
//! - `batch:K`: `render` renders K samples per pixel per batch (no measured batches),
//!   so the points below are exact.
//! - `signal:TERM@S` or `signal:INT@S`: `render` sends itself that signal once its
//!   film holds samples up to index S.
//! - `signal-in-checkpoint:TERM@N`: the signal arrives while the Nth checkpoint is
//!   being written (after the data, before the rename).
//! - `abort-in-checkpoint:N`: the process aborts while writing the Nth checkpoint
//!   (a crash or SIGKILL mid-write: the previous checkpoint must survive).
//! - `fail-checkpoint:N`: the Nth checkpoint write fails as on a full disk.
//!
//! A malformed plan is an error, so a typo never silently tests nothing. Not here:
//! the signal handlers (cli/interrupt.rs), the checks the faults exercise.

use std::str::FromStr;

use anyhow::{Context, anyhow, bail};

/// The environment variable holding the fault plan.
pub const FAULTS_ENV: &str = "RENDERER_FAULTS";

/// A stage of the CUDA backend that a fault can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Upload,
    Launch,
    Readback,
}

impl Stage {
    /// As the plan and error messages spell it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Upload => "upload",
            Stage::Launch => "launch",
            Stage::Readback => "readback",
        }
    }
}

/// A signal a render can be sent (the two that farms and terminals send).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Term,
    Int,
}

/// One item of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The `nth` operation of `stage` fails, on GPU `gpu` only when given.
    Fail { stage: Stage, nth: u64, gpu: Option<usize> },
    /// The free device memory the backend sees.
    FreeMemory { bytes: u64, gpu: Option<usize> },
    /// Samples per pixel per batch of `render`.
    Batch(u32),
    /// `render` sends itself `signal` once its film ends at or past sample `at`.
    SignalAt { signal: Signal, at: u32 },
    /// `signal` arrives during the `nth` checkpoint write.
    SignalInCheckpoint { signal: Signal, nth: u64 },
    /// The process aborts during the `nth` checkpoint write.
    AbortInCheckpoint { nth: u64 },
    /// The `nth` checkpoint write fails (a full disk).
    FailCheckpoint { nth: u64 },
}

/// The parsed plan (empty when the variable is unset).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    pub items: Vec<Fault>,
}

impl Faults {
    /// The plan in [`FAULTS_ENV`]; empty when unset.
    pub fn from_env() -> anyhow::Result<Faults> {
        match std::env::var(FAULTS_ENV) {
            Ok(text) => text.parse().with_context(|| format!("{FAULTS_ENV}=`{text}`")),
            Err(std::env::VarError::NotPresent) => Ok(Faults::default()),
            Err(e) => Err(anyhow!("{FAULTS_ENV}: {e}")),
        }
    }

    /// Whether the `count`th operation of `stage` on GPU `gpu` is to fail.
    pub fn fails(&self, stage: Stage, count: u64, gpu: usize) -> bool {
        self.items.iter().any(|f| {
            matches!(*f, Fault::Fail { stage: s, nth, gpu: g } if s == stage && nth == count && g.is_none_or(|g| g == gpu))
        })
    }

    /// The free memory to report for GPU `gpu` instead of the driver's figure.
    pub fn free_memory(&self, gpu: usize) -> Option<u64> {
        self.items.iter().find_map(|f| match *f {
            Fault::FreeMemory { bytes, gpu: g } if g.is_none_or(|g| g == gpu) => Some(bytes),
            _ => None,
        })
    }

    /// The fixed batch size, if any.
    pub fn batch(&self) -> Option<u32> {
        self.items.iter().find_map(|f| match *f {
            Fault::Batch(k) => Some(k),
            _ => None,
        })
    }

    /// The signal to send once the film ends at or past `end`, if one is due.
    pub fn signal_at(&self, end: u32) -> Option<Signal> {
        self.items.iter().find_map(|f| match *f {
            Fault::SignalAt { signal, at } if end >= at => Some(signal),
            _ => None,
        })
    }

    /// What happens during the `nth` checkpoint write: a signal, an abort, a failure, or nothing.
    pub fn in_checkpoint(&self, nth: u64) -> Option<Fault> {
        self.items.iter().copied().find(|f| match *f {
            Fault::SignalInCheckpoint { nth: n, .. }
            | Fault::AbortInCheckpoint { nth: n }
            | Fault::FailCheckpoint { nth: n } => n == nth,
            _ => false,
        })
    }
}

impl FromStr for Faults {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> anyhow::Result<Faults> {
        let items = text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| parse_item(item).with_context(|| format!("fault `{item}`")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Faults { items })
    }
}

/// One `name:value[@at]` item.
fn parse_item(item: &str) -> anyhow::Result<Fault> {
    let (name, rest) = item.split_once(':').context("write NAME:VALUE, e.g. launch:3")?;
    let (value, at) = match rest.split_once('@') {
        Some((value, at)) => (value, Some(at)),
        None => (rest, None),
    };
    let number = |text: &str| -> anyhow::Result<u64> {
        text.trim().parse().map_err(|_| anyhow!("`{text}` is not a whole number"))
    };
    let nth = |text: &str| -> anyhow::Result<u64> {
        match number(text)? {
            0 => bail!("counts start at 1"),
            n => Ok(n),
        }
    };
    let gpu = || at.map(|g| number(g).map(|g| g as usize)).transpose();
    let signal = || match value.trim() {
        "TERM" | "SIGTERM" => Ok(Signal::Term),
        "INT" | "SIGINT" => Ok(Signal::Int),
        other => Err(anyhow!("`{other}` is not TERM or INT")),
    };
    let required_at = || at.context("say where: SIGNAL@N");
    let stage = match name.trim() {
        "upload" => Some(Stage::Upload),
        "launch" => Some(Stage::Launch),
        "readback" => Some(Stage::Readback),
        _ => None,
    };
    if let Some(stage) = stage {
        return Ok(Fault::Fail { stage, nth: nth(value)?, gpu: gpu()? });
    }
    Ok(match name.trim() {
        "free-memory" => Fault::FreeMemory { bytes: number(value)?, gpu: gpu()? },
        "batch" => Fault::Batch(u32::try_from(nth(value)?).context("batch too large")?),
        "signal" => Fault::SignalAt {
            signal: signal()?,
            at: u32::try_from(number(required_at()?)?).context("sample index too large")?,
        },
        "signal-in-checkpoint" => Fault::SignalInCheckpoint { signal: signal()?, nth: nth(required_at()?)? },
        "abort-in-checkpoint" => Fault::AbortInCheckpoint { nth: nth(value)? },
        "fail-checkpoint" => Fault::FailCheckpoint { nth: nth(value)? },
        other => bail!(
            "unknown fault `{other}`: upload, launch, readback, free-memory, batch, signal, \
             signal-in-checkpoint, abort-in-checkpoint or fail-checkpoint"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_parses_and_answers() {
        let plan: Faults =
            "launch:3@1, readback:1, free-memory:1000@0, batch:2, signal:TERM@5, abort-in-checkpoint:2"
                .parse()
                .expect("valid plan");
        assert!(plan.fails(Stage::Launch, 3, 1));
        assert!(!plan.fails(Stage::Launch, 3, 0), "another GPU");
        assert!(!plan.fails(Stage::Launch, 2, 1), "another launch");
        assert!(plan.fails(Stage::Readback, 1, 7), "any GPU");
        assert_eq!((plan.free_memory(0), plan.free_memory(1)), (Some(1000), None));
        assert_eq!(plan.batch(), Some(2));
        assert_eq!((plan.signal_at(4), plan.signal_at(5)), (None, Some(Signal::Term)));
        assert_eq!(plan.in_checkpoint(2), Some(Fault::AbortInCheckpoint { nth: 2 }));
        assert_eq!(plan.in_checkpoint(1), None);
        let signal: Faults = "signal-in-checkpoint:INT@1".parse().expect("valid");
        assert_eq!(signal.in_checkpoint(1), Some(Fault::SignalInCheckpoint { signal: Signal::Int, nth: 1 }));
    }

    #[test]
    fn a_typo_is_an_error_not_an_empty_plan() {
        for bad in ["lunch:1", "launch", "launch:0", "launch:x", "signal:HUP@1", "signal:TERM", "batch:0"] {
            assert!(bad.parse::<Faults>().is_err(), "{bad}");
        }
        assert_eq!("".parse::<Faults>().expect("empty").items, Vec::new());
    }
}
