//! `renderer watch`: the headless live loop. Opens a [`Session`] on the scene, renders
//! a frame, and after every reload renders again, rewrites the image and prints one
//! line saying where the time went from the save to the new frame.
//!
//! stdout gets exactly one line per handled change (scripts and tests read it); full
//! diagnostics go to stderr. A broken scene or kernel, or a device that fails to
//! upload, render or read back, never stops the loop: the image on disk stays the
//! last good frame and the next change tries again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use scene_compiler::limits;

use super::{Failure, OrFail, session_failure};
use crate::backend::select::{self, BackendChoice};
use crate::backend::{Backend, FilmLayers, FilmSize, FrameStats, Tonemap};
use crate::job::{Overrides, RenderJob};
use crate::load::{CompiledScene, LoadTimes, SceneError};
use crate::output::{self, ImageFormat};
use crate::session::{Changed, Reload, SPP_PER_FRAME, Session, SessionOptions};
use crate::timing::{mega_per_second, ms};

/// How long one wait for a change lasts; only bounds how often `--frames` is checked.
const WAIT_SLICE: Duration = Duration::from_secs(1);

/// Flags of `renderer watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Scene to watch: a `.ron` scene or a `.blob` (reloaded whenever it changes).
    scene: PathBuf,
    /// Image rewritten after every reload: `.png` or `.exr` [default: <scene name>.png].
    #[arg(short = 'o', long = "out", visible_alias = "output", value_name = "FILE")]
    out: Option<PathBuf>,
    /// Where to render (see `renderer render --help`).
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Samples per pixel of each frame (the viewer's frame).
    #[arg(long, default_value_t = SPP_PER_FRAME,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(limits::MAX_SPP)))]
    spp: u32,
    /// Image width in pixels [default: the scene's settings; given alone, the height
    /// follows the scene's aspect ratio].
    #[arg(long, value_parser = super::image_side)]
    width: Option<u32>,
    /// Image height in pixels [default: the scene's settings; given alone, the width
    /// follows the scene's aspect ratio].
    #[arg(long, value_parser = super::image_side)]
    height: Option<u32>,
    /// Longest path, in ray segments [default: the scene's settings].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(limits::MAX_DEPTH)))]
    max_depth: Option<u32>,
    /// Also watch this CUDA kernels folder: a `.cu`/`.cuh` change recompiles the kernels.
    #[arg(long, value_name = "DIR")]
    kernels: Option<PathBuf>,
    /// Exit after this many successful reloads [default: run until Ctrl-C].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    frames: Option<u32>,
    /// Turn next-event estimation off (BSDF sampling only; see `renderer render --help`).
    #[arg(long)]
    no_nee: bool,
    #[command(flatten)]
    image: super::image_args::ImageArgs,
}

impl WatchArgs {
    /// The flags that override the scene's settings; every frame has `--spp` samples.
    fn overrides(&self) -> Overrides {
        Overrides {
            width: self.width,
            height: self.height,
            spp: Some(self.spp),
            max_depth: self.max_depth,
            seed: None,
            exposure: self.image.exposure,
            view: self.image.view(),
            sampler: self.image.sampler(),
        }
    }
}

/// Where one frame's time went after the scene was in hand.
struct FrameTimes {
    upload: Duration,
    /// Render call and readback: until the image is in host memory.
    frame: Duration,
    stats: FrameStats,
    /// What the backend's own time measures: `kernel` (CUDA) or `render` (CPU).
    device_label: &'static str,
}

/// The backend, the output and the settings every frame uses.
struct Loop<'a> {
    args: &'a WatchArgs,
    backend: Box<dyn Backend>,
    out: PathBuf,
    format: ImageFormat,
}

/// Watches and renders until `--frames` reloads succeeded (or forever).
pub fn run(args: &WatchArgs) -> Result<(), Failure> {
    let out = args.out.clone().unwrap_or_else(|| default_output(&args.scene));
    let format = output::check_output(&out).or_usage()?;
    crate::fault::Faults::from_env().or_usage()?;
    let start = Instant::now();
    let mut session = Session::open(&args.scene, args.kernels.as_deref(), SessionOptions::default())
        .map_err(session_failure)?;
    let open = start.elapsed();
    let selected = select::open(args.backend, args.kernels.as_deref()).or_device()?;
    if let Some(note) = &selected.fallback_note {
        eprintln!("{note}");
    }
    eprintln!(
        "watching {} on {}; the image goes to {} (Ctrl-C stops)",
        args.scene.display(),
        selected.backend.device_name(),
        out.display()
    );
    let mut live = Loop { args, backend: selected.backend, out, format };

    match session.current().cloned() {
        Some(scene) => match live.frame(&scene, true) {
            Ok(times) => say(&format!(
                "gen {} scene: open {}, {}",
                session.generation(),
                ms(open),
                times.summary(open)
            )),
            Err(error) => device_error(&error, "waiting for a change"),
        },
        None => {
            let error = session.last_error().map_or_else(String::new, |e| e.message.clone());
            eprintln!("{error}");
            say(&format!("error scene: {}; waiting for a fix", locate(&args.scene, session.last_error())));
        }
    }

    let mut successes = 0;
    while args.frames.is_none_or(|n| successes < n) {
        for reload in session.wait(WAIT_SLICE) {
            match live.handle(&session, &reload) {
                Ok(true) => successes += 1,
                Ok(false) => {}
                // The image on disk is the last good frame; the next change tries again.
                Err(error) => device_error(&error, "keeping the last image"),
            }
        }
    }
    Ok(())
}

impl Loop<'_> {
    /// Renders and writes after one reload and prints its line; true when it succeeded.
    fn handle(&mut self, session: &Session, reload: &Reload) -> anyhow::Result<bool> {
        let before = reload.detect + reload.compile;
        match (reload.changed, &reload.outcome) {
            (Changed::Scene, Err(error)) => {
                eprintln!("{error}");
                say(&format!(
                    "error scene: {}; keeping generation {}",
                    locate(session.scene_path(), Some(error)),
                    session.generation()
                ));
                Ok(false)
            }
            (Changed::Scene, Ok(())) => {
                let Some(scene) = session.current().cloned() else { return Ok(false) };
                let times = self.frame(&scene, reload.content_changed)?;
                let details = compile_details(&scene.times);
                say(&format!(
                    "gen {} scene: detect {}, compile {}{details}, {}",
                    reload.generation,
                    ms(reload.detect),
                    ms(reload.compile),
                    times.summary(before)
                ));
                Ok(true)
            }
            (Changed::Kernels, _) => self.reload_kernels(session, reload),
        }
    }

    /// Recompiles the kernels and renders with them; a failed compile keeps the old ones.
    fn reload_kernels(&mut self, session: &Session, reload: &Reload) -> anyhow::Result<bool> {
        let Some(dir) = session.kernels_dir() else { return Ok(false) };
        let start = Instant::now();
        match self.backend.reload_kernels(dir) {
            Ok(Some(_)) => {}
            Ok(None) => {
                say(&format!(
                    "gen {} kernels: this backend has no kernels; nothing to reload",
                    reload.generation
                ));
                return Ok(true);
            }
            Err(e) => {
                eprintln!("{e:#}");
                say(&format!(
                    "error kernels: {}; keeping the previous kernels",
                    first_error(&format!("{e:#}"))
                ));
                return Ok(false);
            }
        }
        let compile = start.elapsed();
        let Some(scene) = session.current().cloned() else { return Ok(true) };
        let times = self.frame(&scene, false)?;
        say(&format!(
            "gen {} kernels: detect {}, compile {}, {}",
            reload.generation,
            ms(reload.detect),
            ms(compile),
            times.summary(reload.detect + compile)
        ));
        Ok(true)
    }

    /// Uploads (when `upload`), renders one frame, reads it back and writes the image.
    fn frame(&mut self, scene: &CompiledScene, upload: bool) -> anyhow::Result<FrameTimes> {
        let start = Instant::now();
        let view = scene.view();
        let settings = self.args.overrides().apply(view.settings());
        if upload {
            match &scene.edit {
                // Instances moved in place: the same sizes, only the edited bytes to copy.
                Some(edit) => self.backend.update(&view, edit)?,
                None => {
                    let film = FilmSize {
                        width: settings.width,
                        height: settings.height,
                        layers: FilmLayers::Beauty,
                    };
                    self.backend.check_memory(&view, film)?;
                    self.backend.upload(&view)?;
                }
            }
        }
        let upload = if upload { start.elapsed() } else { Duration::ZERO };
        let job = RenderJob::full_frame(&settings, &view.camera()).with_nee(!self.args.no_nee);
        let start = Instant::now();
        let stats = self.backend.render(&job)?;
        let pixels = output::read_back(self.backend.as_mut(), self.format, Tonemap::of(&settings))?;
        let frame = start.elapsed();
        output::write(&self.out, settings.width, settings.height, pixels)?;
        // CUDA events time the kernels alone; the CPU's time is its whole render.
        let device_label = if self.backend.kernel_compile().is_some() { "kernel" } else { "render" };
        Ok(FrameTimes { upload, frame, stats, device_label })
    }
}

impl FrameTimes {
    /// `upload …, first frame … (kernel …), total …, … Mrays/s` (`render` for `kernel` on
    /// the CPU); `before` is the time spent before the upload.
    fn summary(&self, before: Duration) -> String {
        format!(
            "upload {}, first frame {} ({} {}), total {}, {} Mrays/s",
            ms(self.upload),
            ms(self.frame),
            self.device_label,
            ms(Duration::from_secs_f64(self.stats.render_ms / 1e3)),
            ms(before + self.upload + self.frame),
            rate(mega_per_second(self.stats.rays, self.stats.render_ms))
        )
    }
}

/// `path:line:col: message` for a scene error (`path: message` when it has no location).
fn locate(path: &Path, error: Option<&SceneError>) -> String {
    let Some(error) = error else { return format!("{}: unknown error", path.display()) };
    let message = first_line(&error.message);
    let message = message.strip_prefix("error: ").unwrap_or(message);
    match (error.line, error.column) {
        (Some(line), Some(column)) => format!("{}:{line}:{column}: {message}", path.display()),
        _ => format!("{}: {message}", path.display()),
    }
}

/// A rate with a precision that suits its size (tiny test frames trace few rays).
fn rate(value: f64) -> String {
    if value >= 100.0 { format!("{value:.0}") } else { format!("{value:.2}") }
}

/// The compiler log's first `file:line: error: …` line, or else its first line.
fn first_error(log: &str) -> &str {
    log.lines().find(|l| l.contains(": error")).unwrap_or_else(|| first_line(log))
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// A failed upload, render or read-back: the full error on stderr, one line on stdout
/// (`error device: GPU 0 · …: rendering: …; keeping the last image`).
fn device_error(error: &anyhow::Error, then: &str) {
    eprintln!("error: {error:#}");
    say(&format!("error device: {}; {then}", first_line(&format!("{error:#}"))));
}

/// Prints one line on stdout and flushes it at once (readers wait on it).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) is not a reason to stop watching.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `<scene stem>.png` in the current folder.
fn default_output(scene: &Path) -> PathBuf {
    let stem = scene.file_stem().map_or_else(|| "watch".into(), |s| s.to_os_string());
    PathBuf::from(stem).with_extension("png")
}

/// What `watch` says after a reload's compile time: its stages (parse, primitives, BVH,
/// encode), whether the BVH was reused or refitted, and, with instances, how many of
/// the meshes' own trees were built.
fn compile_details(t: &LoadTimes) -> String {
    let mut details = String::new();
    if let (Some(primitives), Some(bvh)) = (t.terrains, t.bvh_build) {
        let encode = t.compile.unwrap_or_default().saturating_sub(primitives + bvh);
        details += &format!(
            " (parse {}, primitives {}, BVH {}, encode {})",
            ms(t.load_parse),
            ms(primitives),
            ms(bvh),
            ms(encode)
        );
    }
    details += match (t.bvh_reused, t.bvh_refitted, t.moved_in_place) {
        (true, ..) => " (BVH reused)",
        (false, true, true) => " (instances moved in place)",
        (false, true, false) => " (BVH refitted)",
        (false, false, _) => "",
    };
    if t.bottom_levels > 0 {
        details += &format!(" ({} of {} mesh trees built)", t.bottom_levels_built, t.bottom_levels);
    }
    details
}
