//! The outline: the scene's spheres, boxes, terrains and meshes, listed by kind; clicking an
//! entry selects it. Only the rows in view are laid out, so a million spheres cost
//! what a dozen do.

use eframe::egui::{self, Button, TextStyle};
use scene_compiler::scene::Scene;

use super::selected::{Selected, Thing, with_thing};

/// Rows shown before a kind's list scrolls.
const VISIBLE_ROWS: f32 = 8.0;

/// One list of the outline: its title, its length, and what its entry `i` selects.
type List = (&'static str, usize, fn(usize) -> Selected);

/// Every kind's list; a click on an entry makes it `selected`.
pub(super) fn show(ui: &mut egui::Ui, scene: &Scene, selected: &mut Option<Selected>) {
    let lists = Selected::KINDS
        .map(|kind| -> List { with_thing!(kind(0), T, _i => (T::TITLE, T::list(scene).len(), kind)) });
    for (title, count, select) in lists.into_iter().filter(|&(_, count, _)| count > 0) {
        egui::CollapsingHeader::new(format!("{title} ({count})"))
            .id_salt(title)
            .default_open(true)
            .show(ui, |ui| rows(ui, scene, (title, count, select), selected));
    }
}

/// One kind's entries, in a scroll area of their own.
fn rows(ui: &mut egui::Ui, scene: &Scene, (title, count, select): List, selected: &mut Option<Selected>) {
    // Every row exactly this tall: show_rows finds the rows in view by arithmetic.
    let spacing = ui.spacing();
    let row_height = (ui.text_style_height(&TextStyle::Button) + 2.0 * spacing.button_padding.y)
        .max(spacing.interact_size.y);
    let height = VISIBLE_ROWS * (row_height + spacing.item_spacing.y);
    egui::ScrollArea::vertical().id_salt(title).max_height(height).auto_shrink([false, true]).show_rows(
        ui,
        row_height,
        count,
        |ui, rows| {
            for i in rows {
                let entry = select(i);
                let source = with_thing!(entry, T, i => T::list(scene)[i].source());
                let text = match source {
                    Some(source) => format!("{entry} · {source}"),
                    None => entry.to_string(),
                };
                let button =
                    Button::selectable(*selected == Some(entry), text).min_size(egui::vec2(0.0, row_height));
                if ui.add(button).clicked() {
                    *selected = Some(entry);
                }
            }
        },
    );
}
