//! The selection editor: the selected thing's rows (each kind's through its
//! [`Thing`] implementation: a sphere's, box's, terrain's or mesh's fields, a mesh's
//! material the model's own or one of the scene's), and its material
//! (`material_editor`, with its textures in `texture_editor`). A change edits a copy of
//! the thing; only then does it become a [`super::edit::Change`] applied through
//! [`super::edit::Editor`] (validated, undoable), so an idle frame copies nothing.

use eframe::egui::{self, RichText};
use scene_compiler::scene::Scene;

use super::edit::{self, Change, EditKey, Edits, FilePlacement, InstanceSplice, Set};
use super::material_editor::material_panel;
use super::orbit::Orbit;
use super::rows::{InstanceMaterials, instance_rows};
use super::selected::{Selected, Thing, with_thing};
use super::texture_editor::TextureUi;

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
        let mut edit: Option<(Box<dyn Change>, EditKey)> = match selected {
            Selected::Instance { mesh, k } => instance_rows_and_notes(ui, scene, mesh, k)
                .map(|(change, field)| (change, EditKey::Field(selected, field))),
            _ => with_thing!(selected, T, i => {
                let mut thing = <T as Clone>::clone(&T::list(scene)[i]);
                let rows =
                    egui::Grid::new("selected").num_columns(2).show(ui, |ui| thing.rows(ui, &scene.materials));
                T::list(scene)[i].notes(ui);
                rows.inner.map(|field| (edit::replace(i, thing), EditKey::Field(selected, field)))
            }),
        };
        // A material edit below overrides one above: two in one frame is not a thing a pointer does.
        if let Some(index) = selected.material(scene)
            && (index as usize) < scene.materials.len()
            && let Some(material_edit) = material_panel(ui, &mut self.textures, scene, index as usize)
        {
            edit = Some(material_edit);
        }
        // No `Arc` of the scene held across the edit: a move of instances is then made
        // in place (`Session::apply`).
        drop(current);
        if let Some((change, key)) = edit {
            edits.apply(change, key);
        }
    }
}

/// Instance `k` of mesh `mesh`: one of its `instances`, or a vertex of its instance
/// file that can be written back (`InstanceFileData::rewrite`), gets rows that edit it;
/// another vertex is shown, to be edited in its file. The change and the field changed,
/// if one was.
fn instance_rows_and_notes(
    ui: &mut egui::Ui,
    scene: &Scene,
    mesh: usize,
    k: usize,
) -> Option<(Box<dyn Change>, &'static str)> {
    let owner = &scene.meshes[mesh];
    if let Some(&instance) = owner.instances.get(k) {
        let mut edited = instance;
        let rows = egui::Grid::new("selected instance").num_columns(2).show(ui, |ui| {
            instance_rows(ui, &mut edited, owner, &scene.materials, InstanceMaterials::MeshOrScene)
        });
        ui.label(format!("instance {k} of model {} (the mesh's `instances`)", owner.file));
        return rows
            .inner
            .map(|field| (InstanceSplice::new(mesh, k, 1, vec![edited]) as Box<dyn Change>, field));
    }
    let v = k - owner.instances.len();
    let file = owner.instance_file.as_deref().unwrap_or_default();
    let placed = owner.placements.instances[v];
    if let Err(why) = &owner.placements.rewrite {
        let t = placed.transform;
        ui.label(format!("translate {} · rotate {} · scale {}", t.translate, t.rotate_deg, t.scale));
        ui.label(format!("vertex {v} of instance_file `{file}`, which is edited in the file: {why}"));
        return None;
    }
    let choice = match placed.material {
        Some(_) => InstanceMaterials::Scene,
        None => InstanceMaterials::Mesh,
    };
    let mut edited = placed;
    let rows = egui::Grid::new("selected instance")
        .num_columns(2)
        .show(ui, |ui| instance_rows(ui, &mut edited, owner, &scene.materials, choice));
    ui.label(format!("vertex {v} of instance_file `{file}`: saving writes that file"));
    rows.inner.map(|field| (FilePlacement::new(mesh, v, edited) as Box<dyn Change>, field))
}
