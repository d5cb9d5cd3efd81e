//! The image area: the render drawn to fit, the camera moved by the mouse (orbit, pan,
//! zoom) and the keys, a click that picks what is under it, and the selection drawn
//! over the render.

use eframe::egui::{self, Color32, Pos2, Rect, Sense};
use scene_compiler::scene::Camera;

use super::highlight;
use super::orbit::Orbit;
use super::pick::{self, Picker};
use super::selected::Selected;
use super::worker::ViewParams;
use crate::load::CompiledScene;

/// The camera and what the image area knows of where it was drawn.
#[derive(Default)]
pub struct Viewport {
    pub orbit: Option<Orbit>,
    /// The scene camera the orbit was last reset to: a reload that changes it resets the orbit.
    scene_camera: Option<Camera>,
    /// Keyed by the session's generation: a blob alone does not tell the scene's own
    /// boxes from its terrains' columns.
    picker: Option<(u64, Picker)>,
    /// Where the image was drawn last frame, in points.
    pub rect: Option<Rect>,
}

/// What a click in the image area did.
pub enum Clicked {
    Nothing,
    /// Selected this (or nothing, for a click on the sky).
    Pick(Option<Selected>),
}

impl Viewport {
    /// Follows the scene's camera: the orbit starts there and resets when the scene's
    /// camera changes.
    pub fn follow(&mut self, camera: Camera) {
        if self.scene_camera != Some(camera) {
            self.orbit = Some(Orbit::from_camera(&camera));
            self.scene_camera = Some(camera);
        }
    }

    /// Puts the orbit back at the scene's camera.
    pub fn reset_camera(&mut self) {
        if let Some(camera) = self.scene_camera {
            self.orbit = Some(Orbit::from_camera(&camera));
        }
    }

    /// Flies the camera (WASD/QE) by `axes` for `dt` seconds.
    pub fn fly(&mut self, axes: (f32, f32, f32), dt: f32) -> bool {
        let Some(orbit) = &mut self.orbit else { return false };
        orbit.fly(axes.0, axes.1, axes.2, dt);
        true
    }

    /// The render (or a placeholder), mouse camera control and click-to-select; the
    /// selection drawn over it.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        texture: Option<&egui::TextureHandle>,
        current: Option<(&CompiledScene, u64)>,
        params: Option<ViewParams>,
        selected: Option<Selected>,
    ) -> Clicked {
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.rect = Some(rect);
        match texture {
            Some(texture) => {
                let uv = Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0));
                ui.painter().image(texture.id(), rect, uv, Color32::WHITE);
            }
            None => {
                let text = if current.is_some() { "rendering…" } else { "no scene compiled yet" };
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
        let mut clicked = Clicked::Nothing;
        if response.clicked()
            && let (Some(pos), Some(current), Some(params)) =
                (response.interact_pointer_pos(), current, params)
        {
            clicked = Clicked::Pick(self.pick_at(pos, current, params));
        }
        if let (Some(selected), Some(params), Some((current, _))) = (selected, params, current) {
            let painter = ui.painter().with_clip_rect(rect);
            highlight::draw(&painter, rect, &params.frame(), &current.scene, selected);
        }
        clicked
    }

    /// What is drawn at `pos` (points) of `current` (the session's scene of that
    /// generation) seen through `params`, if anything.
    pub fn pick_at(
        &mut self,
        pos: Pos2,
        (current, generation): (&CompiledScene, u64),
        params: ViewParams,
    ) -> Option<Selected> {
        let rect = self.rect?;
        if !rect.contains(pos) {
            return None;
        }
        if self.picker.as_ref().is_none_or(|(built, _)| *built != generation) {
            self.picker = Some((generation, Picker::new(current)));
        }
        let (_, picker) = self.picker.as_ref()?;
        let s = (pos.x - rect.min.x) / rect.width();
        let t = (pos.y - rect.min.y) / rect.height();
        picker.pick(&params.frame(), s, t)
    }

    /// Where a sphere of `center` and `radius` appears in the window, and its radius
    /// there (points).
    pub fn on_screen(&self, params: ViewParams, center: glam::Vec3, radius: f32) -> Option<(Pos2, f32)> {
        let rect = self.rect?;
        let (s, t, radius) = pick::project(&params.frame(), center, radius)?;
        Some((highlight::in_rect(rect, s, t), radius * rect.width()))
    }
}
