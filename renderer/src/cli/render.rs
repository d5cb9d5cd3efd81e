//! `renderer render`: one scene to one image file, with a timing summary on stdout;
//! with `--shard i/N`, one shard's samples to a partial film (docs/shards.md). With
//! `--checkpoint FILE` the film is saved every `--checkpoint-every` seconds and on
//! SIGINT/SIGTERM (then the command exits with [`super::EXIT_INTERRUPTED`]);
//! `--resume FILE` renders only the samples a checkpoint lacks (README "Long renders").

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use super::interrupt::{self, Interrupt};
use super::progressive::{Flow, Outcome, Pacing};
use super::{Failure, OrFail, SceneArgs, load_scene, open_backend, part_failure, progressive, view_scene};
use crate::backend::{Backend, FilmLayers, FilmShape, FilmSize, FilmSums, FrameStats, Tonemap};
use crate::fault::{Fault, Faults};
use crate::job::RenderJob;
use crate::output::{self, ImageFormat};
use crate::shard::checkpoint;
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
    /// Save the unfinished film to this `.exr` (a partial film of the samples done so
    /// far) every `--checkpoint-every` seconds and when SIGINT or SIGTERM arrives; a
    /// signal then ends the render with exit code 4 and no image (a second signal ends
    /// it at once). Written atomically: a crash during a save keeps the previous
    /// checkpoint. Removed once the image is written.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Seconds of rendering between checkpoints (0: after every batch of about 250 ms).
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "checkpoint")]
    checkpoint_every: u64,
    /// Continue from a checkpoint (or a finished part) of this same render: same scene,
    /// resolution, seed, max depth, NEE, sampler, spp and shard, else it is refused (exit 1)
    /// with the differences. Only the samples it lacks are rendered; the image equals
    /// an uninterrupted render's. Give `--checkpoint` too to keep checkpointing.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Write these AOVs as layers of the EXR beside the image (comma-separated):
    /// `albedo` (albedo.R/G/B: of the first surface that is not a mirror or glass, seen
    /// through them), `normal` (normal.X/Y/Z: its world-space shading normal) and
    /// `depth` (depth.Z: the camera distance of the first hit, 1e10 where nothing was
    /// hit): the passes `oidnDenoise` and OptiX's denoiser take. Needs an `.exr` output.
    #[arg(long, value_name = "AOVS", value_delimiter = ',', value_parser = output::AOV_LAYERS)]
    aov: Vec<String>,
    /// Denoise the image: an edge-avoiding à-trous filter guided by the AOVs
    /// (docs/path-tracing.md, "The denoiser"). An `.exr` keeps the raw image as the
    /// layer `noisy.R/G/B`.
    #[arg(long)]
    denoise: bool,
}

/// The image of a render with AOVs: denoised (`--denoise`, which has run) or not, with
/// the asked AOV layers and, when denoised, the raw image as `noisy` in an EXR.
fn read_with_aovs(
    backend: &mut dyn Backend,
    format: ImageFormat,
    tonemap: Tonemap,
    args: &RenderArgs,
) -> anyhow::Result<output::Pixels> {
    if format == ImageFormat::Png {
        let rgba =
            if args.denoise { backend.read_denoised_rgba8(tonemap)? } else { backend.read_rgba8(tonemap)? };
        return Ok(output::Pixels::Rgba8(rgba));
    }
    let mut layers = Vec::new();
    let beauty = if args.denoise {
        let raw: Vec<[f32; 3]> = backend.read_linear()?.iter().map(|&[r, g, b, _]| [r, g, b]).collect();
        layers.extend(output::rgb_channels("noisy", ["R", "G", "B"], &raw));
        backend.read_denoised_linear()?
    } else {
        backend.read_linear()?
    };
    if !args.aov.is_empty() {
        layers.extend(output::aov_channels(&backend.read_aovs()?, &args.aov)?);
    }
    Ok(output::Pixels::Layered { beauty, layers })
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
    if !args.aov.is_empty() && format != ImageFormat::Exr {
        return Err(Failure::Usage(anyhow::anyhow!(
            "cannot write AOV layers into `{}`: give an `.exr` output",
            output_path.display()
        )));
    }
    let aovs = args.denoise || !args.aov.is_empty();
    if aovs && (args.shard.is_some() || args.checkpoint.is_some() || args.resume.is_some()) {
        return Err(Failure::Usage(anyhow::anyhow!(
            "--aov and --denoise need the whole film in one process: partial films and checkpoints keep \
             no AOVs; render without --shard, --checkpoint and --resume"
        )));
    }
    if let Some(path) = &args.checkpoint {
        check_checkpoint_path(path, &output_path)?;
    }
    let faults = Faults::from_env().or_usage()?;
    // Before the long part: a signal from here on saves the film.
    let interrupt = args.checkpoint.as_ref().map(|_| Interrupt::install()).transpose().or_usage()?;

    let scene = load_scene(&args.scene.scene)?;
    let (view, settings, load_parse) = view_scene(&scene, &args.scene.overrides());
    let shard = args.shard.unwrap_or(Shard { index: 0, count: 1 });
    let identity = RenderInfo {
        blob_hash: blob_hash(&scene.blob),
        width: settings.width,
        height: settings.height,
        seed: settings.seed,
        max_depth: settings.max_depth,
        nee: !args.scene.no_nee,
        sampler: settings.sampler,
        spp: settings.spp,
        shard_count: shard.count,
    };
    let resumed = match &args.resume {
        Some(path) => {
            let film = partial::read(path).map_err(part_failure)?;
            checkpoint::check_resume(path, &film, &identity, shard)
                .map_err(|e| Failure::Invalid(e.into()))?;
            Some(film)
        }
        None => None,
    };
    let (mut backend, backend_times) = open_backend(
        &args.scene,
        &view,
        FilmSize {
            width: settings.width,
            height: settings.height,
            layers: FilmLayers::of(aovs, args.denoise),
        },
    )?;
    let range = shard.samples(settings.spp);
    let full = RenderJob::full_frame(&settings, &view.camera()).with_nee(!args.scene.no_nee).with_aovs(aovs);
    let mut job = match args.shard {
        Some(_) => full.with_samples(range.clone()).on_fresh_film(),
        None => full,
    };
    if let Some(film) = &resumed {
        let done = film.info.samples.clone();
        let shape = FilmShape {
            width: settings.width,
            height: settings.height,
            samples: done.len() as u32,
            end: done.end,
        };
        backend.restore_film(&FilmSums { shape, sums: film.sums.clone(), aovs: Vec::new() }).or_device()?;
        job = job.with_samples(done.end..range.end);
        eprintln!(
            "resuming from {}: samples {done:?} of {range:?} were done, {} to render",
            args.resume.as_deref().unwrap_or(Path::new("")).display(),
            range.end - done.end
        );
    }
    if let Some(shard) = args.shard
        && range.is_empty()
    {
        eprintln!(
            "shard {shard} has no samples ({} spp in {} shards): writing an empty partial film",
            settings.spp, shard.count
        );
    }
    let start = Instant::now();
    let mut saver = match (&args.checkpoint, &interrupt) {
        (Some(path), Some(interrupt)) => Some(Saver {
            path,
            every: Duration::from_secs(args.checkpoint_every),
            last: Instant::now(),
            info: ShardInfo {
                render: identity.clone(),
                index: shard.index,
                samples: 0..0,
                backend: backend.device_name(),
                display: Tonemap::of(&settings),
                checkpoint: true,
            },
            saved: 0,
            faults: &faults,
            interrupt,
            signalled: false,
            failed: None,
        }),
        _ => None,
    };
    let outcome = match saver.as_mut() {
        Some(saver) => {
            let mut between = |backend: &mut dyn Backend, end: u32| saver.between(backend, end);
            let pacing = Pacing { batched: true, fixed_batch: faults.batch(), between: Some(&mut between) };
            progressive::render_paced(backend.as_mut(), job, pacing)
        }
        None => {
            let pacing = Pacing { fixed_batch: faults.batch(), ..Pacing::default() };
            progressive::render_paced(backend.as_mut(), job, pacing)
        }
    };
    if let Some(error) = saver.and_then(|s| s.failed) {
        return Err(Failure::Usage(error));
    }
    report_lost_devices(backend.as_ref());
    let stats = match outcome.or_device()? {
        Outcome::Finished(stats) => stats,
        Outcome::Stopped { end, .. } => {
            let path = args.checkpoint.as_deref().unwrap_or(Path::new(""));
            let signal = interrupt.as_ref().and_then(Interrupt::received).unwrap_or("a signal");
            return Err(Failure::Interrupted(anyhow::anyhow!(
                "{signal} received: samples {:?} of {range:?} saved in `{}`; run the same command with \
                 `--resume {}` to finish",
                range.start..end,
                path.display(),
                path.display()
            )));
        }
    };
    let render = start.elapsed();

    let mut denoise_ms = None;
    let (readback, encode) = match args.shard {
        Some(shard) => {
            let start = Instant::now();
            let film = backend.read_sums().or_device()?;
            let readback = start.elapsed();
            let start = Instant::now();
            let info = ShardInfo {
                render: identity.clone(),
                index: shard.index,
                samples: range.clone(),
                backend: backend.device_name(),
                display: Tonemap::of(&settings),
                checkpoint: false,
            };
            partial::write(&output_path, &PartialFilm { info, sums: film.sums }).or_usage()?;
            (readback, start.elapsed())
        }
        None if aovs => {
            if args.denoise {
                denoise_ms = Some(backend.denoise().or_device()?);
            }
            let start = Instant::now();
            let pixels =
                read_with_aovs(backend.as_mut(), format, Tonemap::of(&settings), args).or_device()?;
            let readback = start.elapsed();
            let start = Instant::now();
            output::write(&output_path, settings.width, settings.height, pixels).or_usage()?;
            (readback, start.elapsed())
        }
        None => {
            let start = Instant::now();
            let pixels = output::read_back(backend.as_mut(), format, Tonemap::of(&settings)).or_device()?;
            let readback = start.elapsed();
            let start = Instant::now();
            output::write(&output_path, settings.width, settings.height, pixels).or_usage()?;
            (readback, start.elapsed())
        }
    };
    if let Some(path) = &args.checkpoint
        && path.exists()
    {
        // The image is written: the checkpoint would only resume a finished render.
        std::fs::remove_file(path)
            .with_context(|| {
                format!("the image is written, but the checkpoint `{}` could not be removed", path.display())
            })
            .or_usage()?;
    }

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
            "  shard      {shard}: samples {range:?} ({} of {} spp), a partial film for `renderer merge`",
            range.len(),
            settings.spp
        );
    }
    if let Some(film) = &resumed {
        println!(
            "  resumed    samples {:?} from the checkpoint, {:?} rendered now",
            film.info.samples,
            film.info.samples.end..range.end
        );
    }
    if let Some(ms) = denoise_ms {
        println!("  denoised   in {ms:.2} ms (the filter alone)");
    }
    if !args.aov.is_empty() {
        println!("  aov        {} (EXR layers)", args.aov.join(", "));
    }
    print_total(stages.total, &stats);
    print!("{stages}");
    Ok(())
}

/// Checks a `--checkpoint` path before any work: an `.exr` that can be written, not the output.
fn check_checkpoint_path(path: &Path, output_path: &Path) -> Result<(), Failure> {
    if output::check_output(path).or_usage()? != ImageFormat::Exr {
        return Err(Failure::Usage(anyhow::anyhow!(
            "cannot checkpoint to `{}`: a checkpoint is a partial film of float sums; give an `.exr` file",
            path.display()
        )));
    }
    if path == output_path {
        return Err(Failure::Usage(anyhow::anyhow!(
            "--checkpoint `{}` is the output: give the checkpoint a file of its own",
            path.display()
        )));
    }
    Ok(())
}

/// Saves checkpoints between batches and stops the render on a signal.
struct Saver<'a> {
    path: &'a Path,
    every: Duration,
    /// When the last checkpoint was saved (or the render started).
    last: Instant,
    /// What every checkpoint says; `samples` is set at each save.
    info: ShardInfo,
    /// Checkpoints saved so far.
    saved: u64,
    faults: &'a Faults,
    interrupt: &'a Interrupt,
    /// Whether the fault plan's signal was sent already.
    signalled: bool,
    /// The save after a signal that failed.
    failed: Option<anyhow::Error>,
}

impl Saver<'_> {
    /// After a batch: on a signal, save and stop; when a checkpoint is due, save (a
    /// failed periodic save is reported and the render goes on: the previous
    /// checkpoint is still there). A film that cannot be read back is a device
    /// failure (the error); a checkpoint that cannot be written after a signal is
    /// kept in `failed` (an I/O failure, exit 2).
    fn between(&mut self, backend: &mut dyn Backend, end: u32) -> anyhow::Result<Flow> {
        if !self.signalled
            && let Some(signal) = self.faults.signal_at(end)
        {
            self.signalled = true;
            interrupt::raise(signal)?;
        }
        if let Some(signal) = self.interrupt.received() {
            let film = backend.read_sums()?;
            if let Err(error) = self.save(film) {
                self.failed =
                    Some(error.context(format!("{signal} received, but the checkpoint was not saved")));
            }
            return Ok(Flow::Stop);
        }
        if self.last.elapsed() >= self.every {
            let film = backend.read_sums()?;
            if let Err(error) = self.save(film) {
                eprintln!("warning: {error:#}; rendering on (the previous checkpoint, if any, is kept)");
            }
            self.last = Instant::now();
            // A signal during the save: stop now that the checkpoint is whole.
            if self.interrupt.received().is_some() {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    /// Writes `film` to the checkpoint file atomically.
    fn save(&mut self, film: FilmSums) -> anyhow::Result<()> {
        self.saved += 1;
        let info = ShardInfo { samples: film.shape.sample_range(), ..self.info.clone() };
        let hook = self.faults.in_checkpoint(self.saved);
        output::write_atomically(self.path, |temp| {
            partial::write_file(temp, &PartialFilm { info, sums: film.sums })?;
            match hook {
                Some(Fault::AbortInCheckpoint { .. }) => std::process::abort(),
                Some(Fault::SignalInCheckpoint { signal, .. }) => interrupt::raise(signal),
                Some(Fault::FailCheckpoint { .. }) => Err(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    format!("no space left on device (injected by {})", crate::fault::FAULTS_ENV),
                )
                .into()),
                _ => Ok(()),
            }
        })
        .context("saving the checkpoint")
    }
}

/// Names every GPU that failed during a render of several, on stderr.
pub(super) fn report_lost_devices(backend: &dyn Backend) {
    for loss in backend.lost_devices() {
        eprintln!(
            "warning: {} failed and was left out; its samples {:?} were rendered on the other GPUs: {}",
            loss.device, loss.samples, loss.error
        );
    }
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
