//! `renderer view`: a live editor. The window shows the scene path-traced
//! progressively; the scene file hot-reloads through a [`Session`]; spheres, boxes,
//! terrains, meshes and a mesh's instances can be picked (or chosen in the outline) and
//! edited, spheres added, any of them deleted, with undo/redo, and the scene saved back
//! as RON.
//!
//! [`ViewApp`] holds the session, the editor and one value per part of the window, each
//! a type with its own state: [`ViewApp::show`] lays them out and hands each an explicit
//! view of what it may touch ([`Edits`] for the panels that edit). Compiles happen in
//! the session (milliseconds), renders on the render thread ([`worker`], reached
//! through [`render_link`]), so the UI never waits on either.
//!
//! - [`render_link`]: what was sent to the render thread and what came back.
//! - [`viewport`]: the image area, with [`orbit`] (the camera), [`pick`] (what is under
//!   a pixel) and [`highlight`] (the selection drawn over the render).
//! - [`selected`]: what a selection names, and [`selected::Thing`], each editable kind's
//!   one implementation.
//! - [`edit`]: the selection, edits as changes through the session, undo/redo.
//! - [`panels`]: the tool bar, the Stats and Render sections, the status line, the error
//!   panel; [`outline`] and [`selection_editor`]: the list of things and the editor of
//!   the selected one, with [`material_editor`] for its material and [`texture_editor`]
//!   for the material's textures.

pub mod edit;
mod highlight;
mod material_editor;
pub mod orbit;
mod outline;
mod panels;
pub mod pick;
mod render_link;
mod rows;
pub mod selected;
mod selection_editor;
pub mod texture_editor;
mod viewport;
pub mod worker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use eframe::egui::{self, Key, KeyboardShortcut, Modifiers, Pos2};
use scene_compiler::scene::{SamplerKind, ViewTransform};

pub use self::edit::Status;
use self::edit::{Editor, Edits};
pub use self::panels::Controls;
use self::panels::{RenderPanel, StatsPanel, ToolbarAction};
use self::render_link::RenderLink;
use self::selected::Selected;
use self::selection_editor::SelectionPanel;
use self::viewport::{Clicked, Viewport};
use self::worker::{Command, Frame, ViewParams};
use crate::backend::select::BackendChoice;
use crate::job::Overrides;
use crate::output::{self, Pixels};
use crate::session::{Changed, Session, SessionOptions};

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

/// The live editor: the session and its edits, the render thread's link, the image
/// area and the side panel's sections, each its own type.
pub struct ViewApp {
    pub session: Session,
    pub editor: Editor,
    pub controls: Controls,
    /// Where the Screenshot button writes (editable in the side panel).
    pub screenshot_dir: PathBuf,
    /// Whether the status line shows times (since accumulation restarted, the
    /// denoiser's): off for pictures that must come out the same on every run
    /// (tools/editor-snapshot).
    pub status_line_timings: bool,
    render: RenderLink,
    viewport: Viewport,
    stats: StatsPanel,
    render_panel: RenderPanel,
    selection: SelectionPanel,
    status: Option<Status>,
    ui_frame: Duration,
}

impl ViewApp {
    /// An editor on an opened session; the render thread starts at once.
    pub fn new(session: Session, options: &ViewOptions) -> ViewApp {
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
            screenshot_dir: options
                .screenshot_dir
                .clone()
                .unwrap_or_else(|| scene_compiler::files::folder_of(&options.scene).to_owned()),
            status_line_timings: true,
            render: RenderLink::spawn(options.backend, options.kernels.clone()),
            viewport: Viewport::default(),
            stats: StatsPanel::default(),
            render_panel: RenderPanel::new(),
            selection: SelectionPanel::default(),
            status: None,
            ui_frame: Duration::ZERO,
        }
    }

    /// The latest image from the render thread.
    pub fn frame(&self) -> Option<&Frame> {
        self.render.frame()
    }

    /// Whether the latest image is of the current view's size with all of its samples
    /// (the render thread has stopped adding samples).
    pub fn finished(&self) -> bool {
        self.render.finished()
    }

    /// The line under the image: samples per pixel, time, whether it is denoised.
    pub fn status_line(&self) -> Option<String> {
        self.render.frame().map(|frame| panels::status_line(frame, self.finished(), self.status_line_timings))
    }

    /// The outcome of the last action (save, screenshot, rejected edit).
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// Lays out the whole window; called by eframe every frame, and by tests.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.render.set_context(&ctx);
        self.ui_frame = Duration::from_secs_f32(ctx.input(|i| i.unstable_dt).max(0.0));
        self.poll_session();
        self.render.take_events(&ctx);
        self.shortcuts(ui);

        egui::Panel::top("toolbar").show(ui, |ui| {
            let action =
                panels::toolbar(ui, &self.editor, self.render.frame().is_some(), self.status.as_ref());
            match action {
                Some(ToolbarAction::Save) => self.save(),
                Some(ToolbarAction::Undo) => self.undo(),
                Some(ToolbarAction::Redo) => self.redo(),
                Some(ToolbarAction::Screenshot) => self.screenshot(),
                Some(ToolbarAction::ResetCamera) => self.viewport.reset_camera(),
                None => {}
            }
        });
        egui::Panel::right("side").default_size(330.0).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| self.side_panel(ui));
        });
        // There before the first image, so that its arrival does not shrink the image
        // area (which would restart the render at another size).
        let status = self.status_line().unwrap_or_else(|| {
            if self.session.current().is_some() {
                "rendering the first image…"
            } else {
                "no image: see the scene error"
            }
            .to_owned()
        });
        egui::Panel::bottom("status_line").show(ui, |ui| ui.label(status));
        egui::CentralPanel::default().show(ui, |ui| {
            let current = self.session.current().map(|c| (&**c, self.session.generation()));
            let shown = self.viewport.show(
                ui,
                self.render.texture(),
                current,
                self.render.params(),
                self.editor.selected,
            );
            if let Clicked::Pick(picked) = shown {
                self.editor.selected = picked;
            }
        });
        if let (Some(error), Some(image)) = (self.session.last_error(), self.viewport.rect) {
            panels::error_overlay(&ctx, image, error);
        }

        self.send_view(&ctx);
        ctx.request_repaint_after(POLL_INTERVAL);
    }

    /// Stats, render controls, the selection editor and the outline.
    fn side_panel(&mut self, ui: &mut egui::Ui) {
        // The scene is borrowed, never cloned, around the edits below: a live `Arc` of it
        // would keep the session from moving instances in place.
        let current = self.session.current().map(|c| &**c);
        egui::CollapsingHeader::new("Stats")
            .default_open(true)
            .show(ui, |ui| self.stats.show(ui, self.ui_frame, &self.render, current));
        let mut edits =
            Edits { session: &mut self.session, editor: &mut self.editor, status: &mut self.status };
        egui::CollapsingHeader::new("Render").default_open(true).show(ui, |ui| {
            self.render_panel.show(
                ui,
                &mut self.controls,
                &mut self.screenshot_dir,
                &mut edits,
                &mut self.render,
            )
        });
        // The selection before the outline: what was just clicked is edited without scrolling.
        egui::CollapsingHeader::new("Selection")
            .default_open(true)
            .show(ui, |ui| self.selection.show(ui, &mut edits, self.viewport.orbit.as_ref()));
        egui::CollapsingHeader::new("Outline").default_open(true).show(ui, |ui| {
            // Without a scene the selection editor above says so.
            if let Some(current) = self.session.current() {
                outline::show(ui, &current.scene, &mut self.editor.selected);
            }
        });
    }

    /// Handles file reloads and hands a new scene to the render thread.
    fn poll_session(&mut self) {
        for reload in self.session.poll() {
            if reload.changed == Changed::Kernels
                && let Some(dir) = self.session.kernels_dir()
            {
                self.render.send(Command::ReloadKernels(dir.to_owned()));
            }
            self.stats.record(reload);
        }
        let Some(current) = self.session.current().cloned() else { return };
        if self.render.has_scene(&current) {
            return;
        }
        self.viewport.follow(current.scene.camera);
        if self.controls.max_depth.is_none() {
            self.controls.max_depth = Some(current.scene.settings.max_depth);
        }
        if self.editor.selected.is_some_and(|s| !s.exists_in(&current.scene)) {
            self.editor.selected = None;
        }
        self.render.send_scene(&current);
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
            self.edits().report(result);
        }
        let (axes, dt) = ui.input(|i| {
            let axis = |plus: Key, minus: Key| f32::from(i.key_down(plus)) - f32::from(i.key_down(minus));
            ((axis(Key::W, Key::S), axis(Key::D, Key::A), axis(Key::E, Key::Q)), i.stable_dt.min(0.1))
        });
        if axes != (0.0, 0.0, 0.0) && self.viewport.fly(axes, dt) {
            ui.ctx().request_repaint();
        }
    }

    fn edits(&mut self) -> Edits<'_> {
        Edits { session: &mut self.session, editor: &mut self.editor, status: &mut self.status }
    }

    /// What is drawn at `pos` (points), if anything.
    pub fn pick_at(&mut self, pos: Pos2) -> Option<Selected> {
        let (params, current) = (self.render.params()?, self.session.current()?);
        self.viewport.pick_at(pos, (current, self.session.generation()), params)
    }

    /// Where sphere `index`'s center appears in the window, and its radius there (points).
    pub fn sphere_on_screen(&self, index: usize) -> Option<(Pos2, f32)> {
        let (params, current) = (self.render.params()?, self.session.current()?);
        let sphere = current.scene.spheres.get(index)?;
        self.viewport.on_screen(params, sphere.center, sphere.radius)
    }

    /// Sends the current camera and settings when they changed (resetting accumulation).
    fn send_view(&mut self, ctx: &egui::Context) {
        // A pass egui discards (a grid's first, which only measures) has a provisional
        // layout: an image of its size would be thrown away at the next pass.
        if ctx.will_discard() {
            return;
        }
        let (Some(rect), Some(orbit), Some(current)) =
            (self.viewport.rect, &self.viewport.orbit, self.session.current())
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
        self.render.send_view(ViewParams {
            settings: overrides.apply(current.scene.settings),
            camera: orbit.camera(),
            spp_per_frame: self.controls.spp_per_frame,
            denoise_below: self.controls.denoise.then_some(self.controls.denoise_below),
        });
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
        self.edits().report(result);
    }

    /// Ctrl+Shift+Z.
    pub fn redo(&mut self) {
        let result = self.editor.redo(&mut self.session).map(drop);
        self.edits().report(result);
    }

    /// Writes the image shown as `<scene>-<spp>spp[-denoised].png` in [`Self::screenshot_dir`];
    /// the status names the file by its full path.
    pub fn screenshot(&mut self) {
        let Some(frame) = self.render.frame() else { return };
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
