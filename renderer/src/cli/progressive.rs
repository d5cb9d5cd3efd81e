//! Rendering all samples of an image in batches, with a progress bar when the
//! render is long enough to want one.
//!
//! A first small batch measures the speed. When the rest would take more than a
//! second and stderr is a terminal, the remaining samples are split into batches of
//! about [`BATCH_TARGET`] each and a bar over all samples advances per batch;
//! otherwise the rest is one render call. Batching does not change the image: each batch continues the film at
//! `first_sample`, and every (pixel, sample) has its own random stream. A shard
//! (`render --shard`) is the same with a range that does not start at 0.
//! With `Pacing::batched` it always batches and runs a callback between batches,
//! where `render --checkpoint` saves the film and notices SIGINT/SIGTERM.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::backend::{Backend, FrameStats, RenderJob};

/// Samples per pixel in the batch that measures the speed.
const FIRST_BATCH: u32 = 1;
/// Renders expected to finish sooner than this get no bar.
const BAR_THRESHOLD: Duration = Duration::from_secs(1);
/// Wanted length of one batch: short enough for a smooth bar, long enough that
/// per-call overhead (a kernel launch, a rayon fork) stays negligible.
const BATCH_TARGET: Duration = Duration::from_millis(250);

/// What to do after a batch: go on, or stop with the film as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// What runs between batches: given the backend and the sample index where the film
/// now ends, it says whether to go on.
pub type Between<'a> = &'a mut dyn FnMut(&mut dyn Backend, u32) -> anyhow::Result<Flow>;

/// How a render is cut into batches, and what runs between them.
#[derive(Default)]
pub struct Pacing<'a> {
    /// Cut the render into batches even when no bar is shown (checkpoints and signals
    /// are handled between batches).
    pub batched: bool,
    /// Samples per batch instead of measured ~250 ms batches (the fault plan's `batch:K`).
    pub fixed_batch: Option<u32>,
    /// Runs after every batch but the last, with the backend and the sample index
    /// where the film now ends.
    pub between: Option<Between<'a>>,
}

/// How a render ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// Every sample rendered; the stats summed over the batches.
    Finished(FrameStats),
    /// `between` asked to stop; the film holds the samples up to `end`.
    Stopped { stats: FrameStats, end: u32 },
}

/// Renders all of `job`'s samples (`job.sample_range()`: `0..spp` for a whole render,
/// a shard's range with a fresh film for `--shard`, the rest of a resumed one), in
/// batches as `pacing` says; returns the summed stats and whether it finished.
pub fn render_paced(
    backend: &mut dyn Backend,
    job: RenderJob,
    mut pacing: Pacing<'_>,
) -> anyhow::Result<Outcome> {
    let range = job.sample_range();
    let spp = range.len() as u32;
    let first = pacing.fixed_batch.unwrap_or(FIRST_BATCH).min(spp);
    // The first batch starts the film as the job says (fresh at a shard's first sample).
    let mut total = backend.render(&RenderJob { samples: first, ..job })?;
    let remaining = spp - first;
    if remaining == 0 {
        return Ok(Outcome::Finished(total));
    }
    let ms_per_sample = total.render_ms / f64::from(first);
    let expected = Duration::from_secs_f64(ms_per_sample * f64::from(remaining) / 1e3);
    let bar =
        (expected >= BAR_THRESHOLD && std::io::stderr().is_terminal()).then(|| progress_bar(first, spp));
    let measured = (BATCH_TARGET.as_secs_f64() * 1e3 / ms_per_sample.max(1e-6)) as u32;
    let batch = match pacing.fixed_batch {
        Some(fixed) => fixed,
        None if bar.is_some() || pacing.batched => measured,
        None => remaining,
    }
    .clamp(1, remaining);
    let mut done = first;
    while done < spp {
        if let Some(between) = pacing.between.as_mut()
            && between(backend, range.start + done)? == Flow::Stop
        {
            if let Some(bar) = bar {
                bar.abandon();
            }
            return Ok(Outcome::Stopped { stats: total, end: range.start + done });
        }
        let samples = batch.min(spp - done);
        let start = range.start + done;
        let stats = backend.render(&job.with_samples(start..start + samples))?;
        add(&mut total, stats);
        done += samples;
        if let Some(bar) = &bar {
            bar.inc(u64::from(samples));
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(Outcome::Finished(total))
}

/// A bar over all `spp` samples, `done` of them already rendered.
fn progress_bar(done: u32, spp: u32) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(u64::from(spp)), ProgressDrawTarget::stderr());
    // The template is a constant: if indicatif ever rejects it, a plain bar is fine.
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} rendering [{bar:40}] {pos}/{len} spp, {eta} left")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_position(u64::from(done));
    bar
}

fn add(total: &mut FrameStats, stats: FrameStats) {
    total.render_ms += stats.render_ms;
    total.samples += stats.samples;
    total.rays += stats.rays;
}
