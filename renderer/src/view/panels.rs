//! The editor's panels: tool bar, side panel (stats, render controls, the selected
//! sphere and its material) and the error panel. Widgets only: every change becomes
//! an edit through [`super::edit::Editor`] or a field of [`super::Controls`].

use eframe::egui::{self, Color32, DragValue, RichText};
use glam::Vec3;
use scene_compiler::limits;
use scene_compiler::scene::{MaterialKind, Scene};

use super::ViewApp;
use super::edit::EditKey;
use crate::backend::select::BackendChoice;
use crate::load::SceneError;
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

    /// Stats, render controls and the selection editor.
    pub(super) fn side_panel(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("Stats").default_open(true).show(ui, |ui| self.stats(ui));
        egui::CollapsingHeader::new("Render").default_open(true).show(ui, |ui| self.render_controls(ui));
        egui::CollapsingHeader::new("Selection").default_open(true).show(ui, |ui| self.selection(ui));
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
        let c = &mut self.controls;
        ui.add(egui::Slider::new(&mut c.scale, 0.1..=1.0).text("resolution scale"));
        ui.add(egui::Slider::new(&mut c.spp_per_frame, 1..=64).text("spp per frame"));
        if let Some(depth) = &mut c.max_depth {
            ui.add(egui::Slider::new(depth, 1..=limits::MAX_DEPTH).logarithmic(true).text("max depth"));
        }
        ui.add(egui::Slider::new(&mut c.max_spp, 1..=65_536).logarithmic(true).text("stop at spp"));
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

    fn selection(&mut self, ui: &mut egui::Ui) {
        let Some(scene) = self.session.current().map(|c| c.scene.clone()) else {
            ui.label("no scene");
            return;
        };
        ui.horizontal(|ui| {
            if ui.button("Add sphere").clicked()
                && let Some(orbit) = &self.orbit
            {
                let result = self.editor.add_sphere(&mut self.session, orbit.target, orbit.distance * 0.05);
                self.report_edit(result);
            }
            let deletable = self.editor.selected.is_some() && scene.spheres.len() > 1;
            if ui.add_enabled(deletable, egui::Button::new("Delete")).on_hover_text("Delete key").clicked() {
                let result = self.editor.delete_selected(&mut self.session);
                self.report_edit(result);
            }
            if ui.button("Set scene camera").on_hover_text("store the current view in the scene").clicked()
                && let Some(orbit) = &self.orbit
            {
                let edited = Scene { camera: orbit.camera(), ..scene.clone() };
                let result = self.editor.apply(&mut self.session, edited, EditKey::Structure);
                self.report_edit(result);
            }
        });
        let Some(index) = self.editor.selected.filter(|&i| i < scene.spheres.len()) else {
            ui.label("Click a sphere to select it.");
            return;
        };
        let mut edited = scene.clone();
        let mut key = None;
        ui.label(RichText::new(format!("sphere {index}")).strong());
        egui::Grid::new("sphere").num_columns(2).show(ui, |ui| {
            let sphere = &mut edited.spheres[index];
            let speed = (sphere.radius * 0.02).max(1e-3);
            for (axis, value) in ["center x", "center y", "center z"].into_iter().zip(sphere.center.as_mut())
            {
                if labelled_drag(ui, axis, DragValue::new(value).speed(speed)) {
                    key = Some(EditKey::SphereCenter(index));
                }
            }
            let radius = DragValue::new(&mut sphere.radius).speed(speed).range(1e-3..=1e6);
            if labelled_drag(ui, "radius", radius) {
                key = Some(EditKey::SphereRadius(index));
            }
            let label = ui.label("material");
            let names: Vec<&str> = scene.materials.iter().map(|m| m.name.as_str()).collect();
            let current = names.get(sphere.material as usize).copied().unwrap_or("?");
            let combo = egui::ComboBox::from_id_salt("material").selected_text(current).show_ui(ui, |ui| {
                for (i, name) in names.iter().enumerate() {
                    if ui.selectable_value(&mut sphere.material, i as u32, *name).changed() {
                        key = Some(EditKey::SphereMaterial(index));
                    }
                }
            });
            combo.response.labelled_by(label.id);
            ui.end_row();
        });
        let material_index = edited.spheres[index].material as usize;
        if let Some(material) = edited.materials.get_mut(material_index) {
            ui.label(
                RichText::new(format!("material \"{}\" (shared by every sphere using it)", material.name))
                    .strong(),
            );
            egui::Grid::new("material").num_columns(2).show(ui, |ui| {
                if material_editor(ui, &mut material.kind) {
                    key = Some(EditKey::Material(material_index));
                }
            });
        }
        if let Some(key) = key {
            let result = self.editor.apply(&mut self.session, edited, key);
            self.report_edit(result);
        }
    }
}

/// A label and a drag value in one grid row, linked for accessibility (and tests); true when changed.
fn labelled_drag(ui: &mut egui::Ui, name: &str, drag: DragValue<'_>) -> bool {
    let label = ui.label(name);
    let changed = ui.add(drag).labelled_by(label.id).changed();
    ui.end_row();
    changed
}

/// The parameters of one material kind; true when one changed.
fn material_editor(ui: &mut egui::Ui, kind: &mut MaterialKind) -> bool {
    let color = |ui: &mut egui::Ui, name: &str, value: &mut Vec3| {
        let label = ui.label(name);
        let mut rgb = value.to_array();
        let changed = ui.color_edit_button_rgb(&mut rgb).labelled_by(label.id).changed();
        *value = Vec3::from_array(rgb);
        ui.end_row();
        changed
    };
    match kind {
        MaterialKind::Lambert { albedo } => color(ui, "albedo", albedo),
        MaterialKind::Metal { albedo, fuzz } => {
            let a = color(ui, "albedo", albedo);
            a | labelled_drag(ui, "fuzz", DragValue::new(fuzz).speed(0.01).range(0.0..=1.0))
        }
        MaterialKind::Dielectric { ior } => {
            labelled_drag(ui, "ior", DragValue::new(ior).speed(0.01).range(1.0..=4.0))
        }
        MaterialKind::Emissive { color: emitted, strength, albedo } => {
            let a = color(ui, "color", emitted);
            let b = labelled_drag(ui, "strength", DragValue::new(strength).speed(0.05).range(0.0..=1e4));
            a | b | color(ui, "albedo", albedo)
        }
    }
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
