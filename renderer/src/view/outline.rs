//! The outline: the scene's spheres, boxes, terrains and meshes, listed by kind, and each
//! instanced mesh's instances; clicking an entry selects it. Only the rows in view are
//! laid out, so a million spheres (or instances) cost what a dozen do.

use eframe::egui::{self, Button, TextStyle};
use scene_compiler::scene::Scene;

use super::selected::{Selected, Thing, with_thing};

/// Rows shown before a list scrolls.
const VISIBLE_ROWS: f32 = 8.0;

/// Every kind's list, then each instanced mesh's instances (collapsed, unless the
/// selection is among them); a click on an entry makes it `selected`.
pub(super) fn show(ui: &mut egui::Ui, scene: &Scene, selected: &mut Option<Selected>) {
    for kind in Selected::KINDS {
        let (title, count) = with_thing!(kind(0), T, _i => (T::TITLE, T::list(scene).len()));
        if count == 0 {
            continue;
        }
        let entry = |i: usize| {
            let entry = kind(i);
            let text = match with_thing!(entry, T, i => T::list(scene)[i].source()) {
                Some(source) => format!("{entry} · {source}"),
                None => entry.to_string(),
            };
            (entry, text)
        };
        egui::CollapsingHeader::new(format!("{title} ({count})"))
            .id_salt(title)
            .default_open(true)
            .show(ui, |ui| rows(ui, egui::IdSalt::new(title), count, &entry, selected));
    }
    for (mesh, m) in scene.meshes.iter().enumerate().filter(|(_, m)| m.is_instanced()) {
        let count = m.instance_count();
        let title = format!("Instances of mesh {mesh} · {} ({count})", m.file);
        let entry = |k: usize| {
            let entry = Selected::Instance { mesh, k };
            (entry, entry.to_string())
        };
        let holds_selection = matches!(*selected, Some(Selected::Instance { mesh: m, .. }) if m == mesh);
        egui::CollapsingHeader::new(title)
            .id_salt(("instances", mesh))
            .open(holds_selection.then_some(true))
            .show(ui, |ui| rows(ui, egui::IdSalt::new(("instance rows", mesh)), count, &entry, selected));
    }
}

/// One list's `count` entries, each `entry(i)`'s selection and text, in a scroll area
/// of their own.
fn rows(
    ui: &mut egui::Ui,
    id: egui::IdSalt,
    count: usize,
    entry: &dyn Fn(usize) -> (Selected, String),
    selected: &mut Option<Selected>,
) {
    // Every row exactly this tall: show_rows finds the rows in view by arithmetic.
    let spacing = ui.spacing();
    let row_height = (ui.text_style_height(&TextStyle::Button) + 2.0 * spacing.button_padding.y)
        .max(spacing.interact_size.y);
    let height = VISIBLE_ROWS * (row_height + spacing.item_spacing.y);
    egui::ScrollArea::vertical().id_salt(id).max_height(height).auto_shrink([false, true]).show_rows(
        ui,
        row_height,
        count,
        |ui, rows| {
            for i in rows {
                let (entry, text) = entry(i);
                let button =
                    Button::selectable(*selected == Some(entry), text).min_size(egui::vec2(0.0, row_height));
                if ui.add(button).clicked() {
                    *selected = Some(entry);
                }
            }
        },
    );
}
