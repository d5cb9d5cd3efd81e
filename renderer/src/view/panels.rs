//! The editor's panels: tool bar, side panel (stats, render controls, then the
//! outline and the selection editor of their own modules) and the error panel.
//! Widgets only: every change becomes an edit through [`super::edit::Editor`] or a
//! field of [`super::Controls`].

use std::sync::Arc;

use eframe::egui::{self, Color32, RichText};
use scene_compiler::limits;
use scene_compiler::scene::{RenderSettings, Scene, ViewTransform};

use super::ViewApp;
use super::edit::{EditKey, Set};
use super::worker::Frame;
use crate::backend::select::BackendChoice;
use crate::load::{CompiledScene, SceneError};
use crate::timing::{mega_per_second, ms};

impl ViewApp {
    /// Save, undo, redo, screenshot, camera reset, and the last action's outcome.
    pub(super) fn toolbar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            if ui.button("Save").on_hover_text("Ctrl+S").clicked() {
                self.save();
            }
            if ui
                .add_enabled(self.editor.can_undo(), egui::Button::new("Undo"))
                .on_hover_text("Ctrl+Z")
                .clicked()
            {
                self.undo();
            }
            if ui
                .add_enabled(self.editor.can_redo(), egui::Button::new("Redo"))
                .on_hover_text("Ctrl+Shift+Z")
                .clicked()
            {
                self.redo();
            }
            if ui.add_enabled(self.frame.is_some(), egui::Button::new("Screenshot")).clicked() {
                self.screenshot();
            }
            if ui.button("Reset camera").clicked()
                && let Some(camera) = self.scene_camera
            {
                self.orbit = Some(super::orbit::Orbit::from_camera(&camera));
            }
            if let Some(status) = &self.status {
                let color =
                    if status.is_error { ui.visuals().error_fg_color } else { ui.visuals().text_color() };
                ui.label(RichText::new(&status.text).color(color));
            }
        });
    }

    /// Stats, render controls, the outline and the selection editor.
    pub(super) fn side_panel(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("Stats").default_open(true).show(ui, |ui| self.stats(ui));
        egui::CollapsingHeader::new("Render").default_open(true).show(ui, |ui| self.render_controls(ui));
        // The selection before the outline: what was just clicked is edited without scrolling.
        egui::CollapsingHeader::new("Selection").default_open(true).show(ui, |ui| self.selection(ui));
        egui::CollapsingHeader::new("Outline").default_open(true).show(ui, |ui| self.outline(ui));
    }

    fn stats(&self, ui: &mut egui::Ui) {
        egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
            let mut row = |name: &str, value: String| {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            };
            row("UI frame", ms(self.ui_frame));
            row("device", if self.device.is_empty() { "starting…".to_owned() } else { self.device.clone() });
            if let Some(frame) = &self.frame {
                let batch_s = frame.batch_wall.as_secs_f64();
                row("resolution", format!("{}×{}", frame.width, frame.height));
                let done = if self.finished() { " (done)" } else { "" };
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
            if let Some(current) = self.session.current() {
                let bvh = current.bvh_stats();
                row("spheres", current.scene.spheres.len().to_string());
                if !current.scene.boxes.is_empty() {
                    row("boxes", current.scene.boxes.len().to_string());
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
        if let Some(note) = &self.backend_note {
            ui.label(note);
        }
        if let Some(error) = &self.worker_error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if !self.worker.is_running() {
            ui.colored_label(ui.visuals().error_fg_color, "the render thread stopped");
        }
    }

    fn render_controls(&mut self, ui: &mut egui::Ui) {
        self.display_controls(ui);
        let c = &mut self.controls;
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
                self.worker.send(super::worker::Command::Backend(c.backend));
            }
        }
        ui.horizontal(|ui| {
            let label = ui.label("screenshots to");
            let mut folder = self.screenshot_dir.display().to_string();
            if ui.text_edit_singleline(&mut folder).labelled_by(label.id).changed() {
                self.screenshot_dir = folder.into();
            }
        });
        ui.label("Drag: orbit · right/middle drag: pan · scroll: zoom · WASD/QE: fly · click: select");
    }
}

impl ViewApp {
    /// The exposure slider and the view selector: display transforms, so a change shows
    /// at once without restarting accumulation. A change edits the scene's `settings`
    /// (undoable, written by Save) and replaces the `--exposure`/`--view` flags.
    fn display_controls(&mut self, ui: &mut egui::Ui) {
        let Some(current) = self.session.current().cloned() else { return };
        let scene = current.scene.settings;
        let (mut exposure, mut view) =
            (self.controls.exposure.unwrap_or(scene.exposure), self.controls.view.unwrap_or(scene.view));
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
        if (exposure, view) != before {
            self.edit_display(&current, exposure, view, if exposure_changed { "exposure" } else { "view" });
        }
    }

    /// Puts `exposure` and `view` in the scene's settings through the editor. The worker
    /// is not sent the new scene (only the display changed: `send_view` sends the new
    /// settings, which keep the film); a scene that cannot be edited keeps them as the
    /// display's overrides.
    fn edit_display(
        &mut self,
        before: &Arc<CompiledScene>,
        exposure: f32,
        view: ViewTransform,
        field: &'static str,
    ) {
        let settings = RenderSettings { exposure, view, ..before.scene.settings };
        let change = Set::new(|s: &mut Scene| &mut s.settings, settings);
        let result = self.editor.apply(&mut self.session, change, EditKey::Settings(field));
        if result.is_ok() {
            (self.controls.exposure, self.controls.view) = (None, None);
            let sent_before = self.sent_scene.as_ref().is_some_and(|sent| Arc::ptr_eq(sent, before));
            if let Some(now) = self.session.current().filter(|_| sent_before) {
                self.sent_scene = Some(Arc::clone(now));
            }
        } else {
            (self.controls.exposure, self.controls.view) = (Some(exposure), Some(view));
        }
        self.report_edit(result);
    }
}

/// The status line's text: samples per pixel, time since accumulation restarted, and
/// whether the image shown is denoised.
pub(super) fn status_line(frame: &Frame, finished: bool) -> String {
    let denoised = match frame.denoised {
        Some(filter_ms) => format!("denoised ({filter_ms:.1} ms)"),
        None => "not denoised".to_owned(),
    };
    let done = if finished { " · done" } else { "" };
    format!("{} spp · {:.1} s · {denoised}{done}", frame.samples, frame.elapsed.as_secs_f64())
}

/// The session's last error with its location, above the source snippet.
pub(super) fn error_panel(ui: &mut egui::Ui, error: &SceneError) {
    let location = match (error.line, error.column) {
        (Some(line), Some(column)) => format!(" at line {line}, column {column}"),
        (Some(line), None) => format!(" at line {line}"),
        _ => String::new(),
    };
    ui.colored_label(
        ui.visuals().error_fg_color,
        RichText::new(format!("Scene error{location}: the last good scene keeps rendering")).strong(),
    );
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.label(RichText::new(&error.message).monospace().color(Color32::LIGHT_RED));
    });
}
