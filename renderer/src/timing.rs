//! Where the time of one render went: the stage breakdown the CLI prints, and the
//! throughput figures (Msamples/s, Mrays/s) both commands report.

use std::fmt;
use std::time::Duration;

use crate::backend::KernelCompile;

/// Wall-clock time of each stage of `renderer render`, in pipeline order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stages {
    /// Reading, parsing and validating the scene or blob.
    pub load_parse: Duration,
    /// In-memory compile of a `.ron` scene (BVH build included); `None` for a `.blob`.
    pub compile: Option<Duration>,
    /// The BVH build alone (part of `compile`); `None` for a precompiled `.blob`.
    pub bvh_build: Option<Duration>,
    /// Terrains to boxes (part of `compile`); listed when the scene has terrains.
    pub terrains: Option<Duration>,
    /// Starting the backend (CUDA context creation and kernel load).
    pub backend_init: Duration,
    /// Copying the scene to the device.
    pub upload: Duration,
    /// What the backend reported about its kernels; `None` for the CPU.
    pub kernel_compile: Option<KernelCompile>,
    /// Wall clock of all render calls (film allocation, launches and waits included).
    pub render: Duration,
    /// The part of `render` the backend measured itself (CUDA events around the
    /// kernels, or the CPU workers' wall clock).
    pub render_device: Duration,
    /// Copying the film back and converting it (tonemapping for a PNG).
    pub readback: Duration,
    /// Encoding and writing the image file.
    pub encode: Duration,
    /// The whole command: what the stages above leave of it is printed as `other`
    /// (argument parsing, freeing the device), so the breakdown adds up.
    pub total: Duration,
}

impl fmt::Display for Stages {
    /// A `stages` heading, then one indented line per stage.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "stages")?;
        let mut line = |name: &str, value: String| writeln!(f, "  {name:<16}{value}");
        line("load/parse", ms(self.load_parse))?;
        match (self.compile, self.bvh_build) {
            (Some(compile), Some(bvh)) => {
                line("compile", ms(compile))?;
                if let Some(terrains) = self.terrains.filter(|t| !t.is_zero()) {
                    line("  terrains", ms(terrains))?;
                }
                line("  BVH build", ms(bvh))?;
            }
            _ => line("BVH build", "precompiled (blob)".to_owned())?,
        }
        line("backend init", ms(self.backend_init))?;
        line("upload", ms(self.upload))?;
        match self.kernel_compile {
            Some(k) => line(
                "kernel compile",
                format!("{} ({})", ms(k.time), if k.cached { "cached" } else { "compiled" }),
            )?,
            None => line("kernel compile", "none (CPU backend)".to_owned())?,
        }
        line("render", ms(self.render))?;
        line("  in backend", ms(self.render_device))?;
        line("readback", ms(self.readback))?;
        line("encode", ms(self.encode))?;
        let listed = self.load_parse
            + self.compile.unwrap_or_default()
            + self.backend_init
            + self.upload
            + self.render
            + self.readback
            + self.encode;
        line("other", ms(self.total.saturating_sub(listed)))
    }
}

/// A duration as milliseconds with a precision that suits its size.
pub fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms >= 100.0 { format!("{ms:.0} ms") } else { format!("{ms:.2} ms") }
}

/// Millions of `count` per second over `millis` milliseconds (0 for an empty interval).
pub fn mega_per_second(count: u64, millis: f64) -> f64 {
    if millis > 0.0 { count as f64 / (millis * 1e3) } else { 0.0 }
}
