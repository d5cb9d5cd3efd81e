//! The selection editor: the selected thing's rows (each kind's through its
//! [`Thing`] implementation: a sphere's, box's, terrain's or mesh's fields, a mesh's
//! material the model's own or one of the scene's), and its material
//! (`material_editor`, with its textures in `texture_editor`). A change edits a copy of
//! the thing; only then does it become a [`super::edit::Change`] applied through
//! [`super::edit::Editor`] (validated, undoable), so an idle frame copies nothing.

use eframe::egui::{self, DragValue, RichText};
use glam::Vec3;
use scene_compiler::scene::{Cuboid, Material, Mesh, Scene, Sphere, Terrain, TerrainSurface};

use super::Edits;
use super::edit::{self, Change, EditKey, Set};
use super::material_editor::material_panel;
use super::orbit::Orbit;
use super::selected::{Thing, with_thing};
use super::texture_editor::TextureUi;

/// The least a radius, size, cell or height scale is dragged to: they must stay positive.
const MIN_SIZE: f32 = 1e-3;

/// The Selection section: its buttons, the selected thing's rows and its material's.
#[derive(Default)]
pub(super) struct SelectionPanel {
    /// The selected material's texture rows: the image files being typed, the thumbnails.
    pub textures: TextureUi,
}

impl SelectionPanel {
    /// Add, delete, store the camera (at `orbit`); then the selection's fields.
    pub(super) fn show(&mut self, ui: &mut egui::Ui, edits: &mut Edits<'_>, orbit: Option<&Orbit>) {
        let Some(current) = edits.session.current().cloned() else {
            ui.label("no scene");
            return;
        };
        let scene = &current.scene;
        ui.horizontal(|ui| {
            if ui.button("Add sphere").clicked()
                && let Some(orbit) = orbit
            {
                let result = edits.editor.add_sphere(edits.session, orbit.target, orbit.distance * 0.05);
                edits.report(result);
            }
            let deletable = edits.editor.can_delete(scene);
            if ui.add_enabled(deletable, egui::Button::new("Delete")).on_hover_text("Delete key").clicked() {
                let result = edits.editor.delete_selected(edits.session);
                edits.report(result);
            }
            if ui.button("Set scene camera").on_hover_text("store the current view in the scene").clicked()
                && let Some(orbit) = orbit
            {
                edits.apply(Set::new(|s: &mut Scene| &mut s.camera, orbit.camera()), EditKey::Structure);
            }
        });
        let Some(selected) = edits.editor.selected.filter(|s| s.exists_in(scene)) else {
            ui.label("Click a thing in the render or the outline to select it.");
            return;
        };
        ui.label(RichText::new(format!("selected: {selected}")).strong());
        let mut edit: Option<(Box<dyn Change>, EditKey)> = with_thing!(selected, T, i => {
            let mut thing = <T as Clone>::clone(&T::list(scene)[i]);
            let rows = egui::Grid::new("selected").num_columns(2).show(ui, |ui| thing.rows(ui, &scene.materials));
            T::list(scene)[i].notes(ui);
            rows.inner.map(|field| (edit::replace(i, thing), EditKey::Field(selected, field)))
        });
        // A material edit below overrides one above: two in one frame is not a thing a pointer does.
        if let Some(index) = selected.material(scene)
            && (index as usize) < scene.materials.len()
            && let Some(material_edit) = material_panel(ui, &mut self.textures, scene, index as usize)
        {
            edit = Some(material_edit);
        }
        if let Some((change, key)) = edit {
            edits.apply(change, key);
        }
    }
}

/// A sphere's center, radius and material; the field changed, if one was.
pub(super) fn sphere_rows(
    ui: &mut egui::Ui,
    sphere: &mut Sphere,
    materials: &[Material],
) -> Option<&'static str> {
    let mut field = None;
    let speed = (sphere.radius * 0.02).max(MIN_SIZE);
    if vector_drags(ui, ["center x", "center y", "center z"], &mut sphere.center, speed).contains(&true) {
        field = Some("center");
    }
    if positive_drag(ui, "radius", &mut sphere.radius) {
        field = Some("radius");
    }
    if material_combo(ui, materials, &mut sphere.material) {
        field = Some("material");
    }
    field
}

/// A box's center (moving it whole), size (about the center) and material; the field changed.
pub(super) fn box_rows(
    ui: &mut egui::Ui,
    cuboid: &mut Cuboid,
    materials: &[Material],
) -> Option<&'static str> {
    let mut field = None;
    let (mut center, mut size) = ((cuboid.min + cuboid.max) * 0.5, cuboid.max - cuboid.min);
    let speed = (size.max_element() * 0.02).max(MIN_SIZE);
    let mut edited = vector_drags(ui, ["center x", "center y", "center z"], &mut center, speed);
    if edited.contains(&true) {
        field = Some("center");
    }
    for (axis, name) in ["size x", "size y", "size z"].into_iter().enumerate() {
        if positive_drag(ui, name, &mut size[axis]) {
            (edited[axis], field) = (true, Some("size"));
        }
    }
    // Only edited axes get new corners: the round trip through center and size can move
    // a corner by an ulp, which a save would write out.
    for axis in (0..3).filter(|&axis| edited[axis]) {
        cuboid.min[axis] = center[axis] - size[axis] * 0.5;
        cuboid.max[axis] = center[axis] + size[axis] * 0.5;
    }
    if material_combo(ui, materials, &mut cuboid.material) {
        field = Some("material");
    }
    field
}

/// A terrain's origin, cell, height scale and single material; the field changed.
pub(super) fn terrain_rows(
    ui: &mut egui::Ui,
    terrain: &mut Terrain,
    materials: &[Material],
) -> Option<&'static str> {
    let mut field = None;
    let speed = (terrain.cell * 0.1).max(MIN_SIZE);
    if vector_drags(ui, ["origin x", "origin y", "origin z"], &mut terrain.origin, speed).contains(&true) {
        field = Some("origin");
    }
    if positive_drag(ui, "cell", &mut terrain.cell) {
        field = Some("cell");
    }
    if positive_drag(ui, "height scale", &mut terrain.height_scale) {
        field = Some("height scale");
    }
    if let TerrainSurface::Material(material) = &mut terrain.surface
        && material_combo(ui, materials, material)
    {
        field = Some("material");
    }
    field
}

/// What a terrain's panel says besides its rows: its image and size, and its palette.
pub(super) fn terrain_notes(ui: &mut egui::Ui, terrain: &Terrain) {
    let heights = &terrain.heights;
    ui.label(format!("image {} · {} x {} pixels", terrain.image, heights.width, heights.depth));
    if let TerrainSurface::Palette(bands) = &terrain.surface {
        ui.label(format!("coloured by height: {} bands (edit them in the scene file)", bands.len()));
    }
}

/// A mesh's material: the model's own (when it has any) or one of the scene's; the
/// field changed.
pub(super) fn mesh_rows(ui: &mut egui::Ui, mesh: &mut Mesh, materials: &[Material]) -> Option<&'static str> {
    let label = ui.label("material");
    let own = "model's own materials";
    let current = match mesh.material {
        None => own,
        Some(m) => materials.get(m as usize).map_or("?", |m| m.name.as_str()),
    };
    let mut changed = false;
    let combo = egui::ComboBox::from_id_salt("mesh material").selected_text(current).show_ui(ui, |ui| {
        // A model without materials of its own needs one of the scene's.
        ui.add_enabled_ui(!mesh.data.materials.is_empty(), |ui| {
            changed |= ui.selectable_value(&mut mesh.material, None, own).changed();
        });
        for (i, m) in materials.iter().enumerate() {
            changed |= ui.selectable_value(&mut mesh.material, Some(i as u32), m.name.as_str()).changed();
        }
    });
    combo.response.labelled_by(label.id);
    ui.end_row();
    changed.then_some("material")
}

/// What a mesh's panel says besides its rows: its file and size, and the model's own
/// materials when the mesh uses them.
pub(super) fn mesh_notes(ui: &mut egui::Ui, mesh: &Mesh) {
    let data = &mesh.data;
    ui.label(format!("model {} · {} triangles", mesh.file, data.triangles.len()));
    if mesh.material.is_some() {
        return;
    }
    let names: Vec<&str> = data.materials.iter().map(|m| m.name.as_str()).collect();
    ui.label(format!("the model's materials: {} (edit them in the model file)", names.join(", ")));
}

/// [`labelled_drag`] of a value that must stay positive: a change ends at least
/// [`MIN_SIZE`] (however it came, a set value included); a smaller value the file already
/// holds is shown as it is, since clamping it would be an edit nobody made.
pub(super) fn positive_drag(ui: &mut egui::Ui, name: &str, value: &mut f32) -> bool {
    let speed = (*value * 0.02).max(MIN_SIZE);
    let drag = DragValue::new(value).speed(speed).range(MIN_SIZE..=f32::MAX).clamp_existing_to_range(false);
    let changed = labelled_drag(ui, name, drag);
    if changed {
        *value = value.max(MIN_SIZE);
    }
    changed
}

/// One labelled drag row per component of `vector`; which components changed.
fn vector_drags(ui: &mut egui::Ui, names: [&str; 3], vector: &mut Vec3, speed: f32) -> [bool; 3] {
    let mut changed = [false; 3];
    for ((name, value), changed) in names.into_iter().zip(vector.as_mut()).zip(&mut changed) {
        *changed = labelled_drag(ui, name, DragValue::new(value).speed(speed));
    }
    changed
}

/// A label and a drag value in one grid row, linked for accessibility (and tests); true when changed.
pub(super) fn labelled_drag(ui: &mut egui::Ui, name: &str, drag: DragValue<'_>) -> bool {
    let label = ui.label(name);
    let changed = ui.add(drag).labelled_by(label.id).changed();
    ui.end_row();
    changed
}

/// The "material" row: a choice among the scene's materials; true when changed.
fn material_combo(ui: &mut egui::Ui, materials: &[Material], material: &mut u32) -> bool {
    let label = ui.label("material");
    let current = materials.get(*material as usize).map_or("?", |m| m.name.as_str());
    let mut changed = false;
    let combo = egui::ComboBox::from_id_salt("material").selected_text(current).show_ui(ui, |ui| {
        for (i, m) in materials.iter().enumerate() {
            changed |= ui.selectable_value(material, i as u32, m.name.as_str()).changed();
        }
    });
    combo.response.labelled_by(label.id);
    ui.end_row();
    changed
}

/// A label and a colour button (its picker on click) in one grid row; true when changed.
pub(super) fn color_row(ui: &mut egui::Ui, name: &str, value: &mut Vec3) -> bool {
    let label = ui.label(name);
    let mut rgb = value.to_array();
    let changed = ui.color_edit_button_rgb(&mut rgb).labelled_by(label.id).changed();
    *value = Vec3::from_array(rgb);
    ui.end_row();
    changed
}
