//! `renderer render`: one scene to one image file, with a timing summary on stdout;
//! with `--shard i/N`, one shard's samples to a partial film (docs/shards.md).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;

use super::{Failure, OrFail, SceneArgs, load_scene, open_backend, progressive, view_scene};
use crate::backend::{Backend, FrameStats};
use crate::job::RenderJob;
use crate::output::{self, ImageFormat};
use crate::shard::partial::{self, PartialFilm};
use crate::shard::{RenderInfo, Shard, ShardInfo, blob_hash};
use crate::timing::{Stages, mega_per_second, ms};

/// Flags of `renderer render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Output image: `.png` (8-bit, gamma 2) or `.exr` (linear float); with a shard,
    /// the partial film (`.exr`) [default: <scene name>.png, or
    /// <scene name>.shard-<i>-of-<N>.exr, in the current folder].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Render only shard INDEX of COUNT (indices from 0, like a job array's task
    /// index): the samples [INDEX·spp/COUNT, (INDEX+1)·spp/COUNT), written as a
    /// partial film (float sums and metadata, OpenEXR) for `renderer merge`. A shard
    /// with no samples (more shards than spp) writes an empty partial film.
    #[arg(long, value_name = "INDEX/COUNT")]
    shard: Option<Shard>,
}

/// Loads, renders and writes the image or partial film; prints the summary.
pub fn run(args: &RenderArgs) -> Result<(), Failure> {
    let total_start = Instant::now();
    let output_path = match &args.output {
        Some(path) => path.clone(),
        None => default_output(&args.scene.scene, args.shard),
    };
    // Checked before any work: a typo in `-o` should not cost a render.
    let format = output::check_output(&output_path).or_usage()?;
    if args.shard.is_some() && format != ImageFormat::Exr {
        return Err(Failure::Usage(anyhow::anyhow!(
            "cannot write `{}`: a shard is a partial film of float sums; give an `.exr` output",
            output_path.display()
        )));
    }

    let scene = load_scene(&args.scene.scene)?;
    let (view, settings, load_parse) = view_scene(&scene, &args.scene.overrides());
    let (mut backend, backend_times) = open_backend(&args.scene, &view)?;
    let full = RenderJob::full_frame(&settings, &view.camera()).with_nee(!args.scene.no_nee);
    let job = match args.shard {
        Some(shard) => full.with_samples(shard.samples(settings.spp)).on_fresh_film(),
        None => full,
    };
    if let Some(shard) = args.shard
        && job.samples == 0
    {
        eprintln!(
            "shard {shard} has no samples ({} spp in {} shards): writing an empty partial film",
            settings.spp, shard.count
        );
    }
    let start = Instant::now();
    let stats = progressive::render_all(backend.as_mut(), job).or_device()?;
    let render = start.elapsed();

    let (readback, encode) = match args.shard {
        Some(shard) => {
            let start = Instant::now();
            let film = backend.read_sums().or_device()?;
            let readback = start.elapsed();
            let start = Instant::now();
            let info = ShardInfo {
                render: RenderInfo {
                    blob_hash: blob_hash(&scene.blob),
                    width: settings.width,
                    height: settings.height,
                    seed: settings.seed,
                    max_depth: settings.max_depth,
                    nee: job.nee,
                    spp: settings.spp,
                    shard_count: shard.count,
                },
                index: shard.index,
                samples: job.sample_range(),
                backend: backend.device_name(),
            };
            partial::write(&output_path, &PartialFilm { info, sums: film.sums }).or_usage()?;
            (readback, start.elapsed())
        }
        None => {
            let start = Instant::now();
            let pixels = output::read_back(backend.as_mut(), format).or_device()?;
            let readback = start.elapsed();
            let start = Instant::now();
            output::write(&output_path, settings.width, settings.height, pixels).or_usage()?;
            (readback, start.elapsed())
        }
    };

    let stages = Stages {
        load_parse,
        compile: scene.times.compile,
        bvh_build: scene.times.bvh_build,
        terrains: scene.times.terrains,
        backend_init: backend_times.init,
        upload: backend_times.upload,
        kernel_compile: backend.kernel_compile(),
        render,
        render_device: Duration::from_secs_f64(stats.render_ms / 1e3),
        readback,
        encode,
        total: total_start.elapsed(),
    };
    println!("rendered {} -> {}", args.scene.scene.display(), output_path.display());
    println!("  device     {}", backend.device_name());
    print_shares(backend.as_ref());
    println!(
        "  image      {}x{}, {} spp, max depth {}, seed {}",
        settings.width, settings.height, settings.spp, settings.max_depth, settings.seed
    );
    if let Some(shard) = args.shard {
        println!(
            "  shard      {shard}: samples {:?} ({} of {} spp), a partial film for `renderer merge`",
            job.sample_range(),
            job.samples,
            settings.spp
        );
    }
    print_total(stages.total, &stats);
    print!("{stages}");
    Ok(())
}

/// One line per GPU when the frame was split over several.
fn print_shares(backend: &dyn Backend) {
    for share in backend.shares() {
        println!(
            "  gpu        {}: {} spp, kernels {:.2} ms, {:.2} Mrays/s",
            share.device,
            share.samples,
            share.render_ms,
            mega_per_second(share.rays, share.render_ms)
        );
    }
}

fn print_total(total: Duration, stats: &FrameStats) {
    println!(
        "  total      {} ({:.2} Msamples/s, {:.2} Mrays/s over the render; {} rays)",
        ms(total),
        mega_per_second(stats.samples, stats.render_ms),
        mega_per_second(stats.rays, stats.render_ms),
        stats.rays
    );
}

/// `<scene stem>.png`, or `<scene stem>.shard-<i>-of-<N>.exr`, in the current folder.
fn default_output(scene: &Path, shard: Option<Shard>) -> PathBuf {
    let stem = scene.file_stem().map_or_else(|| "render".into(), |s| s.to_string_lossy().into_owned());
    match shard {
        Some(Shard { index, count }) => PathBuf::from(format!("{stem}.shard-{index}-of-{count}.exr")),
        None => PathBuf::from(stem).with_extension("png"),
    }
}
