//! The selected thing's material in the selection editor: its kind (a combo box), its
//! parameters, and its textures ([`super::texture_editor`]). A new kind starts from
//! what the old one shows (its colour); a Principled starts at glTF's defaults. A kind
//! keeps only the textures it takes: a Dielectric none, every kind but a Principled no
//! maps.
//!
//! Not here: which material a thing uses (the selection editor's `material` rows).

use eframe::egui::{self, DragValue, RichText};
use glam::Vec3;
use scene_compiler::scene::{AlphaMode, Maps, Material, MaterialKind, Principled, Scene};

use super::edit::{Change, EditKey, Splice};
use super::rows::{color_row, kind_name, labelled_drag};
use super::texture_editor::TextureUi;

/// The rows of material `index` of `scene`: its kind, parameters and textures (their
/// rows' state in `textures`). The change made and its undo key, when one was made.
pub(super) fn material_panel(
    ui: &mut egui::Ui,
    textures: &mut TextureUi,
    scene: &Scene,
    index: usize,
) -> Option<(Box<dyn Change>, EditKey)> {
    let material = &scene.materials[index];
    ui.label(RichText::new(format!("material \"{}\" (shared by all that use it)", material.name)).strong());
    let mut kind = material.kind;
    let rows = egui::Grid::new("material").num_columns(2).show(ui, |ui| {
        let switched = kind_row(ui, &mut kind);
        let edited = parameter_rows(ui, &mut kind);
        (switched, edited, textures.show(ui, index, scene))
    });
    let (switched, edited, texture) = rows.inner;
    // The last of these wins: two in one frame is not a thing a pointer does.
    let mut edit = None;
    let change = |material: Material| -> Box<dyn Change> {
        Splice::new(|s: &mut Scene| &mut s.materials, index, 1, vec![material])
    };
    if switched || edited {
        // A new kind is one undo step; a drag coalesces with the material's.
        let key = if switched { EditKey::Structure } else { EditKey::Material(index) };
        edit = Some((change(with_kind(material, kind)), key));
    }
    if let Some(texture) = texture {
        let mut material = material.clone();
        texture.slot.set(&mut material, texture.texture);
        // A new kind, file or wrap mode is one undo step; a drag coalesces with the material's.
        edit = Some((
            change(material),
            if texture.step { EditKey::Structure } else { EditKey::Material(index) },
        ));
    }
    edit
}

/// `material` made of `kind`, keeping the textures `kind` takes.
pub fn with_kind(material: &Material, kind: MaterialKind) -> Material {
    Material {
        name: material.name.clone(),
        kind,
        texture: if kind.takes_texture() { material.texture.clone() } else { None },
        maps: if kind.takes_maps() { material.maps.clone() } else { Maps::default() },
    }
}

/// Every kind, as a material that is now `from` becomes it: with `from`'s colour where
/// the kind has one, a Principled with glTF's defaults ([`Principled::default`]).
fn new_kinds(from: &MaterialKind) -> [MaterialKind; 5] {
    let colour = match *from {
        MaterialKind::Lambert { albedo } | MaterialKind::Metal { albedo, .. } => albedo,
        MaterialKind::Emissive { color, .. } => color,
        MaterialKind::Principled(p) => p.base_color,
        MaterialKind::Dielectric { .. } => Vec3::splat(0.8),
    };
    [
        MaterialKind::Lambert { albedo: colour },
        MaterialKind::Metal { albedo: colour, fuzz: 0.0 },
        MaterialKind::Dielectric { ior: 1.5 },
        MaterialKind::Emissive { color: colour, strength: 1.0, albedo: Vec3::ZERO },
        MaterialKind::Principled(Principled::default()),
    ]
}

/// The "kind" row: a combo box of the kinds; true when another was chosen (`kind` is
/// then the new one).
fn kind_row(ui: &mut egui::Ui, kind: &mut MaterialKind) -> bool {
    let label = ui.label("kind");
    let current = kind_name(kind);
    let mut chosen = None;
    egui::ComboBox::from_id_salt("material kind")
        .selected_text(current)
        .show_ui(ui, |ui| {
            for new in new_kinds(kind) {
                let name = kind_name(&new);
                if ui.add(egui::Button::selectable(name == current, name)).clicked() && name != current {
                    chosen = Some(new);
                }
            }
        })
        .response
        .labelled_by(label.id);
    ui.end_row();
    chosen.map(|new| *kind = new).is_some()
}

/// The parameters of one material kind; true when one changed.
fn parameter_rows(ui: &mut egui::Ui, kind: &mut MaterialKind) -> bool {
    let color = color_row;
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
        MaterialKind::Principled(p) => principled_rows(ui, p),
    }
}

/// A Principled material's factors (its textures are the texture rows'); true when one
/// changed.
fn principled_rows(ui: &mut egui::Ui, p: &mut Principled) -> bool {
    let unit = |ui: &mut egui::Ui, name: &str, v: &mut f32| {
        labelled_drag(ui, name, DragValue::new(v).speed(0.01).range(0.0..=1.0))
    };
    let mut changed = color_row(ui, "base colour", &mut p.base_color);
    changed |= unit(ui, "metallic", &mut p.metallic);
    changed |= unit(ui, "roughness", &mut p.roughness);
    changed |= labelled_drag(ui, "ior", DragValue::new(&mut p.ior).speed(0.01).range(1.0..=4.0));
    changed |= unit(ui, "transmission", &mut p.transmission);
    changed |= color_row(ui, "emission", &mut p.emission);
    changed |= labelled_drag(
        ui,
        "emission strength",
        DragValue::new(&mut p.emission_strength).speed(0.05).range(0.0..=1e4),
    );
    changed |=
        labelled_drag(ui, "normal scale", DragValue::new(&mut p.normal_scale).speed(0.01).range(0.0..=4.0));
    changed |= unit(ui, "alpha", &mut p.alpha);
    changed |= alpha_mode_row(ui, &mut p.alpha_mode);
    changed
}

/// The alpha mode: a combo of the three, and a Mask's cutoff.
fn alpha_mode_row(ui: &mut egui::Ui, mode: &mut AlphaMode) -> bool {
    let label = ui.label("alpha mode");
    let names = ["Opaque", "Mask", "Blend"];
    let current = match mode {
        AlphaMode::Opaque => 0,
        AlphaMode::Mask(_) => 1,
        AlphaMode::Blend => 2,
    };
    let mut chosen = current;
    egui::ComboBox::from_id_salt("alpha mode")
        .selected_text(names[current])
        .show_ui(ui, |ui| {
            for (i, name) in names.iter().enumerate() {
                ui.selectable_value(&mut chosen, i, *name);
            }
        })
        .response
        .labelled_by(label.id);
    ui.end_row();
    let mut changed = chosen != current;
    if changed {
        *mode = [AlphaMode::Opaque, AlphaMode::Mask(0.5), AlphaMode::Blend][chosen];
    }
    if let AlphaMode::Mask(cutoff) = mode {
        changed |= labelled_drag(ui, "alpha cutoff", DragValue::new(cutoff).speed(0.01).range(0.0..=1.0));
    }
    changed
}

#[cfg(test)]
mod tests {
    use scene_compiler::scene::{Texture, Wrap};

    use super::*;

    #[test]
    fn a_kind_keeps_only_the_textures_it_takes() {
        let checker = Texture::Checker { size: 1.0, even: Vec3::ONE, odd: Vec3::ZERO };
        let normal = Texture::image_to_read("n.png", Wrap::Repeat, Default::default());
        let mut principled = Material::new("m", MaterialKind::Principled(Principled::default()));
        principled.texture = Some(checker.clone());
        principled.maps.normal = Some(normal);
        let lambert = with_kind(&principled, MaterialKind::Lambert { albedo: Vec3::ONE });
        assert_eq!((&lambert.texture, &lambert.maps), (&Some(checker), &Maps::default()), "maps dropped");
        let glass = with_kind(&principled, MaterialKind::Dielectric { ior: 1.5 });
        assert_eq!((glass.texture, glass.maps), (None, Maps::default()), "a Dielectric takes none");
        assert_eq!(with_kind(&principled, principled.kind), principled);
    }

    #[test]
    fn a_new_principled_has_gltfs_defaults_and_other_kinds_keep_the_colour() {
        let red = Vec3::new(0.8, 0.1, 0.1);
        let kinds = new_kinds(&MaterialKind::Lambert { albedo: red });
        assert_eq!(
            kinds.map(|k| kind_name(&k)),
            ["Lambert", "Metal", "Dielectric", "Emissive", "Principled"]
        );
        assert_eq!(kinds[4], MaterialKind::Principled(Principled::default()));
        assert_eq!(kinds[1], MaterialKind::Metal { albedo: red, fuzz: 0.0 });
    }
}
