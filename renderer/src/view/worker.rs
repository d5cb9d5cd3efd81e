//! The render thread: owns the backend, adds a short batch of samples to the film
//! at a time and sends the running image back, so the UI thread never waits on a
//! render, a kernel compile or an upload.
//!
//! Commands are drained before every batch, so a burst of camera moves costs one
//! reset, not one batch each. Any change of scene, view or backend restarts the
//! accumulation at sample 0; otherwise each batch continues the film
//! (`RenderJob::first_sample`), exactly as `renderer render` splits a long render.
//! A change of exposure or view alone keeps the film: it is a display transform, so the
//! image is read back again through the new one ([`crate::backend::Tonemap`]), even
//! when accumulation has finished.
//!
//! While the film has fewer samples than [`ViewParams::denoise_below`], the image sent
//! is the denoised one (`crate::denoise`): the film collects AOVs for it, so turning the
//! denoiser on restarts accumulation, while turning it off or moving the threshold
//! keeps the film. The denoiser runs at most once per [`DENOISE_DUTY`] of the time
//! between frames, so a slow one (the CPU's on a large image) does not halve the
//! sample rate: the batches in between add samples without being shown.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use scene_compiler::scene::{Camera, RenderSettings};

use crate::backend::select::{self, BackendChoice};
use crate::backend::{Backend, FilmLayers, FilmSize, FrameStats, Tonemap};
use crate::camera::CameraFrame;
use crate::job::RenderJob;
use crate::load::CompiledScene;

/// Longest wanted batch: keeps the image moving and commands answered at interactive rates.
const BATCH_BUDGET_MS: f64 = 50.0;

/// The largest share of the render thread's time the denoiser may take.
const DENOISE_DUTY: f64 = 0.25;

/// What to render, apart from the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewParams {
    /// The image; the worker stops adding samples at `settings.spp` and sleeps until the
    /// next command.
    pub settings: RenderSettings,
    pub camera: Camera,
    /// Most samples per pixel in one batch (fewer when a batch would exceed the budget).
    pub spp_per_frame: u32,
    /// Show the denoised image while the film has fewer samples per pixel than this;
    /// `None`: never denoise (and collect no AOVs).
    pub denoise_below: Option<u32>,
}

impl ViewParams {
    /// Whether the image of a film of `samples` samples per pixel is shown denoised.
    pub fn shows_denoised(&self, samples: u32) -> bool {
        self.denoise_below.is_some_and(|below| samples < below)
    }

    /// The ray-generation frame of this view.
    pub fn frame(&self) -> CameraFrame {
        CameraFrame::new(&self.camera, self.settings.width, self.settings.height)
    }
}

/// A request from the UI thread.
pub enum Command {
    /// A scene to render. The render thread holds it only until it is on the device, so
    /// that the session can move its instances in place afterwards (an `edit` on the
    /// scene sent next then copies only the moved bytes).
    Scene(Arc<CompiledScene>),
    View(ViewParams),
    Backend(BackendChoice),
    /// Recompile the CUDA kernels from this folder (a kernels hot reload).
    ReloadKernels(PathBuf),
}

/// The running image after one batch, and what it cost.
#[derive(Clone, Debug)]
pub struct Frame {
    /// RGBA8 through the view's exposure and view transform, top row first.
    pub rgba: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// Samples per pixel accumulated so far.
    pub samples: u32,
    /// When accumulation last restarted (an edit, a camera move): frames of one film
    /// share it.
    pub started: Instant,
    /// From `started` until this frame.
    pub elapsed: Duration,
    /// `rgba` is the denoised image, and the filter's time (ms); `None`: the film as
    /// accumulated.
    pub denoised: Option<f64>,
    /// The backend's report for this batch alone.
    pub batch: FrameStats,
    /// Samples per pixel in this batch.
    pub batch_spp: u32,
    /// Wall time of this batch, readback included.
    pub batch_wall: Duration,
    pub device: String,
    /// Copying the current scene to the device.
    pub upload: Option<Duration>,
    /// From receiving the current scene to its first image (upload and first batch).
    pub first_frame: Option<Duration>,
}

/// A message from the render thread.
pub enum Event {
    Frame(Box<Frame>),
    /// The backend failed; rendering pauses until the next command.
    Error(String),
    /// The backend changed (or a kernel reload finished): its device name and a note.
    Backend {
        device: String,
        note: Option<String>,
    },
    /// The new backend has no scene and the render thread no longer holds one: send the
    /// current scene again.
    NeedsScene,
}

/// The handle the UI keeps: a command channel in, an event channel out.
pub struct Worker {
    commands: Option<Sender<Command>>,
    events: Receiver<Event>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the render thread; `repaint` is woken after every event once it is set.
    pub fn spawn(
        choice: BackendChoice,
        kernels_dir: Option<PathBuf>,
        repaint: Arc<OnceLock<eframe::egui::Context>>,
    ) -> Worker {
        let (command_tx, command_rx) = mpsc::channel();
        let (event_tx, event_rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("view-render".to_owned())
            .spawn(move || {
                let mut state = RenderState::new(kernels_dir, event_tx, repaint);
                state.switch_backend(choice);
                state.run(&command_rx);
            })
            .ok();
        Worker { commands: Some(command_tx), events: event_rx, thread }
    }

    /// Queues a command; a dead render thread has already reported why through an event.
    pub fn send(&self, command: Command) {
        if let Some(commands) = &self.commands {
            let _ = commands.send(command);
        }
    }

    /// Every event that arrived since the last call.
    pub fn events(&self) -> Vec<Event> {
        self.events.try_iter().collect()
    }

    /// Whether the render thread is alive (the UI says so when it is not).
    pub fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the channel ends the loop after the batch in flight.
        self.commands = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Everything the render thread owns.
struct RenderState {
    kernels_dir: Option<PathBuf>,
    events: Sender<Event>,
    repaint: Arc<OnceLock<eframe::egui::Context>>,
    backend: Option<Box<dyn Backend>>,
    device: String,
    /// The scene to copy to the device before the next batch; dropped once it is there.
    to_upload: Option<Arc<CompiledScene>>,
    /// The backend holds a scene.
    on_device: bool,
    params: Option<ViewParams>,
    samples: u32,
    /// When sample 0 of the current accumulation was started.
    accumulation_since: Instant,
    /// The current film collects AOVs (decided at its sample 0: the denoiser was on).
    film_aovs: bool,
    /// The last denoised frame's time and the filter's cost (ms), for [`DENOISE_DUTY`].
    last_denoise: Option<(Instant, f64)>,
    /// Measured cost of one sample of one pixel, for sizing batches.
    ms_per_pixel_sample: Option<f64>,
    /// Set when the backend failed; cleared by any command.
    stalled: bool,
    scene_since: Instant,
    upload: Option<Duration>,
    first_frame: Option<Duration>,
    /// The exposure or view changed and the film did not: read the image again.
    redisplay: bool,
    /// The last frame sent, without its pixels: what a redisplay sends again.
    last_frame: Option<Frame>,
}

impl RenderState {
    fn new(
        kernels_dir: Option<PathBuf>,
        events: Sender<Event>,
        repaint: Arc<OnceLock<eframe::egui::Context>>,
    ) -> RenderState {
        RenderState {
            kernels_dir,
            events,
            repaint,
            backend: None,
            device: String::new(),
            to_upload: None,
            on_device: false,
            params: None,
            samples: 0,
            accumulation_since: Instant::now(),
            film_aovs: false,
            last_denoise: None,
            ms_per_pixel_sample: None,
            stalled: false,
            scene_since: Instant::now(),
            upload: None,
            first_frame: None,
            redisplay: false,
            last_frame: None,
        }
    }

    /// Renders batches while there is work and waits for commands when there is none.
    fn run(&mut self, commands: &Receiver<Command>) {
        loop {
            if self.idle() && !self.redisplay {
                match commands.recv() {
                    Ok(command) => self.handle(command),
                    Err(_) => return,
                }
            }
            loop {
                match commands.try_recv() {
                    Ok(command) => self.handle(command),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            let result = if !self.idle() {
                self.render_batch()
            } else if self.redisplay {
                self.redisplay_frame()
            } else {
                Ok(())
            };
            if let Err(e) = result {
                self.stalled = true;
                self.emit(Event::Error(format!("{e:#}")));
            }
        }
    }

    /// Nothing to render until a command arrives.
    fn idle(&self) -> bool {
        self.stalled
            || self.backend.is_none()
            || (self.to_upload.is_none() && !self.on_device)
            || self.params.is_none_or(|p| self.samples >= p.settings.spp)
    }

    fn handle(&mut self, command: Command) {
        self.stalled = false;
        match command {
            Command::Scene(scene) => {
                self.to_upload = Some(scene);
                self.restart();
                self.scene_since = Instant::now();
                self.first_frame = None;
            }
            Command::View(params) => {
                // Only a change of the sample target, of the display (exposure, view) or of
                // the denoiser keeps the film, unless the denoiser is turned on for a film
                // without AOVs; a display change alone is shown at once.
                let keeps_film = self.params.is_some_and(|old| {
                    let settings = RenderSettings { spp: old.settings.spp, ..params.settings };
                    let rest = ViewParams {
                        settings: settings.with_display_of(&old.settings),
                        denoise_below: old.denoise_below,
                        ..params
                    };
                    rest == old && (params.denoise_below.is_none() || self.film_aovs)
                });
                if !keeps_film {
                    self.restart();
                } else if self.params.is_some_and(|old| {
                    Tonemap::of(&old.settings) != Tonemap::of(&params.settings)
                        || old.shows_denoised(self.samples) != params.shows_denoised(self.samples)
                }) {
                    self.redisplay = true;
                }
                self.params = Some(params);
            }
            Command::Backend(choice) => self.switch_backend(choice),
            Command::ReloadKernels(dir) => self.reload_kernels(&dir),
        }
    }

    /// Starts a backend; on failure the one in use stays.
    fn switch_backend(&mut self, choice: BackendChoice) {
        match select::open(choice, self.kernels_dir.as_deref()) {
            Ok(selected) => {
                // The scene the old backend held, if it was sent and then dropped here.
                let lost = self.on_device && self.to_upload.is_none();
                self.device = selected.backend.device_name();
                self.backend = Some(selected.backend);
                self.on_device = false;
                self.restart();
                self.ms_per_pixel_sample = None;
                self.emit(Event::Backend { device: self.device.clone(), note: selected.fallback_note });
                if lost {
                    self.emit(Event::NeedsScene);
                }
            }
            Err(e) => self.emit(Event::Error(format!("{e:#}"))),
        }
    }

    fn reload_kernels(&mut self, dir: &std::path::Path) {
        let Some(backend) = self.backend.as_mut() else { return };
        let note = match backend.reload_kernels(dir) {
            Ok(Some(compile)) => {
                self.restart();
                format!("kernels reloaded in {:.0} ms", compile.time.as_secs_f64() * 1e3)
            }
            Ok(None) => "kernels changed; this backend has none".to_owned(),
            Err(e) => format!("kernel reload failed, the previous kernels stay: {e:#}"),
        };
        self.emit(Event::Backend { device: self.device.clone(), note: Some(note) });
    }

    /// Adds one batch of samples and sends the image.
    fn render_batch(&mut self) -> anyhow::Result<()> {
        let (Some(backend), Some(params)) = (self.backend.as_mut(), self.params) else {
            return Ok(());
        };
        let start = Instant::now();
        if let Some(scene) = &self.to_upload {
            let view = scene.view();
            match &scene.edit {
                // Instances moved in place: the backend copies the moved bytes alone
                // when it holds the blob the edit started from (else all of it).
                Some(edit) if self.on_device => backend.update(&view, edit)?,
                _ => {
                    let denoise = params.denoise_below.is_some();
                    let layers = FilmLayers::of(denoise, denoise);
                    let film =
                        FilmSize { width: params.settings.width, height: params.settings.height, layers };
                    backend.check_memory(&view, film)?;
                    backend.upload(&view)?;
                }
            }
            // Kept until here, so a failed upload is tried again at the next command.
            self.to_upload = None;
            self.on_device = true;
            self.upload = Some(start.elapsed());
            (self.samples, self.last_denoise) = (0, None);
        }
        let (width, height) = (params.settings.width, params.settings.height);
        let pixels = f64::from(width) * f64::from(height);
        let affordable = self
            .ms_per_pixel_sample
            .map_or(1, |ms| (BATCH_BUDGET_MS / (ms * pixels).max(1e-9)).floor() as u32);
        let batch_spp =
            affordable.clamp(1, params.spp_per_frame.max(1)).min(params.settings.spp - self.samples);
        let batch_start = Instant::now();
        if self.samples == 0 {
            self.accumulation_since = batch_start;
            self.film_aovs = params.denoise_below.is_some();
        }
        let samples = self.samples..self.samples + batch_spp;
        let job = RenderJob::new(&params.settings, &params.camera, samples).with_aovs(self.film_aovs);
        let batch = backend.render(&job)?;
        self.ms_per_pixel_sample = Some(batch.render_ms / (pixels * f64::from(batch_spp)));
        self.samples += batch_spp;
        let denoise = params.shows_denoised(self.samples);
        // A frame the denoiser is not due for is not shown (its samples stay in the
        // film); the last one it would denoise, and the last one of the render, are.
        let last_denoised =
            params.denoise_below.is_some() && !params.shows_denoised(self.samples + batch_spp);
        let due = self
            .last_denoise
            .is_none_or(|(at, cost)| at.elapsed().as_secs_f64() * 1e3 * DENOISE_DUTY >= cost);
        if denoise && !due && !last_denoised && self.samples < params.settings.spp {
            return Ok(());
        }
        let (rgba, denoised) = read_image(backend.as_mut(), &params.settings, denoise)?;
        if let Some(cost) = denoised {
            self.last_denoise = Some((Instant::now(), cost));
        }
        self.redisplay = false;
        if self.first_frame.is_none() {
            self.first_frame = Some(self.scene_since.elapsed());
        }
        let frame = Frame {
            rgba,
            width,
            height,
            samples: self.samples,
            started: self.accumulation_since,
            elapsed: self.accumulation_since.elapsed(),
            denoised,
            batch,
            batch_spp,
            batch_wall: batch_start.elapsed(),
            device: self.device.clone(),
            upload: self.upload,
            first_frame: self.first_frame,
        };
        self.last_frame = Some(Frame { rgba: Vec::new(), ..frame.clone() });
        self.emit(Event::Frame(Box::new(frame)));
        Ok(())
    }

    /// Sends the film read back again through the current exposure and view, with the
    /// last batch's stats: no samples are added.
    fn redisplay_frame(&mut self) -> anyhow::Result<()> {
        self.redisplay = false;
        let (Some(backend), Some(params), Some(last)) =
            (self.backend.as_mut(), self.params, &self.last_frame)
        else {
            return Ok(());
        };
        if self.samples == 0 || (last.width, last.height) != (params.settings.width, params.settings.height) {
            return Ok(());
        }
        let denoise = params.shows_denoised(self.samples);
        let (rgba, denoised) = read_image(backend.as_mut(), &params.settings, denoise)?;
        let frame = Frame { rgba, denoised, samples: self.samples, ..last.clone() };
        self.emit(Event::Frame(Box::new(frame)));
        Ok(())
    }

    /// Accumulation starts again at sample 0.
    fn restart(&mut self) {
        self.samples = 0;
        self.last_denoise = None;
    }

    fn emit(&self, event: Event) {
        let _ = self.events.send(event);
        if let Some(ctx) = self.repaint.get() {
            ctx.request_repaint();
        }
    }
}

/// The film through the settings' tonemap, denoised first when `denoise` is set (then
/// with the filter's time, ms).
fn read_image(
    backend: &mut dyn Backend,
    settings: &RenderSettings,
    denoise: bool,
) -> anyhow::Result<(Vec<u8>, Option<f64>)> {
    let tonemap = Tonemap::of(settings);
    if denoise {
        let cost = backend.denoise()?;
        Ok((backend.read_denoised_rgba8(tonemap)?, Some(cost)))
    } else {
        Ok((backend.read_rgba8(tonemap)?, None))
    }
}
