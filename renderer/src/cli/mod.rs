//! The `renderer` command line: argument parsing, the commands, exit codes.
//!
//! `render` makes one image file (or, with `--shard`, one partial film of a render
//! farm's render); `merge` adds partial films into the image; `bench` times repeated
//! full-frame renders. `render` and `bench` take `--gpus` to split frames over GPUs.
//! Errors are written for the user (what failed, on which file) and mapped to the
//! exit codes listed in `--help`; nothing on an input path panics.

mod bench;
mod image_args;
mod interrupt;
#[cfg(feature = "watch")]
mod live_memory;
mod merge;
mod progressive;
mod render;
#[cfg(feature = "viewer")]
mod view;
#[cfg(feature = "watch")]
mod watch;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use scene_compiler::limits;
use scene_compiler::scene::RenderSettings;
use scene_compiler::{BlobView, CompileOptions};

use crate::backend::select::{self, BackendChoice, GpuSelection};
use crate::backend::{Backend, FilmSize};
use crate::job::Overrides;

use self::image_args::ImageArgs;
use crate::load::{self, CompiledScene, SceneError, SceneErrorKind};

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  invalid input: a scene with errors (printed with file:line:col), a blob that fails validation,
     or (merge) files that are not the partial films of one render, each shard once
  2  usage or I/O: bad flags, a file that cannot be read or written, an unknown file type
  3  device failure: the backend did not start, or failed while rendering (the GPU and the stage
     are named), or a scene and film that do not fit in the GPU's free memory
  4  (render --checkpoint) interrupted by SIGINT or SIGTERM: the film is saved in the checkpoint
     file and no image was written; run the same command with --resume FILE to finish";

/// Exit code of a render stopped by SIGINT/SIGTERM after saving its checkpoint.
pub const EXIT_INTERRUPTED: u8 = 4;

/// Path tracer for scene-compiler scenes, on CUDA or the CPU.
#[derive(Debug, Parser)]
#[command(name = "renderer", version, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render a scene to an image file and print where the time went.
    #[command(after_help = EXIT_CODES)]
    Render(render::RenderArgs),
    /// Time repeated full-frame renders of a scene (median, min, max, throughput).
    #[command(after_help = EXIT_CODES)]
    Bench(bench::BenchArgs),
    /// Merge the partial films of a sharded render (`render --shard i/N`) into one image.
    #[command(after_help = EXIT_CODES)]
    Merge(merge::MergeArgs),
    /// Open a live editor window: progressive render, hot reload, pick and edit spheres, save.
    ///
    /// Renders on one GPU (or the CPU); several GPUs (`--gpus`) are for `render` and `bench`.
    #[cfg(feature = "viewer")]
    #[command(after_help = EXIT_CODES)]
    View(view::ViewArgs),
    /// Re-render a scene whenever it (or a kernel) changes; one timing line per reload.
    ///
    /// Renders on one GPU (or the CPU); several GPUs (`--gpus`) are for `render` and `bench`.
    #[cfg(feature = "watch")]
    #[command(after_help = EXIT_CODES)]
    Watch(watch::WatchArgs),
}

/// The scene and how to render it, shared by every command.
#[derive(Debug, Args)]
struct SceneArgs {
    /// Scene to render: a `.ron` scene (compiled in memory) or a `.blob` from `scene-compiler build`.
    scene: PathBuf,
    /// Image width in pixels [default: the scene's settings; given alone, the height
    /// follows the scene's aspect ratio].
    #[arg(long, value_parser = image_side)]
    width: Option<u32>,
    /// Image height in pixels [default: the scene's settings; given alone, the width
    /// follows the scene's aspect ratio].
    #[arg(long, value_parser = image_side)]
    height: Option<u32>,
    /// Samples per pixel [default: the scene's settings].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(limits::MAX_SPP)))]
    spp: Option<u32>,
    /// Longest path, in ray segments [default: the scene's settings].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(limits::MAX_DEPTH)))]
    max_depth: Option<u32>,
    /// Random seed; the same seed gives the same image on a backend [default: the scene's settings].
    #[arg(long)]
    seed: Option<u32>,
    /// Where to render: `auto` uses CUDA when a driver and GPU are usable and otherwise
    /// says so in one line and uses the CPU; `cuda` fails (exit 3) without a GPU.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Render on several GPUs at once: `all`, or device numbers such as `0,2`. Each
    /// frame's samples are split between them in proportion to their SM counts and
    /// the sums added on the host. Needs CUDA (exit 3 without it) [default: one GPU,
    /// as the backend option picks].
    #[arg(long, value_name = "all|LIST")]
    gpus: Option<GpuSelection>,
    /// Load the CUDA kernel sources from this folder instead of the ones built in
    /// (for kernel development; ignored by the CPU backend).
    #[arg(long, value_name = "DIR")]
    kernels: Option<PathBuf>,
    /// Turn next-event estimation off: light only from paths that hit emitters by
    /// chance (BSDF sampling), for comparison. Point and directional lights, which
    /// no path can hit, then add nothing.
    #[arg(long)]
    no_nee: bool,
    #[command(flatten)]
    image: ImageArgs,
}

/// A `--width` or `--height`: 1 to [`limits::MAX_IMAGE_SIDE`], with a message that
/// says what the limit is and why, not only that the value is out of range.
pub(crate) fn image_side(text: &str) -> Result<u32, String> {
    let max = limits::MAX_IMAGE_SIDE;
    let side: u64 =
        text.trim().parse().map_err(|_| format!("`{text}` is not a number of pixels (1 to {max})"))?;
    if side == 0 {
        return Err("an image side is at least 1 pixel".to_owned());
    }
    if side > u64::from(max) {
        return Err(format!(
            "{side} pixels is more than a film holds: at most {max} pixels per side ({max}x{max}, \
             {} Mpixels; on a GPU that film alone needs {} of device memory)",
            u64::from(max) * u64::from(max) / 1_000_000,
            crate::backend::cuda::memory::Bytes(
                u64::from(max) * u64::from(max) * crate::backend::cuda::memory::FILM_BYTES_PER_PIXEL
            )
        ));
    }
    Ok(side as u32)
}

impl SceneArgs {
    /// The flags that override the scene's settings.
    fn overrides(&self) -> Overrides {
        Overrides {
            width: self.width,
            height: self.height,
            spp: self.spp,
            max_depth: self.max_depth,
            seed: self.seed,
            exposure: self.image.exposure,
            view: self.image.view(),
            sampler: self.image.sampler(),
        }
    }
}

/// Loads a scene file (compiling a `.ron` in memory) with the loader's errors.
fn load_scene(path: &Path) -> Result<CompiledScene, Failure> {
    let compiled = load::load(path, &CompileOptions::default()).map_err(Failure::from)?;
    for warning in scene_compiler::meshes::warnings(&compiled.scene) {
        eprintln!("warning: {warning}");
    }
    Ok(compiled)
}

/// The loaded scene's blob and its settings with the flags applied; the load time
/// includes the validation `view` repeats.
fn view_scene<'a>(
    scene: &'a CompiledScene,
    overrides: &Overrides,
) -> (BlobView<'a>, RenderSettings, Duration) {
    let start = Instant::now();
    let view = scene.view();
    let settings = overrides.apply(view.settings());
    (view, settings, scene.times.load_parse + start.elapsed())
}

/// Time spent bringing up a backend.
#[derive(Clone, Copy, Debug)]
struct BackendTimes {
    init: Duration,
    upload: Duration,
}

/// Starts the chosen backend (several GPUs with `--gpus`), checks that the scene and a
/// `film` (its size and layers) fit in its memory, and uploads the scene; a fallback note
/// goes to stderr.
fn open_backend(
    args: &SceneArgs,
    view: &BlobView<'_>,
    film: FilmSize,
) -> Result<(Box<dyn Backend>, BackendTimes), Failure> {
    let selected = match &args.gpus {
        Some(_) if args.backend == BackendChoice::Cpu => {
            return Err(Failure::Usage(anyhow::anyhow!(
                "--gpus renders on CUDA GPUs; it cannot go with --backend cpu"
            )));
        }
        Some(gpus) => select::open_gpus(gpus, args.kernels.as_deref()).or_device()?,
        None => select::open(args.backend, args.kernels.as_deref()).or_device()?,
    };
    if let Some(note) = &selected.fallback_note {
        eprintln!("{note}");
    }
    let mut backend = selected.backend;
    backend.check_memory(view, film).or_device()?;
    let start = Instant::now();
    backend.upload(view).or_device()?;
    Ok((backend, BackendTimes { init: selected.init_time, upload: start.elapsed() }))
}

/// A failed command: the error and which exit code it maps to (see [`EXIT_CODES`]).
#[derive(Debug)]
enum Failure {
    /// Exit 1: the scene or blob is invalid.
    Invalid(anyhow::Error),
    /// Exit 2: bad flags, or a file that cannot be read or written.
    Usage(anyhow::Error),
    /// Exit 3: the backend did not start or failed while rendering.
    Device(anyhow::Error),
    /// Exit 4: stopped by a signal, the film saved in the checkpoint.
    Interrupted(anyhow::Error),
}

impl Failure {
    fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Invalid(_) => ExitCode::from(1),
            Failure::Usage(_) => ExitCode::from(2),
            Failure::Device(_) => ExitCode::from(3),
            Failure::Interrupted(_) => ExitCode::from(EXIT_INTERRUPTED),
        }
    }

    fn print(&self) {
        if let Failure::Interrupted(e) = self {
            eprintln!("interrupted: {e:#}");
            return;
        }
        let (Failure::Invalid(e) | Failure::Usage(e) | Failure::Device(e) | Failure::Interrupted(e)) = self;
        // Scene diagnostics come rendered, with their own `error:` lines and source snippets.
        match e.downcast_ref::<SceneError>() {
            Some(scene_error) => eprintln!("{scene_error}"),
            None => eprintln!("error: {e:#}"),
        }
    }
}

impl From<SceneError> for Failure {
    fn from(error: SceneError) -> Failure {
        match error.kind {
            SceneErrorKind::Diagnostics | SceneErrorKind::Invalid => Failure::Invalid(error.into()),
            SceneErrorKind::Io | SceneErrorKind::UnknownType => Failure::Usage(error.into()),
        }
    }
}

/// A part or checkpoint that cannot be read is an I/O error (exit 2); one that is not
/// a partial film is invalid input (exit 1).
fn part_failure(error: crate::shard::partial::PartError) -> Failure {
    use crate::shard::partial::PartError;
    match error {
        PartError::Unreadable { .. } => Failure::Usage(error.into()),
        PartError::NotPartial { .. } => Failure::Invalid(error.into()),
    }
}

#[cfg(feature = "watch")]
/// An error from opening a session: the loader's own kind when it is one, else I/O.
fn session_failure(error: anyhow::Error) -> Failure {
    match error.downcast::<SceneError>() {
        Ok(scene_error) => scene_error.into(),
        Err(other) => Failure::Usage(other),
    }
}

/// Maps a result's error to a [`Failure`] of the right kind.
trait OrFail<T> {
    fn or_usage(self) -> Result<T, Failure>;
    fn or_device(self) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> OrFail<T> for Result<T, E> {
    fn or_usage(self) -> Result<T, Failure> {
        self.map_err(|e| Failure::Usage(e.into()))
    }
    fn or_device(self) -> Result<T, Failure> {
        self.map_err(|e| Failure::Device(e.into()))
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    // clap prints usage errors itself and exits with 2 (0 for --help and --version).
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Render(args) => render::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Merge(args) => merge::run(&args),
        #[cfg(feature = "viewer")]
        Command::View(args) => {
            live_memory::keep_freed_blocks();
            view::run(&args)
        }
        #[cfg(feature = "watch")]
        Command::Watch(args) => {
            live_memory::keep_freed_blocks();
            watch::run(&args)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            failure.print();
            failure.exit_code()
        }
    }
}
