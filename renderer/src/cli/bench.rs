//! `renderer bench`: upload once, render the full frame (all samples, one call)
//! `--warmup` times untimed and `--frames` times timed, report median, min and max.
//!
//! Times are the backend's own render times (CUDA events on the GPU, wall clock on
//! the CPU), so upload and readback are not in them. With `--gpus` a frame's time is
//! its slowest GPU's (they run at once), each GPU's own times are listed, and
//! `median_wall_ms` (the host's clock around each frame, launches and waits
//! included) says what the split costs.

use std::time::Instant;

use clap::Args;
use serde::Serialize;

use scene_compiler::scene::RenderSettings;

use super::{Failure, OrFail, SceneArgs, load_scene, open_backend, view_scene};
use crate::backend::{FilmLayers, FilmSize, KernelResources};
use crate::job::RenderJob;
use crate::timing::mega_per_second;

/// Flags of `renderer bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Timed frames; the report is over these.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    frames: u32,
    /// Untimed frames first (caches, clocks, lazy initialisation).
    #[arg(long, default_value_t = 2)]
    warmup: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Render with AOVs and run the denoiser after every frame; its time is reported
    /// apart from the render's (`denoise_ms`), which then includes the AOVs' cost.
    #[arg(long)]
    denoise: bool,
}

/// What `bench --json` prints.
#[derive(Debug, Serialize)]
struct Report {
    scene: String,
    device: String,
    #[serde(flatten)]
    settings: RenderSettings,
    frames: u32,
    warmup: u32,
    /// Render time per frame, milliseconds.
    median_ms: f64,
    min_ms: f64,
    max_ms: f64,
    /// Throughput at the median time.
    msamples_per_s: f64,
    mrays_per_s: f64,
    samples_per_frame: u64,
    rays_per_frame: u64,
    /// Every timed frame's render time, in order.
    frame_ms: Vec<f64>,
    /// Median of the host's wall clock around each frame's render call.
    median_wall_ms: f64,
    /// Per GPU with `--gpus` (several): its share of each frame and its own times.
    devices: Vec<DeviceReport>,
    /// Registers, local memory (stack + spills) and occupancy per kernel (GPU only).
    kernels: Vec<KernelResources>,
    /// With `--denoise`: the denoiser's time per frame (CUDA events on the GPU, wall
    /// clock on the CPU), median, min and max, milliseconds.
    denoise_ms: Option<[f64; 3]>,
}

/// One GPU's part of the frames of a `--gpus` benchmark.
#[derive(Debug, Serialize)]
struct DeviceReport {
    device: String,
    /// Samples per pixel of each frame it renders.
    spp: u32,
    median_ms: f64,
    min_ms: f64,
    max_ms: f64,
}

/// Runs the benchmark and prints the report.
pub fn run(args: &BenchArgs) -> Result<(), Failure> {
    // A malformed fault plan is a usage error here, not a backend that fails to start.
    crate::fault::Faults::from_env().or_usage()?;
    let scene = load_scene(&args.scene.scene)?;
    let (view, settings, _) = view_scene(&scene, &args.scene.overrides());
    let (mut backend, _) = open_backend(
        &args.scene,
        &view,
        FilmSize {
            width: settings.width,
            height: settings.height,
            layers: FilmLayers::of(args.denoise, args.denoise),
        },
    )?;
    let job =
        RenderJob::full_frame(&settings, &view.camera()).with_nee(!args.scene.no_nee).with_aovs(args.denoise);
    for _ in 0..args.warmup {
        backend.render(&job).or_device()?;
        if args.denoise {
            backend.denoise().or_device()?;
        }
    }
    let mut denoise_ms = Vec::new();
    let mut frame_ms = Vec::with_capacity(args.frames as usize);
    let mut wall_ms = Vec::with_capacity(args.frames as usize);
    let mut device_ms: Vec<Vec<f64>> = Vec::new();
    let mut last = None;
    for _ in 0..args.frames {
        let start = Instant::now();
        let stats = backend.render(&job).or_device()?;
        wall_ms.push(start.elapsed().as_secs_f64() * 1e3);
        frame_ms.push(stats.render_ms);
        if args.denoise {
            denoise_ms.push(backend.denoise().or_device()?);
        }
        let shares = backend.shares();
        device_ms.resize(shares.len(), Vec::new());
        for (times, share) in device_ms.iter_mut().zip(&shares) {
            times.push(share.last.render_ms);
        }
        last = Some(stats);
    }
    super::render::report_lost_devices(backend.as_ref());
    let devices = backend
        .shares()
        .into_iter()
        .zip(&mut device_ms)
        .map(|(share, times)| {
            times.sort_by(f64::total_cmp);
            DeviceReport {
                device: share.device,
                spp: share.last_range.end - share.last_range.start,
                median_ms: median(times),
                min_ms: times.first().copied().unwrap_or(0.0),
                max_ms: times.last().copied().unwrap_or(0.0),
            }
        })
        .collect();
    wall_ms.sort_by(f64::total_cmp);
    // The seed is fixed, so every frame traces the same samples and rays.
    let stats = last.unwrap_or_default();
    let mut sorted = frame_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let median_ms = median(&sorted);
    let report = Report {
        scene: args.scene.scene.display().to_string(),
        device: backend.device_name(),
        settings,
        frames: args.frames,
        warmup: args.warmup,
        median_ms,
        min_ms: sorted.first().copied().unwrap_or(0.0),
        max_ms: sorted.last().copied().unwrap_or(0.0),
        msamples_per_s: mega_per_second(stats.samples, median_ms),
        mrays_per_s: mega_per_second(stats.rays, median_ms),
        samples_per_frame: stats.samples,
        rays_per_frame: stats.rays,
        frame_ms,
        median_wall_ms: median(&wall_ms),
        devices,
        kernels: backend.kernel_resources().or_device()?,
        denoise_ms: args.denoise.then(|| {
            denoise_ms.sort_by(f64::total_cmp);
            [median(&denoise_ms), denoise_ms[0], denoise_ms[denoise_ms.len() - 1]]
        }),
    };
    if args.json {
        let text = serde_json::to_string_pretty(&report).or_usage()?;
        println!("{text}");
    } else {
        print_text(&report);
    }
    Ok(())
}

/// The median of sorted values (the mean of the middle two for an even count).
fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

fn print_text(r: &Report) {
    let s = &r.settings;
    println!("bench {}", r.scene);
    println!("  device     {}", r.device);
    println!(
        "  image      {}x{}, {} spp, max depth {}, seed {}",
        s.width, s.height, s.spp, s.max_depth, s.seed
    );
    println!("  frames     {} timed after {} warm-up", r.frames, r.warmup);
    println!(
        "  render     median {:.2} ms, min {:.2} ms, max {:.2} ms (wall clock: median {:.2} ms)",
        r.median_ms, r.min_ms, r.max_ms, r.median_wall_ms
    );
    if let Some([median, min, max]) = r.denoise_ms {
        println!("  denoise    median {median:.3} ms, min {min:.3} ms, max {max:.3} ms");
    }
    for d in &r.devices {
        println!(
            "  gpu        {}: {} spp/frame, median {:.2} ms, min {:.2} ms, max {:.2} ms",
            d.device, d.spp, d.median_ms, d.min_ms, d.max_ms
        );
    }
    println!(
        "  throughput {:.2} Msamples/s, {:.2} Mrays/s at the median ({} rays per frame)",
        r.msamples_per_s, r.mrays_per_s, r.rays_per_frame
    );
    for k in &r.kernels {
        println!(
            "  kernel     {}: {} registers, {} B local/thread (stack + spills), {} B shared, {} threads x {} blocks/SM",
            k.kernel, k.registers, k.local_bytes, k.shared_bytes, k.block_threads, k.blocks_per_sm
        );
    }
}
