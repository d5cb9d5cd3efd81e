//! Rendering all samples of an image in batches, with a progress bar when the
//! render is long enough to want one.
//!
//! A first small batch measures the speed. When the rest would take more than a
//! second and stderr is a terminal, the remaining samples are split into batches of
//! about [`BATCH_TARGET`] each and a bar over all samples advances per batch;
//! otherwise the rest is one render call. Batching does not change the image: each batch continues the film at
//! `first_sample`, and every (pixel, sample) has its own random stream. A shard
//! (`render --shard`) is the same with a range that does not start at 0.

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

/// Renders all of `job`'s samples (`job.sample_range()`: `0..spp` for a whole render,
/// a shard's range with a fresh film for `--shard`); returns the summed stats.
pub fn render_all(backend: &mut dyn Backend, job: RenderJob) -> anyhow::Result<FrameStats> {
    let range = job.sample_range();
    let spp = range.len() as u32;
    let first = FIRST_BATCH.min(spp);
    // The first batch starts the film as the job says (fresh at a shard's first sample).
    let mut total = backend.render(&RenderJob { samples: first, ..job })?;
    let remaining = spp - first;
    if remaining == 0 {
        return Ok(total);
    }
    let ms_per_sample = total.render_ms / f64::from(first);
    let expected = Duration::from_secs_f64(ms_per_sample * f64::from(remaining) / 1e3);
    let (batch, bar) = if expected >= BAR_THRESHOLD && std::io::stderr().is_terminal() {
        let batch = (BATCH_TARGET.as_secs_f64() * 1e3 / ms_per_sample.max(1e-6)) as u32;
        (batch.clamp(1, remaining), Some(progress_bar(first, spp)))
    } else {
        (remaining, None)
    };
    let mut done = first;
    while done < spp {
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
    Ok(total)
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
