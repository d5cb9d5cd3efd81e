//! `renderer view`: a live editor. The window shows the scene path-traced
//! progressively; the scene file hot-reloads through a [`Session`]; spheres, boxes,
//! terrains and meshes can be picked (or chosen in the outline) and edited, spheres
//! added, any of them deleted, with undo/redo, and the scene saved back as RON.
//!
//! One [`ViewApp`] holds the UI state. Its [`ViewApp::show`] only lays out widgets and
//! sends commands: compiles happen in the session (milliseconds), renders on the
//! render thread ([`worker`]), so the UI never waits on either.
//!
//! - [`orbit`]: the camera (orbit, pan, zoom, fly).
//! - [`selected`]: what a selection names.
//! - [`pick`]: what is under a pixel.
//! - [`highlight`]: the selection drawn over the render.
//! - [`edit`]: selection, edits through the session, undo/redo.
//! - [`panels`]: the side panel, tool bar and error panel; [`outline`] and
//!   [`selection_editor`]: the side panel's list of things and the editor of the selected one,
//!   with [`material_editor`] for its material and [`texture_editor`] for the material's
//!   textures.

pub mod edit;
mod highlight;
mod material_editor;
pub mod orbit;
mod outline;
mod panels;
pub mod pick;
pub mod selected;
mod selection_editor;
pub mod texture_editor;
pub mod worker;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use eframe::egui::{self, Color32, Key, KeyboardShortcut, Modifiers, Pos2, Rect, Sense};
use scene_compiler::scene::{Camera, SamplerKind, ViewTransform};

use self::edit::Editor;
use self::orbit::Orbit;
use self::pick::Picker;
use self::selected::Selected;
use self::worker::{Command, Event, Frame, ViewParams, Worker};
use crate::backend::select::BackendChoice;
use crate::job::Overrides;
use crate::load::{CompiledScene, SceneError};
use crate::output::{self, Pixels};
use crate::session::{Changed, Reload, Session, SessionOptions};

/// The denoiser is on below this many samples per pixel until the side panel says
/// otherwise: at 256 spp most scenes' raw image is as clean as the 4-spp denoised one
/// is smooth (docs/path-tracing.md, "The denoiser"), and the raw image has no bias.
const DENOISE_BELOW_SPP: u32 = 256;

/// How often the session is polled for file changes while nothing else repaints.
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// What `renderer view` was started with.
#[derive(Clone, Debug)]
pub struct ViewOptions {
    pub scene: PathBuf,
    pub backend: BackendChoice,
    pub kernels: Option<PathBuf>,
    /// Most samples per pixel per batch.
    pub spp_per_frame: u32,
    /// Render resolution as a fraction of the window's pixels.
    pub scale: f32,
    /// Where the Screenshot button writes; `None`: the scene's folder.
    pub screenshot_dir: Option<PathBuf>,
    /// `--exposure`, `--view`: the display until the side panel's controls change it.
    pub exposure: Option<f32>,
    pub view: Option<ViewTransform>,
    /// `--sampler`.
    pub sampler: Option<SamplerKind>,
}

/// The render settings the side panel edits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Controls {
    /// Render resolution as a fraction of the image area's physical pixels.
    pub scale: f32,
    pub spp_per_frame: u32,
    /// `None` until a scene supplies its own.
    pub max_depth: Option<u32>,
    /// Accumulation stops here.
    pub max_spp: u32,
    pub backend: BackendChoice,
    /// The flags' exposure and view, shown instead of the scene's until the exposure
    /// slider or the view selector edits the scene's settings (which clears both).
    pub exposure: Option<f32>,
    pub view: Option<ViewTransform>,
    /// The flag's sampler, instead of the scene's.
    pub sampler: Option<SamplerKind>,
    /// Show the denoised image while the film has fewer than `denoise_below` spp.
    pub denoise: bool,
    pub denoise_below: u32,
}

/// A message for the tool bar: the outcome of the last action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub is_error: bool,
}

/// The live editor's state.
pub struct ViewApp {
    pub session: Session,
    pub editor: Editor,
    pub controls: Controls,
    worker: Worker,
    /// The context the render thread wakes; set on the first frame.
    repaint: Arc<OnceLock<egui::Context>>,
    orbit: Option<Orbit>,
    /// The scene camera the orbit was last reset to: a reload that changes it resets the orbit.
    scene_camera: Option<Camera>,
    sent_scene: Option<Arc<CompiledScene>>,
    sent_params: Option<ViewParams>,
    /// Keyed by the session's generation: a blob alone does not tell the scene's own
    /// boxes from its terrains' columns.
    picker: Option<(u64, Picker)>,
    frame: Option<Box<Frame>>,
    texture: Option<egui::TextureHandle>,
    /// The selected material's texture rows: the image files being typed, the thumbnails.
    textures: texture_editor::TextureUi,
    device: String,
    backend_note: Option<String>,
    worker_error: Option<String>,
    last_reload: Option<Reload>,
    /// Reloads seen, failed ones included: the panel numbers attempts, since a failed
    /// reload keeps the scene's generation.
    reload_attempts: u64,
    /// Where the Screenshot button writes (editable in the side panel).
    pub screenshot_dir: PathBuf,
    status: Option<Status>,
    /// Where the image was drawn last frame, in points.
    image_rect: Option<Rect>,
    ui_frame: Duration,
    cuda_available: bool,
}

impl ViewApp {
    /// An editor on an opened session; the render thread starts at once.
    pub fn new(session: Session, options: &ViewOptions) -> ViewApp {
        let repaint = Arc::new(OnceLock::new());
        let worker = Worker::spawn(options.backend, options.kernels.clone(), Arc::clone(&repaint));
        ViewApp {
            session,
            editor: Editor::default(),
            controls: Controls {
                scale: options.scale.clamp(0.1, 1.0),
                spp_per_frame: options.spp_per_frame.max(1),
                max_depth: None,
                max_spp: 4096,
                backend: options.backend,
                exposure: options.exposure,
                view: options.view,
                sampler: options.sampler,
                denoise: true,
                denoise_below: DENOISE_BELOW_SPP,
            },
            worker,
            repaint,
            orbit: None,
            scene_camera: None,
            sent_scene: None,
            sent_params: None,
            picker: None,
            frame: None,
            texture: None,
            textures: texture_editor::TextureUi::default(),
            device: String::new(),
            backend_note: None,
            worker_error: None,
            last_reload: None,
            reload_attempts: 0,
            screenshot_dir: options
                .screenshot_dir
                .clone()
                .unwrap_or_else(|| output::folder_of(&options.scene).to_owned()),
            status: None,
            image_rect: None,
            ui_frame: Duration::ZERO,
            cuda_available: crate::backend::cuda::driver_available(),
        }
    }

    /// The latest image from the render thread.
    pub fn frame(&self) -> Option<&Frame> {
        self.frame.as_deref()
    }

    /// Whether the latest image is of the current view's size with all of its samples
    /// (the render thread has stopped adding samples).
    pub fn finished(&self) -> bool {
        match (&self.frame, self.sent_params) {
            (Some(frame), Some(params)) => {
                (frame.width, frame.height, frame.samples)
                    == (params.settings.width, params.settings.height, params.settings.spp)
            }
            _ => false,
        }
    }

    /// The line under the image: samples per pixel, time, whether it is denoised.
    pub fn status_line(&self) -> Option<String> {
        self.frame.as_ref().map(|frame| panels::status_line(frame, self.finished()))
    }

    /// The outcome of the last action (save, screenshot, rejected edit).
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// Lays out the whole window; called by eframe every frame, and by tests.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let _ = self.repaint.get_or_init(|| ctx.clone());
        self.ui_frame = Duration::from_secs_f32(ctx.input(|i| i.unstable_dt).max(0.0));
        self.poll_session();
        self.take_events(&ctx);
        self.shortcuts(ui);

        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar(ui));
        egui::Panel::right("side").default_size(330.0).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| self.side_panel(ui));
        });
        if let Some(status) = self.status_line() {
            egui::Panel::bottom("status_line").show(ui, |ui| ui.label(status));
        }
        if let Some(error) = self.session.last_error().cloned() {
            egui::Panel::bottom("error").resizable(true).default_size(180.0).show(ui, |ui| {
                panels::error_panel(ui, &error);
            });
        }
        egui::CentralPanel::default().show(ui, |ui| self.image_area(ui));

        self.send_view(&ctx);
        ctx.request_repaint_after(POLL_INTERVAL);
    }

    /// Handles file reloads and hands a new scene to the render thread.
    fn poll_session(&mut self) {
        for reload in self.session.poll() {
            if reload.changed == Changed::Kernels
                && let Some(dir) = self.session.kernels_dir()
            {
                self.worker.send(Command::ReloadKernels(dir.to_owned()));
            }
            self.reload_attempts += 1;
            self.last_reload = Some(reload);
        }
        let Some(current) = self.session.current().cloned() else { return };
        if self.sent_scene.as_ref().is_some_and(|sent| Arc::ptr_eq(sent, &current)) {
            return;
        }
        let camera = current.scene.camera;
        if self.scene_camera != Some(camera) {
            self.orbit = Some(Orbit::from_camera(&camera));
            self.scene_camera = Some(camera);
        }
        if self.controls.max_depth.is_none() {
            self.controls.max_depth = Some(current.scene.settings.max_depth);
        }
        if self.editor.selected.is_some_and(|s| !s.exists_in(&current.scene)) {
            self.editor.selected = None;
        }
        // A save or a no-op reload yields a new Arc with the same blob: nothing to upload.
        let same_content =
            self.sent_scene.as_ref().is_some_and(|sent| sent.content_hash == current.content_hash);
        if !same_content {
            self.worker.send(Command::Scene(Arc::clone(&current)));
        }
        self.sent_scene = Some(current);
    }

    fn take_events(&mut self, ctx: &egui::Context) {
        for event in self.worker.events() {
            match event {
                Event::Frame(frame) => {
                    let image = egui::ColorImage::from_rgba_unmultiplied(
                        [frame.width as usize, frame.height as usize],
                        &frame.rgba,
                    );
                    match &mut self.texture {
                        Some(texture) => texture.set(image, egui::TextureOptions::LINEAR),
                        None => {
                            self.texture =
                                Some(ctx.load_texture("render", image, egui::TextureOptions::LINEAR))
                        }
                    }
                    self.worker_error = None;
                    self.device.clone_from(&frame.device);
                    self.frame = Some(frame);
                }
                Event::Error(message) => self.worker_error = Some(message),
                Event::Backend { device, note } => {
                    self.device = device;
                    self.backend_note = note;
                }
            }
        }
    }

    /// Ctrl+S, Ctrl+Z, Ctrl+Shift+Z, Delete, and WASD/QE flying.
    fn shortcuts(&mut self, ui: &mut egui::Ui) {
        let redo = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
        let undo = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
        let save = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
        // Redo first: consuming Ctrl+Z would also match Ctrl+Shift+Z.
        if ui.input_mut(|i| i.consume_shortcut(&redo)) {
            self.redo();
        }
        if ui.input_mut(|i| i.consume_shortcut(&undo)) {
            self.undo();
        }
        if ui.input_mut(|i| i.consume_shortcut(&save)) {
            self.save();
        }
        if ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        if ui.input(|i| i.key_pressed(Key::Delete)) {
            let result = self.editor.delete_selected(&mut self.session);
            self.report_edit(result);
        }
        let (axes, dt) = ui.input(|i| {
            let axis = |plus: Key, minus: Key| f32::from(i.key_down(plus)) - f32::from(i.key_down(minus));
            ((axis(Key::W, Key::S), axis(Key::D, Key::A), axis(Key::E, Key::Q)), i.stable_dt.min(0.1))
        });
        if axes != (0.0, 0.0, 0.0)
            && let Some(orbit) = &mut self.orbit
        {
            orbit.fly(axes.0, axes.1, axes.2, dt);
            ui.ctx().request_repaint();
        }
    }

    /// The render, with mouse camera control and click-to-select.
    fn image_area(&mut self, ui: &mut egui::Ui) {
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.image_rect = Some(rect);
        match &self.texture {
            Some(texture) => {
                let uv = Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0));
                ui.painter().image(texture.id(), rect, uv, Color32::WHITE);
            }
            None => {
                let text =
                    if self.session.current().is_some() { "rendering…" } else { "no scene compiled yet" };
                ui.painter().text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    text,
                    egui::FontId::default(),
                    ui.visuals().text_color(),
                );
            }
        }
        if let Some(orbit) = &mut self.orbit {
            let delta = response.drag_delta();
            if response.dragged_by(egui::PointerButton::Primary) {
                orbit.orbit(delta.x, delta.y);
            } else if response.dragged_by(egui::PointerButton::Secondary)
                || response.dragged_by(egui::PointerButton::Middle)
            {
                orbit.pan(delta.x, delta.y, rect.height());
            }
            if response.hovered() {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if scroll != 0.0 {
                    orbit.zoom(scroll);
                }
            }
        }
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            self.editor.selected = self.pick_at(pos);
        }
        if let (Some(selected), Some(params), Some(current)) =
            (self.editor.selected, self.sent_params, self.session.current())
        {
            let painter = ui.painter().with_clip_rect(rect);
            highlight::draw(&painter, rect, &params.frame(), &current.scene, selected);
        }
    }

    /// What is drawn at `pos` (points), if anything.
    pub fn pick_at(&mut self, pos: Pos2) -> Option<Selected> {
        let (rect, params, current) = (self.image_rect?, self.sent_params?, self.session.current()?);
        if !rect.contains(pos) {
            return None;
        }
        let generation = self.session.generation();
        if self.picker.as_ref().is_none_or(|(built, _)| *built != generation) {
            self.picker = Some((generation, Picker::new(&current.view(), &current.scene)));
        }
        let (_, picker) = self.picker.as_ref()?;
        let s = (pos.x - rect.min.x) / rect.width();
        let t = (pos.y - rect.min.y) / rect.height();
        picker.pick(&params.frame(), s, t)
    }

    /// Where sphere `index`'s center appears in the window, and its radius there (points).
    pub fn sphere_on_screen(&self, index: usize) -> Option<(Pos2, f32)> {
        let (rect, params, current) = (self.image_rect?, self.sent_params?, self.session.current()?);
        let sphere = current.scene.spheres.get(index)?;
        let (s, t, radius) = pick::project(&params.frame(), sphere.center, sphere.radius)?;
        Some((highlight::in_rect(rect, s, t), radius * rect.width()))
    }

    /// Sends the current camera and settings when they changed (resetting accumulation).
    fn send_view(&mut self, ctx: &egui::Context) {
        let (Some(rect), Some(orbit), Some(current)) = (self.image_rect, &self.orbit, self.session.current())
        else {
            return;
        };
        let pixels = rect.size() * ctx.pixels_per_point() * self.controls.scale;
        let (width, height) = (pixels.x.round().max(1.0) as u32, pixels.y.round().max(1.0) as u32);
        let overrides = Overrides {
            width: Some(width),
            height: Some(height),
            spp: Some(self.controls.max_spp),
            max_depth: self.controls.max_depth,
            seed: None,
            exposure: self.controls.exposure,
            view: self.controls.view,
            sampler: self.controls.sampler,
        };
        let params = ViewParams {
            settings: overrides.apply(current.scene.settings),
            camera: orbit.camera(),
            spp_per_frame: self.controls.spp_per_frame,
            denoise_below: self.controls.denoise.then_some(self.controls.denoise_below),
        };
        if self.sent_params != Some(params) {
            self.worker.send(Command::View(params));
            self.sent_params = Some(params);
        }
    }

    /// Writes the scene file (Ctrl+S).
    pub fn save(&mut self) {
        let Some(scene) = self.session.current().map(|c| c.scene.clone()) else { return };
        self.status = Some(match self.session.save(&scene) {
            Ok(()) => {
                Status { text: format!("saved {}", self.session.scene_path().display()), is_error: false }
            }
            Err(e) => Status { text: format!("{e:#}"), is_error: true },
        });
    }

    /// Ctrl+Z.
    pub fn undo(&mut self) {
        let result = self.editor.undo(&mut self.session).map(drop);
        self.report_edit(result);
    }

    /// Ctrl+Shift+Z.
    pub fn redo(&mut self) {
        let result = self.editor.redo(&mut self.session).map(drop);
        self.report_edit(result);
    }

    /// Shows a rejected edit in the tool bar (the error panel shows its diagnostics).
    fn report_edit(&mut self, result: Result<(), SceneError>) {
        if result.is_err() {
            self.status =
                Some(Status { text: "edit rejected: see the error panel".to_owned(), is_error: true });
        }
    }

    /// Writes the image shown as `<scene>-<spp>spp[-denoised].png` in [`Self::screenshot_dir`];
    /// the status names the file by its full path.
    pub fn screenshot(&mut self) {
        let Some(frame) = &self.frame else { return };
        let name = screenshot_name(self.session.scene_path(), frame.samples, frame.denoised.is_some());
        let path = self.screenshot_dir.join(name);
        let path = std::path::absolute(&path).unwrap_or(path);
        let pixels = Pixels::Rgba8(frame.rgba.clone());
        let written =
            output::check_output(&path).and_then(|_| output::write(&path, frame.width, frame.height, pixels));
        self.status = Some(match written {
            Ok(()) => Status { text: format!("wrote {}", path.display()), is_error: false },
            Err(e) => Status { text: format!("{e:#}"), is_error: true },
        });
    }
}

impl eframe::App for ViewApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}

/// `<scene stem>-<spp>spp.png`, `-denoised` before the extension for a denoised image.
fn screenshot_name(scene: &Path, samples: u32, denoised: bool) -> String {
    let stem = scene.file_stem().map_or_else(|| "view".into(), |s| s.to_string_lossy().into_owned());
    let denoised = if denoised { "-denoised" } else { "" };
    format!("{stem}-{samples}spp{denoised}.png")
}

/// Opens the scene and runs the editor window until it is closed.
pub fn run(options: &ViewOptions) -> anyhow::Result<()> {
    let session = Session::open(&options.scene, options.kernels.as_deref(), SessionOptions::default())?;
    let app = ViewApp::new(session, options);
    let title = format!("renderer view · {}", options.scene.display());
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]).with_title(title.clone()),
        ..eframe::NativeOptions::default()
    };
    eframe::run_native(&title, native, Box::new(move |_| Ok(Box::new(app))))
        .map_err(|e| anyhow::anyhow!("cannot open the viewer window: {e}"))
}
