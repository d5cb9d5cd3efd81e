//! Widget rows the panels share, in two-column grids: labelled drags, colours, the
//! material combo box, and each editable kind's rows (its [`super::selected::Thing`]
//! implementation shows them). Widgets only: they edit the value they are given and
//! say what changed; the panels turn that into an edit.

use eframe::egui::{self, DragValue};
use glam::Vec3;
use scene_compiler::scene::{
    Cuboid, Material, MaterialKind, Mesh, PlacedInstance, Sphere, Terrain, TerrainSurface, Transform,
};

/// The least a radius, size, cell or height scale is dragged to: they must stay positive.
const MIN_SIZE: f32 = 1e-3;

/// A sphere's center, radius and material; the field changed, if one was.
pub fn sphere_rows(ui: &mut egui::Ui, sphere: &mut Sphere, materials: &[Material]) -> Option<&'static str> {
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
pub fn box_rows(ui: &mut egui::Ui, cuboid: &mut Cuboid, materials: &[Material]) -> Option<&'static str> {
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
pub fn terrain_rows(
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
pub fn terrain_notes(ui: &mut egui::Ui, terrain: &Terrain) {
    let heights = &terrain.heights;
    ui.label(format!("image {} · {} x {} pixels", terrain.image, heights.width, heights.depth));
    if let TerrainSurface::Palette(bands) = &terrain.surface {
        ui.label(format!("coloured by height: {} bands (edit them in the scene file)", bands.len()));
    }
}

/// A mesh's transform and its material: the model's own (when it has any) or one of
/// the scene's; the field changed.
pub fn mesh_rows(ui: &mut egui::Ui, mesh: &mut Mesh, materials: &[Material]) -> Option<&'static str> {
    let speed = drag_speed(mesh);
    let mut field = transform_rows(ui, &mut mesh.transform, speed);
    // A model without materials of its own needs one of the scene's.
    let own = Some(!mesh.data.materials.is_empty());
    if optional_material_row(ui, "mesh material", materials, &mut mesh.material, "model's own materials", own)
    {
        field = Some("material");
    }
    field
}

/// Which materials an instance may be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceMaterials {
    /// Its mesh's or one of the scene's: an entry of a mesh's `instances`.
    MeshOrScene,
    /// One of the scene's: a vertex of an instance file with a `material` property,
    /// where every vertex names one.
    Scene,
    /// Its mesh's alone: a vertex of an instance file without one (naming a material
    /// would give every other vertex material 0).
    Mesh,
}

/// An instance's transform and, as `choice` allows, its material; the field changed.
pub fn instance_rows(
    ui: &mut egui::Ui,
    instance: &mut PlacedInstance,
    mesh: &Mesh,
    materials: &[Material],
    choice: InstanceMaterials,
) -> Option<&'static str> {
    let mut field = transform_rows(ui, &mut instance.transform, drag_speed(mesh));
    if choice == InstanceMaterials::Mesh {
        return field;
    }
    let mesh_own = (choice == InstanceMaterials::MeshOrScene).then_some(true);
    let material = &mut instance.material;
    if optional_material_row(ui, "instance material", materials, material, "the mesh's material", mesh_own) {
        field = Some("material");
    }
    field
}

/// The "material" row of a material that may be none (`None` in `material`, shown as
/// `none`, offered when `offered` is `Some`: enabled or greyed out) or one of the
/// scene's; true when changed.
fn optional_material_row(
    ui: &mut egui::Ui,
    id_salt: &str,
    materials: &[Material],
    material: &mut Option<u32>,
    none: &str,
    offered: Option<bool>,
) -> bool {
    let label = ui.label("material");
    let current = match *material {
        None => none,
        Some(m) => materials.get(m as usize).map_or("?", |m| m.name.as_str()),
    };
    let mut changed = false;
    let combo = egui::ComboBox::from_id_salt(id_salt).selected_text(current).show_ui(ui, |ui| {
        if let Some(enabled) = offered {
            ui.add_enabled_ui(enabled, |ui| changed |= ui.selectable_value(material, None, none).changed());
        }
        for (i, m) in materials.iter().enumerate() {
            changed |= ui.selectable_value(material, Some(i as u32), m.name.as_str()).changed();
        }
    });
    combo.response.labelled_by(label.id);
    ui.end_row();
    changed
}

/// A transform's translation (dragged by `speed`), rotation in degrees and scale; the
/// field changed.
fn transform_rows(ui: &mut egui::Ui, transform: &mut Transform, speed: f32) -> Option<&'static str> {
    let mut field = None;
    if vector_drags(ui, ["translate x", "translate y", "translate z"], &mut transform.translate, speed)
        .contains(&true)
    {
        field = Some("translate");
    }
    if vector_drags(ui, ["rotate x", "rotate y", "rotate z"], &mut transform.rotate_deg, 0.5).contains(&true)
    {
        field = Some("rotate");
    }
    if scale_rows(ui, transform) {
        field = Some("scale");
    }
    field
}

/// A scale the axes share is one "scale" row that sets all three (and an instance
/// file's, which holds one number, stays so); another is a row per axis, each edited
/// alone, so that neither an edit of one axis nor any other edit loses the others.
/// True when changed.
fn scale_rows(ui: &mut egui::Ui, transform: &mut Transform) -> bool {
    if let Some(mut shared) = transform.uniform_scale() {
        let changed = scale_drag(ui, "scale", &mut shared);
        if changed {
            transform.scale = Vec3::splat(shared);
        }
        return changed;
    }
    let mut changed = false;
    for (name, value) in ["scale x", "scale y", "scale z"].into_iter().zip(transform.scale.as_mut()) {
        changed |= scale_drag(ui, name, value);
    }
    changed
}

/// [`positive_drag`] of a scale, which may be negative (a mirror): a change keeps its
/// sign and a size of at least [`MIN_SIZE`], so a drag never passes through 0.
fn scale_drag(ui: &mut egui::Ui, name: &str, value: &mut f32) -> bool {
    let sizes = if value.is_sign_negative() { -f32::MAX..=-MIN_SIZE } else { MIN_SIZE..=f32::MAX };
    let speed = (value.abs() * 0.02).max(MIN_SIZE);
    let drag = DragValue::new(value).speed(speed).range(sizes.clone()).clamp_existing_to_range(false);
    let changed = labelled_drag(ui, name, drag);
    if changed {
        *value = value.clamp(*sizes.start(), *sizes.end());
    }
    changed
}

/// How far a drag moves a mesh or an instance per pixel: 1 % of its model's size (at
/// scale 1), so a tree and a city both take a drag across the panel to cross.
fn drag_speed(mesh: &Mesh) -> f32 {
    let extent = super::selected::model_box(mesh).map_or(1.0, |(min, max)| (max - min).max_element());
    (extent * 0.01).max(MIN_SIZE)
}

/// What a mesh's panel says besides its rows: its file and size, and the model's own
/// materials when the mesh uses them.
pub fn mesh_notes(ui: &mut egui::Ui, mesh: &Mesh) {
    let data = &mesh.data;
    let instances = mesh.instance_count();
    let placed = if instances > 0 { format!(" · {instances} instances") } else { String::new() };
    ui.label(format!("model {} · {} triangles{placed}", mesh.file, data.stored_triangles()));
    if instances > 0 {
        ui.label("its transform applies after each instance's; select an instance to move it alone");
    }
    if mesh.material.is_some() {
        return;
    }
    let names: Vec<&str> = data.materials.iter().map(|m| m.name.as_str()).collect();
    ui.label(format!("the model's materials: {} (edit them in the model file)", names.join(", ")));
}

/// [`labelled_drag`] of a value that must stay positive: a change ends at least
/// [`MIN_SIZE`] (however it came, a set value included); a smaller value the file already
/// holds is shown as it is, since clamping it would be an edit nobody made.
pub fn positive_drag(ui: &mut egui::Ui, name: &str, value: &mut f32) -> bool {
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
pub fn labelled_drag(ui: &mut egui::Ui, name: &str, drag: DragValue<'_>) -> bool {
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
pub fn color_row(ui: &mut egui::Ui, name: &str, value: &mut Vec3) -> bool {
    let label = ui.label(name);
    let mut rgb = value.to_array();
    let changed = ui.color_edit_button_rgb(&mut rgb).labelled_by(label.id).changed();
    *value = Vec3::from_array(rgb);
    ui.end_row();
    changed
}

/// The name the kind combo box gives `kind`: its name in a scene file.
pub fn kind_name(kind: &MaterialKind) -> &'static str {
    match kind {
        MaterialKind::Lambert { .. } => "Lambert",
        MaterialKind::Metal { .. } => "Metal",
        MaterialKind::Dielectric { .. } => "Dielectric",
        MaterialKind::Emissive { .. } => "Emissive",
        MaterialKind::Principled(_) => "Principled",
    }
}
