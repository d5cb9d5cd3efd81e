//! The editor's panels that are not about the selection: the tool bar, the Stats and
//! Render sections of the side panel, the status line and the error panel (over the
//! image). Widgets only: a change becomes an edit through [`Edits`], a field of
//! [`Controls`] or a command to the render thread, and a tool bar click an action the
//! app carries out.

use std::path::PathBuf;
use std::time::Duration;

use eframe::egui::{self, Color32, RichText};
use scene_compiler::blob::layout::PrimKind;
use scene_compiler::limits;
use scene_compiler::scene::{RenderSettings, SamplerKind, Scene, ViewTransform};

use super::edit::{EditKey, Editor, Edits, Set, Status};
use super::render_link::RenderLink;
use super::worker::{Command, Frame};
use crate::backend::select::BackendChoice;
use crate::load::{CompiledScene, SceneError};
use crate::session::Reload;
use crate::timing::{mega_per_second, ms};

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

/// A tool bar button that was clicked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ToolbarAction {
    Save,
    Undo,
    Redo,
    Screenshot,
    ResetCamera,
}

/// Save, undo, redo, screenshot, camera reset, and the last action's outcome; the
/// button clicked, if one was.
pub(super) fn toolbar(
    ui: &mut egui::Ui,
    editor: &Editor,
    has_frame: bool,
    status: Option<&Status>,
) -> Option<ToolbarAction> {
    let mut action = None;
    ui.horizontal(|ui| {
        let mut button = |enabled: bool, text: &str, hover: Option<&str>, then: ToolbarAction| {
            let response = ui.add_enabled(enabled, egui::Button::new(text));
            let response = match hover {
                Some(hover) => response.on_hover_text(hover),
                None => response,
            };
            if response.clicked() {
                action = Some(then);
            }
        };
        button(true, "Save", Some("Ctrl+S"), ToolbarAction::Save);
        button(editor.can_undo(), "Undo", Some("Ctrl+Z"), ToolbarAction::Undo);
        button(editor.can_redo(), "Redo", Some("Ctrl+Shift+Z"), ToolbarAction::Redo);
        button(has_frame, "Screenshot", None, ToolbarAction::Screenshot);
        button(true, "Reset camera", None, ToolbarAction::ResetCamera);
        if let Some(status) = status {
            let color = if status.is_error { ui.visuals().error_fg_color } else { ui.visuals().text_color() };
            ui.label(RichText::new(&status.text).color(color));
        }
    });
    action
}

/// The Stats section: the render's and the session's numbers, and what the last reload
/// cost. Keeps the reloads it was told of.
#[derive(Default)]
pub(super) struct StatsPanel {
    last_reload: Option<Reload>,
    /// Reloads seen, failed ones included: the panel numbers attempts, since a failed
    /// reload keeps the scene's generation.
    reload_attempts: u64,
}

impl StatsPanel {
    /// Counts a reload of the session.
    pub(super) fn record(&mut self, reload: Reload) {
        self.reload_attempts += 1;
        self.last_reload = Some(reload);
    }

    pub(super) fn show(
        &self,
        ui: &mut egui::Ui,
        ui_frame: Duration,
        render: &RenderLink,
        current: Option<&CompiledScene>,
    ) {
        egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
            let mut row = |name: &str, value: String| {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            };
            row("UI frame", ms(ui_frame));
            let device =
                if render.device.is_empty() { "starting…".to_owned() } else { render.device.clone() };
            row("device", device);
            if let Some(frame) = render.frame() {
                let batch_s = frame.batch_wall.as_secs_f64();
                row("resolution", format!("{}×{}", frame.width, frame.height));
                let done = if render.finished() { " (done)" } else { "" };
                row("samples", format!("{} spp{done}", frame.samples));
                row("batch", format!("{} spp in {:.1} ms", frame.batch_spp, batch_s * 1e3));
                row("render", format!("{:.1} ms", frame.batch.render_ms));
                row("spp/s", format!("{:.1}", f64::from(frame.batch_spp) / batch_s.max(1e-9)));
                row("Mrays/s", format!("{:.1}", mega_per_second(frame.batch.rays, frame.batch.render_ms)));
                if let Some(upload) = frame.upload {
                    row("upload", ms(upload));
                }
                if let Some(first) = frame.first_frame {
                    row("first frame", ms(first));
                }
            }
            if let Some(current) = current {
                let bvh = current.bvh_stats();
                row("spheres", current.scene.spheres.len().to_string());
                if !current.scene.boxes.is_empty() {
                    row("boxes", current.scene.boxes.len().to_string());
                }
                let instances = current.view().header.prim_count(PrimKind::Instance);
                if instances > 0 {
                    // Stored once each, however often the instances place them.
                    let triangles = current.view().header.prim_count(PrimKind::Triangle);
                    row("triangles", triangles.to_string());
                    row("instances", instances.to_string());
                }
                row("blob", format!("{:.1} KiB", current.blob.len() as f64 / 1024.0));
                row("BVH", format!("{} nodes, depth {}, SAH {:.2}", bvh.node_count, bvh.depth, bvh.sah_cost));
            }
            if let Some(reload) = &self.last_reload {
                let outcome = match reload.outcome {
                    Ok(_) => format!("ok, scene #{}", reload.generation),
                    Err(_) => format!("failed, scene #{} kept", reload.generation),
                };
                row("last reload", format!("#{} {outcome}", self.reload_attempts));
                row("  detect", ms(reload.detect));
                row("  compile", ms(reload.compile));
            }
        });
        if let Some(note) = &render.note {
            ui.label(note);
        }
        if let Some(error) = &render.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if !render.is_running() {
            ui.colored_label(ui.visuals().error_fg_color, "the render thread stopped");
        }
    }
}

/// The Render section: the display (exposure, view), resolution, batch size, depth,
/// sample limit, the denoiser, the backend, the screenshot folder.
pub(super) struct RenderPanel {
    /// Whether the GPU/CPU switch is offered.
    cuda_available: bool,
}

impl RenderPanel {
    pub(super) fn new() -> RenderPanel {
        RenderPanel { cuda_available: crate::backend::cuda::driver_available() }
    }

    pub(super) fn show(
        &mut self,
        ui: &mut egui::Ui,
        controls: &mut Controls,
        screenshot_dir: &mut PathBuf,
        edits: &mut Edits<'_>,
        render: &mut RenderLink,
    ) {
        display_controls(ui, controls, edits, render);
        let c = controls;
        ui.add(egui::Slider::new(&mut c.scale, 0.1..=1.0).text("resolution scale"));
        ui.add(egui::Slider::new(&mut c.spp_per_frame, 1..=64).text("spp per frame"));
        if let Some(depth) = &mut c.max_depth {
            ui.add(egui::Slider::new(depth, 1..=limits::MAX_DEPTH).logarithmic(true).text("max depth"));
        }
        ui.add(egui::Slider::new(&mut c.max_spp, 1..=65_536).logarithmic(true).text("stop at spp"));
        ui.horizontal(|ui| {
            ui.checkbox(&mut c.denoise, "denoise").on_hover_text(
                "show the image through the denoiser (guided by albedo, normal and depth) while it \
                 has fewer samples than the threshold; turning it on restarts the render",
            );
            let threshold = egui::Slider::new(&mut c.denoise_below, 1..=65_536).logarithmic(true);
            ui.add_enabled(c.denoise, threshold.text("denoise below spp"));
        });
        if self.cuda_available {
            let before = c.backend;
            ui.horizontal(|ui| {
                ui.label("backend");
                ui.radio_value(&mut c.backend, BackendChoice::Cuda, "GPU");
                ui.radio_value(&mut c.backend, BackendChoice::Cpu, "CPU");
            });
            if c.backend != before {
                render.send(Command::Backend(c.backend));
            }
        }
        ui.horizontal(|ui| {
            let label = ui.label("screenshots to");
            let mut folder = screenshot_dir.display().to_string();
            if ui.text_edit_singleline(&mut folder).labelled_by(label.id).changed() {
                *screenshot_dir = folder.into();
            }
        });
        ui.label("Drag: orbit · right/middle drag: pan · scroll: zoom · WASD/QE: fly · click: select");
    }
}

/// The exposure slider and the view selector: display transforms, so a change shows
/// at once without restarting accumulation. A change edits the scene's `settings`
/// (undoable, written by Save) and replaces the `--exposure`/`--view` flags.
fn display_controls(
    ui: &mut egui::Ui,
    controls: &mut Controls,
    edits: &mut Edits<'_>,
    render: &mut RenderLink,
) {
    let Some(current) = edits.session.current() else { return };
    let (scene, shown) = (current.scene.settings, render.has_scene(current));
    let (mut exposure, mut view) =
        (controls.exposure.unwrap_or(scene.exposure), controls.view.unwrap_or(scene.view));
    let before = (exposure, view);
    let slider = egui::Slider::new(&mut exposure, -10.0..=10.0).step_by(0.1).text("exposure (stops)");
    let exposure_changed = ui
        .add(slider)
        .on_hover_text("the image times 2^stops before the view transform (PNG and display, not EXR)")
        .changed();
    ui.horizontal(|ui| {
        ui.label("view").on_hover_text(
            "Standard: gamma 2 · AgX: Blender's AgX base · Filmic: Hable's filmic curve (not Blender's)",
        );
        for (choice, label) in [
            (ViewTransform::Standard, "Standard"),
            (ViewTransform::Agx, "AgX"),
            (ViewTransform::Filmic, "Filmic"),
        ] {
            ui.radio_value(&mut view, choice, label);
        }
    });
    if (exposure, view) == before {
        return;
    }
    // The render thread is not sent the edited scene (only the display changed: the
    // view's settings carry it, and keep the film); a scene that cannot be edited keeps
    // them as the display's overrides.
    let settings = RenderSettings { exposure, view, ..scene };
    let change = Set::new(|s: &mut Scene| &mut s.settings, settings);
    let field = if exposure_changed { "exposure" } else { "view" };
    if edits.apply(change, EditKey::Settings(field)) {
        (controls.exposure, controls.view) = (None, None);
        if shown && let Some(now) = edits.session.current() {
            render.adopt_scene(now);
        }
    } else {
        (controls.exposure, controls.view) = (Some(exposure), Some(view));
    }
}

/// The status line's text: samples per pixel, time since accumulation restarted, and
/// whether the image shown is denoised (with the filter's time); the times only when
/// `timings`.
pub(super) fn status_line(frame: &Frame, finished: bool, timings: bool) -> String {
    let denoised = match frame.denoised {
        Some(filter_ms) if timings => format!("denoised ({filter_ms:.1} ms)"),
        Some(_) => "denoised".to_owned(),
        None => "not denoised".to_owned(),
    };
    let done = if finished { " · done" } else { "" };
    let time = if timings { format!(" · {:.1} s", frame.elapsed.as_secs_f64()) } else { String::new() };
    format!("{} spp{time} · {denoised}{done}", frame.samples)
}

/// The session's last error over the bottom of the image (`image`, the viewport's
/// rect), at most 40 % of its height. Over the image, not beside it: a panel
/// would shrink the image area, which restarts the render of the last good scene at
/// another size for every broken save.
pub(super) fn error_overlay(ctx: &egui::Context, image: egui::Rect, error: &SceneError) {
    const MARGIN: f32 = 8.0;
    egui::Area::new(egui::Id::unique("scene error"))
        .fixed_pos(image.left_bottom() + egui::vec2(MARGIN, -MARGIN))
        .pivot(egui::Align2::LEFT_BOTTOM)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_width((image.width() - 4.0 * MARGIN).max(0.0));
                ui.set_max_height(image.height() * 0.4);
                error_panel(ui, error);
            });
        });
}

/// The session's last error with its location, above the source snippet.
fn error_panel(ui: &mut egui::Ui, error: &SceneError) {
    let location = match (error.line, error.column) {
        (Some(line), Some(column)) => format!(" at line {line}, column {column}"),
        (Some(line), None) => format!(" at line {line}"),
        _ => String::new(),
    };
    ui.colored_label(
        ui.visuals().error_fg_color,
        RichText::new(format!("Scene error{location}: the last good scene keeps rendering")).strong(),
    );
    // Not wrapped: the source snippet's carets line up with the text they point at.
    egui::ScrollArea::both().show(ui, |ui| {
        ui.add(
            egui::Label::new(RichText::new(&error.message).monospace().color(Color32::LIGHT_RED)).extend(),
        );
    });
}
