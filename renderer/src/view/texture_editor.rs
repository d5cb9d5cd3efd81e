//! The selected material's textures in the selection editor, one [`Slot`] after the
//! other: the colour texture (`texture`, a Principled's `base_color_texture`) of a kind
//! that takes one, then a Principled's maps (`metallic_roughness_texture`,
//! `emission_texture`, `normal_texture`). Each slot's kind (none, image, checker, noise)
//! is chosen in a combo box; an image's file (a text field read again on Enter or with
//! the Read button), wrap mode and a thumbnail; a checker's size and two colours; a
//! noise's scale. A change returns the edited slot; the material editor applies it like
//! any material edit (validated by the session, undoable).
//!
//! A new image file becomes [`Texture::image_to_read`]: [`crate::session::Session::apply`]
//! reads it from the scene's folder as a scene file's image is read (a data map without
//! sRGB decoding), so a missing or unreadable image is the compiler's message in the
//! error panel and the scene stays.

use std::sync::Arc;

use eframe::egui::{self, Key};
use glam::Vec3;
use scene_compiler::scene::{
    MAP_COUNT, MAP_FIELDS, Maps, Material, MaterialKind, Scene, Texture, TextureImage, UvTransform, Wrap,
};

use super::rows::{color_row, kind_name, positive_drag};

/// The longest side of a thumbnail, in pixels.
pub const THUMBNAIL_SIDE: u32 = 96;

/// What a new checker starts as (the README's floor).
const NEW_CHECKER: Texture = Texture::Checker { size: 1.0, even: Vec3::ONE, odd: Vec3::new(0.1, 0.1, 0.1) };
/// What a new noise starts as.
const NEW_NOISE: Texture = Texture::Noise { scale: 4.0 };

/// One texture of a material: its colour texture, or its map `i` (in [`Maps::slots`]
/// order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Color,
    Map(usize),
}

impl Slot {
    /// Every slot, in the order the panel shows them.
    pub const ALL: [Slot; 1 + MAP_COUNT] = [Slot::Color, Slot::Map(0), Slot::Map(1), Slot::Map(2)];

    /// The slots a material of `kind` has.
    pub fn of(kind: &MaterialKind) -> impl Iterator<Item = Slot> + use<> {
        let (colour, maps) = (kind.takes_texture(), kind.takes_maps());
        Slot::ALL.into_iter().filter(move |slot| if *slot == Slot::Color { colour } else { maps })
    }

    /// Its field in a scene file (for a material of `kind`).
    pub fn field(self, kind: &MaterialKind) -> &'static str {
        match self {
            Slot::Color => kind.texture_field(),
            Slot::Map(i) => MAP_FIELDS[i],
        }
    }

    /// Its texture in `material`.
    pub fn get(self, material: &Material) -> Option<&Texture> {
        match self {
            Slot::Color => material.texture.as_ref(),
            Slot::Map(i) => material.maps.slots()[i],
        }
    }

    /// Puts `texture` in `material`.
    pub fn set(self, material: &mut Material, texture: Option<Texture>) {
        match self {
            Slot::Color => material.texture = texture,
            Slot::Map(i) => *material.maps.slots_mut()[i] = texture,
        }
    }

    /// Whether its image holds numbers (read without sRGB decoding, shown as stored).
    pub fn is_data(self) -> bool {
        matches!(self, Slot::Map(i) if Maps::is_data(i))
    }

    fn index(self) -> usize {
        match self {
            Slot::Color => 0,
            Slot::Map(i) => 1 + i,
        }
    }

    /// The label of its row `name`: as it is for the colour texture, after the map's name
    /// for a map (`normal image file`), so every row of the panel has its own.
    fn label(self, name: &str) -> String {
        match self {
            Slot::Color => name.to_owned(),
            Slot::Map(i) => {
                let map = MAP_FIELDS[i].strip_suffix("_texture").unwrap_or(MAP_FIELDS[i]);
                format!("{map} {name}")
            }
        }
    }
}

/// What the texture rows keep between frames, per slot.
#[derive(Default)]
pub struct TextureUi {
    slots: [SlotUi; 1 + MAP_COUNT],
}

/// What one slot's rows keep between frames.
#[derive(Default)]
struct SlotUi {
    field: Option<FileField>,
    /// The thumbnail of the image shown last; made again only for another image.
    thumbnail: Option<(Arc<TextureImage>, egui::TextureHandle)>,
}

/// The image file field of one slot of one material.
struct FileField {
    material: usize,
    /// The slot's image file when `text` was last set from it (`None`: no image).
    shown: Option<String>,
    /// What the field holds: the file, or what the user is typing.
    text: String,
    /// "image" was chosen for a slot without an image: the field waits for a file.
    choosing: bool,
}

/// A texture edit.
#[derive(Debug, PartialEq)]
pub struct TextureEdit {
    pub slot: Slot,
    pub texture: Option<Texture>,
    /// A change of kind, wrap or file: its own undo step. Otherwise a drag or colour,
    /// which coalesces with the material's other edits.
    pub step: bool,
}

/// The texture kinds as the combo box names them.
const KINDS: [&str; 4] = ["none", "image", "checker", "noise"];

fn kind_of(texture: Option<&Texture>) -> &'static str {
    match texture {
        None => "none",
        Some(Texture::Image { .. }) => "image",
        Some(Texture::Checker { .. }) => "checker",
        Some(Texture::Noise { .. }) => "noise",
    }
}

impl TextureUi {
    /// The texture rows of material `index` of `scene`, inside a two-column grid: one
    /// group per slot its kind takes. The edit, when one was made.
    pub fn show(&mut self, ui: &mut egui::Ui, index: usize, scene: &Scene) -> Option<TextureEdit> {
        let kind = &scene.materials[index].kind;
        if !kind.takes_texture() {
            ui.label("texture");
            ui.label(format!("none (a {} takes none)", kind_name(kind)));
            ui.end_row();
        }
        let mut edit = None;
        for slot in Slot::of(kind) {
            edit = self.slots[slot.index()].show(ui, slot, index, scene).or(edit);
        }
        edit
    }
}

impl SlotUi {
    /// The rows of `slot` of material `index`.
    fn show(&mut self, ui: &mut egui::Ui, slot: Slot, index: usize, scene: &Scene) -> Option<TextureEdit> {
        let material = &scene.materials[index];
        let texture = slot.get(material);
        let file = match texture {
            Some(Texture::Image { file, .. }) => Some(file.clone()),
            _ => None,
        };
        let field = self.field.get_or_insert_with(|| FileField::new(index, file.clone()));
        if field.material != index || field.shown != file {
            *field = FileField::new(index, file);
        }
        let edit = self.kind_row(ui, slot, material, scene);
        let choosing = self.field.as_ref().is_some_and(|f| f.choosing);
        let changed = |texture| Some(TextureEdit { slot, texture: Some(texture), step: false });
        match texture {
            _ if choosing => self.image_rows(ui, slot, None, Wrap::Repeat, UvTransform::IDENTITY).or(edit),
            Some(Texture::Image { image, wrap, uv_transform, .. }) => {
                self.image_rows(ui, slot, Some(image), *wrap, *uv_transform).or(edit)
            }
            Some(&Texture::Checker { mut size, mut even, mut odd }) => {
                let resized = positive_drag(ui, &slot.label("size"), &mut size);
                let even_changed = color_row(ui, &slot.label("even"), &mut even);
                if resized | even_changed | color_row(ui, &slot.label("odd"), &mut odd) {
                    changed(Texture::Checker { size, even, odd })
                } else {
                    edit
                }
            }
            Some(&Texture::Noise { mut scale }) => {
                if positive_drag(ui, &slot.label("scale"), &mut scale) {
                    changed(Texture::Noise { scale })
                } else {
                    edit
                }
            }
            None => edit,
        }
    }

    /// The slot's first row, labelled with its field: a combo box of the kinds; choosing
    /// another one is an edit (or, for an image with no file known yet, waits for the
    /// file field).
    fn kind_row(
        &mut self,
        ui: &mut egui::Ui,
        slot: Slot,
        material: &Material,
        scene: &Scene,
    ) -> Option<TextureEdit> {
        let field = self.field.as_mut()?;
        let has = kind_of(slot.get(material));
        let current = if field.choosing { "image" } else { has };
        let mut chosen = current;
        let name = slot.field(&material.kind);
        let label = ui.label(name);
        egui::ComboBox::from_id_salt(name)
            .selected_text(current)
            .show_ui(ui, |ui| {
                for kind in KINDS {
                    ui.selectable_value(&mut chosen, kind, kind);
                }
            })
            .response
            .labelled_by(label.id);
        ui.end_row();
        if chosen == current {
            return None;
        }
        field.choosing = false;
        if chosen == has {
            // Back to the kind it has while waiting for an image file: nothing changes.
            return None;
        }
        let texture = match chosen {
            "none" => None,
            "checker" => Some(NEW_CHECKER),
            "noise" => Some(NEW_NOISE),
            _ => match another_image(scene, slot.is_data()) {
                // Another slot's image, read as this one reads: shared, nothing to read.
                Some(texture) => Some(texture.clone()),
                None => {
                    field.choosing = true;
                    field.text.clear();
                    return None;
                }
            },
        };
        Some(TextureEdit { slot, texture, step: true })
    }

    /// An image's file field, wrap mode, size and thumbnail; `image` is `None` while
    /// the field waits for a first file.
    fn image_rows(
        &mut self,
        ui: &mut egui::Ui,
        slot: Slot,
        image: Option<&Arc<TextureImage>>,
        wrap: Wrap,
        uv_transform: UvTransform,
    ) -> Option<TextureEdit> {
        let mut edit = None;
        let field = self.field.as_mut()?;
        let label = ui.label(slot.label("image file"));
        let read = ui
            .horizontal(|ui| {
                let text = egui::TextEdit::singleline(&mut field.text)
                    .id_salt(("texture file", slot.index()))
                    .hint_text("relative to the scene file")
                    .desired_width(160.0);
                let response = ui.add(text).labelled_by(label.id);
                let entered = response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                let clicked = ui.button("Read").on_hover_text("read the image file (Enter)").clicked();
                entered | clicked
            })
            .inner;
        ui.end_row();
        if read && !field.text.trim().is_empty() {
            // Another file keeps the slot's wrap and uv transform (a model's, say).
            let texture = Texture::image_to_read(field.text.trim(), wrap, uv_transform);
            edit = Some(TextureEdit { slot, texture: Some(texture), step: true });
        }
        let Some(image) = image else { return edit };
        let label = ui.label(slot.label("wrap"));
        let mut chosen = wrap;
        ui.horizontal(|ui| {
            ui.radio_value(&mut chosen, Wrap::Repeat, "repeat").labelled_by(label.id);
            ui.radio_value(&mut chosen, Wrap::Clamp, "clamp");
        });
        ui.end_row();
        if chosen != wrap && edit.is_none() {
            let file = field.shown.clone().unwrap_or_default();
            let texture = Texture::Image { file, image: Arc::clone(image), wrap: chosen, uv_transform };
            edit = Some(TextureEdit { slot, texture: Some(texture), step: true });
        }
        ui.label(format!("{} x {} pixels", image.width, image.height));
        let handle = self.thumbnail(ui.ctx(), slot, image);
        ui.image(egui::load::SizedTexture::from_handle(handle));
        ui.end_row();
        edit
    }

    /// The egui texture of `image`'s thumbnail, made when the image is not the last one.
    fn thumbnail(
        &mut self,
        ctx: &egui::Context,
        slot: Slot,
        image: &Arc<TextureImage>,
    ) -> &egui::TextureHandle {
        if self.thumbnail.as_ref().is_none_or(|(shown, _)| !Arc::ptr_eq(shown, image)) {
            let (width, height, rgb) = thumbnail_pixels(image, THUMBNAIL_SIDE, slot.is_data());
            let pixels = egui::ColorImage::from_rgb([width as usize, height as usize], &rgb);
            // One handle per slot for the editor's life: a new image replaces its pixels.
            match &mut self.thumbnail {
                Some((shown, handle)) => {
                    handle.set(pixels, egui::TextureOptions::LINEAR);
                    *shown = Arc::clone(image);
                }
                None => {
                    let name = format!("texture thumbnail {}", slot.index());
                    let handle = ctx.load_texture(name, pixels, egui::TextureOptions::LINEAR);
                    self.thumbnail = Some((Arc::clone(image), handle));
                }
            }
        }
        &self.thumbnail.as_ref().expect("made above").1
    }
}

impl FileField {
    fn new(material: usize, file: Option<String>) -> FileField {
        FileField { material, text: file.clone().unwrap_or_default(), shown: file, choosing: false }
    }
}

/// The first image texture of the scene's materials in a slot read as data (`data`) or
/// as colour, whichever the slot it is for is, if any has one.
fn another_image(scene: &Scene, data: bool) -> Option<&Texture> {
    scene
        .materials
        .iter()
        .flat_map(|m| Slot::ALL.into_iter().filter(|s| s.is_data() == data).filter_map(|s| s.get(m)))
        .find(|t| matches!(t, Texture::Image { .. }))
}

/// `image` scaled down to at most `side` pixels on its longer side (never up), each
/// pixel the mean of the texels it covers, in linear light; then sRGB-encoded as 8-bit
/// RGB for display, or for a `data` image (a normal or metallic-roughness map, read
/// without decoding) scaled to 0..=255 as stored. Width, height and
/// `3 * width * height` bytes.
pub fn thumbnail_pixels(image: &TextureImage, side: u32, data: bool) -> (u32, u32, Vec<u8>) {
    let (w, h) = (image.width.max(1), image.height.max(1));
    let scale = f64::from(side) / f64::from(w.max(h));
    let (tw, th) = if scale >= 1.0 {
        (w, h)
    } else {
        ((f64::from(w) * scale).round().max(1.0) as u32, (f64::from(h) * scale).round().max(1.0) as u32)
    };
    let mut rgb = Vec::with_capacity((tw * th * 3) as usize);
    // The source texels [from(t), from(t + 1)) of thumbnail pixel t along a side.
    let span = |t: u32, thumb: u32, full: u32| {
        let from = |t: u32| (u64::from(t) * u64::from(full) / u64::from(thumb)) as u32;
        from(t)..from(t + 1).max(from(t) + 1)
    };
    for ty in 0..th {
        for tx in 0..tw {
            let mut sum = [0.0f64; 3];
            let mut n = 0u32;
            for y in span(ty, th, h) {
                for x in span(tx, tw, w) {
                    if let Some(texel) = image.texels.get((y * image.width + x) as usize) {
                        for (s, &c) in sum.iter_mut().zip(texel) {
                            *s += f64::from(c);
                        }
                        n += 1;
                    }
                }
            }
            let mean = sum.map(|s| (s / f64::from(n.max(1))) as f32);
            if data {
                rgb.extend(mean.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8));
            } else {
                rgb.extend(mean.map(egui::ecolor::gamma_u8_from_linear_f32));
            }
        }
    }
    (tw, th, rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(width: u32, height: u32, texel: impl Fn(u32, u32) -> [f32; 3]) -> TextureImage {
        let texels = (0..height).flat_map(|y| (0..width).map(move |x| (x, y))).map(|(x, y)| texel(x, y));
        TextureImage { path: "t.png".into(), width, height, texels: texels.collect(), alpha: Vec::new() }
    }

    #[test]
    fn a_thumbnail_keeps_small_images_and_the_aspect_of_large_ones() {
        let small = image(3, 2, |_, _| [1.0, 0.0, 0.0]);
        let (w, h, rgb) = thumbnail_pixels(&small, 96, false);
        assert_eq!((w, h), (3, 2));
        assert_eq!(&rgb[..3], &[255, 0, 0]);
        let wide = image(1000, 250, |_, _| [0.0; 3]);
        let (w, h, rgb) = thumbnail_pixels(&wide, 96, false);
        assert_eq!((w, h, rgb.len()), (96, 24, 96 * 24 * 3));
    }

    #[test]
    fn a_thumbnail_pixel_is_the_linear_mean_of_its_texels_encoded_as_srgb() {
        // Columns alternate black and white: every 2 x 2 block averages to linear 0.5,
        // which sRGB encodes as 188, not 128.
        let stripes = image(4, 4, |x, _| if x % 2 == 0 { [0.0; 3] } else { [1.0; 3] });
        let (w, h, rgb) = thumbnail_pixels(&stripes, 2, false);
        assert_eq!((w, h), (2, 2));
        assert!(rgb.iter().all(|&v| v == 188), "{rgb:?}");
        // A data map's mean is shown as stored: 0.5 is 128.
        let (_, _, rgb) = thumbnail_pixels(&stripes, 2, true);
        assert!(rgb.iter().all(|&v| v == 128), "{rgb:?}");
    }
}
