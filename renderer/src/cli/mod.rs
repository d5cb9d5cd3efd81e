//! The `renderer` command line: argument parsing, the commands, exit codes.
//!
//! `render` makes one image file; `bench` times repeated full-frame renders.
//! Errors are written for the user (what failed, on which file) and mapped to the
//! exit codes listed in `--help`; nothing on an input path panics.

mod bench;
mod progressive;
mod render;
mod view;
mod watch;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use scene_compiler::BlobView;
use scene_compiler::blob::layout::GlobalsRecord;
use scene_compiler::scene::limits;

use crate::backend::select::{self, BackendChoice};
use crate::backend::{Backend, RenderJob};
use crate::camera::CameraFrame;
use crate::scene_input::{InputError, SceneInput};

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  render or runtime error (backend failed to start or render, output not writable)
  2  bad input or usage (unknown flag, missing or invalid scene, unknown output extension)";

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
    /// Open a live editor window: progressive render, hot reload, pick and edit spheres, save.
    #[command(after_help = EXIT_CODES)]
    View(view::ViewArgs),
    /// Re-render a scene whenever it (or a kernel) changes; one timing line per reload.
    #[command(after_help = EXIT_CODES)]
    Watch(watch::WatchArgs),
}

/// The scene and how to render it, shared by every command.
#[derive(Debug, Args)]
struct SceneArgs {
    /// Scene to render: a `.ron` scene (compiled in memory) or a `.blob` from `scene-compiler build`.
    scene: PathBuf,
    /// Image width in pixels [default: the scene's settings].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(limits::MAX_IMAGE_SIDE)))]
    width: Option<u32>,
    /// Image height in pixels [default: the scene's settings].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(limits::MAX_IMAGE_SIDE)))]
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
    /// says so in one line and uses the CPU; `cuda` fails (exit 1) without a GPU.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Load the CUDA kernel sources from this folder instead of the ones built in
    /// (for kernel development; ignored by the CPU backend).
    #[arg(long, value_name = "DIR")]
    kernels: Option<PathBuf>,
}

/// Render settings after applying the flags over the scene's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
struct Settings {
    width: u32,
    height: u32,
    spp: u32,
    max_depth: u32,
    seed: u32,
}

impl Settings {
    /// One job rendering every sample of a fresh frame with these settings.
    fn full_frame(&self, globals: &GlobalsRecord) -> RenderJob {
        RenderJob {
            width: self.width,
            height: self.height,
            max_depth: self.max_depth,
            seed: self.seed,
            first_sample: 0,
            samples: self.spp,
            camera: CameraFrame::new(globals, self.width, self.height),
        }
    }
}

impl SceneArgs {
    fn settings(&self, globals: &GlobalsRecord) -> Settings {
        let [width, height, spp, max_depth] = globals.settings;
        Settings {
            width: self.width.unwrap_or(width),
            height: self.height.unwrap_or(height),
            spp: self.spp.unwrap_or(spp),
            max_depth: self.max_depth.unwrap_or(max_depth),
            seed: self.seed.unwrap_or(globals.seed_root[0]),
        }
    }
}

/// Loads a scene file (compiling a `.ron` in memory); errors are input errors.
fn load_scene(path: &Path) -> Result<SceneInput, Failure> {
    SceneInput::load(path).or_input()
}

/// Validates the loaded blob; returns the view and the load/parse time including validation.
fn view_scene(input: &SceneInput) -> Result<(BlobView<'_>, Duration), Failure> {
    let start = Instant::now();
    let view = input.view().or_input()?;
    Ok((view, input.times.load_parse + start.elapsed()))
}

/// Time spent bringing up a backend.
#[derive(Clone, Copy, Debug)]
struct BackendTimes {
    init: Duration,
    upload: Duration,
}

/// Starts the chosen backend and uploads the scene; a fallback note goes to stderr.
fn open_backend(args: &SceneArgs, view: &BlobView<'_>) -> Result<(Box<dyn Backend>, BackendTimes), Failure> {
    let selected = select::open(args.backend, args.kernels.as_deref()).or_runtime()?;
    if let Some(note) = &selected.fallback_note {
        eprintln!("{note}");
    }
    let mut backend = selected.backend;
    let start = Instant::now();
    backend.upload(view).or_runtime()?;
    Ok((backend, BackendTimes { init: selected.init_time, upload: start.elapsed() }))
}

/// A failed command: the error and which exit code it maps to.
#[derive(Debug)]
enum Failure {
    /// Exit 2: the user's input or flags are wrong.
    Input(anyhow::Error),
    /// Exit 1: the input was fine but rendering or writing failed.
    Runtime(anyhow::Error),
}

impl Failure {
    fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Input(_) => ExitCode::from(2),
            Failure::Runtime(_) => ExitCode::from(1),
        }
    }

    fn print(&self) {
        let (Failure::Input(e) | Failure::Runtime(e)) = self;
        // Scene diagnostics come rendered, with their own `error:` lines and source snippets.
        match e.downcast_ref::<InputError>() {
            Some(scene_error @ InputError::Scene(_)) => eprintln!("{scene_error}"),
            _ => eprintln!("error: {e:#}"),
        }
    }
}

/// Maps a result's error to a [`Failure`] of the right kind.
trait OrFail<T> {
    fn or_input(self) -> Result<T, Failure>;
    fn or_runtime(self) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> OrFail<T> for Result<T, E> {
    fn or_input(self) -> Result<T, Failure> {
        self.map_err(|e| Failure::Input(e.into()))
    }
    fn or_runtime(self) -> Result<T, Failure> {
        self.map_err(|e| Failure::Runtime(e.into()))
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    // clap prints usage errors itself and exits with 2 (0 for --help and --version).
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Render(args) => render::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::View(args) => view::run(&args),
        Command::Watch(args) => watch::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            failure.print();
            failure.exit_code()
        }
    }
}
