//! Semantic checks on a parsed scene file, and its lowering to the [`Scene`] model.
//!
//! Every check runs, so a file with five mistakes reports five [`Issue`]s at once.
//! An issue names the [`ValuePath`] of the value it is about; [`super::spans`]
//! turns that into a location only when there is something to report. A value
//! that fails one check (e.g. NaN) is not checked further, so one mistake gives
//! one message.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use glam::Vec3;
use rayon::prelude::*;
use smol_str::SmolStr;

use crate::{limits, ranges};

use super::{
    budget::{self, TexelBudget},
    environment, heightmap,
    list::{ListItem, Lowering},
    material::{MAP_FIELDS, MaterialFile},
    mesh_file,
    model::{
        Band, Camera, EnvImage, Environment, Heightmap, Light, Maps, Material, Mesh, MeshData,
        RenderSettings, SamplerKind, Scene, Sky, Sphere, SphereList, SphereListData, Terrain, TerrainSurface,
        Texture, Transform, UvTransform, ViewTransform, Wrap,
    },
    schema::{
        BandFile, CameraFile, LightFile, MeshFile, SamplerFile, SceneFile, SettingsFile, SkyFile,
        SphereListFile, TerrainFile, TextureFile, TransformFile, UvTransformFile, V3, ViewFile, WrapFile,
    },
    spans::ValuePath,
    sphere_file,
    suggest::{did_you_mean, one_of},
    texture_file,
};

/// Shapes checked by one task when a list is checked on all threads.
const PAR_CHUNK: usize = 1 << 14;

/// How many material names an "unknown material" hint lists.
const MAX_LISTED: usize = 8;

/// `|up × forward|` (both unit length) at or below this: `up` gives no usable camera basis.
const PARALLEL_SINE: f32 = ranges::PARALLEL_SINE;

/// One semantic problem, located by the path of the offending value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Issue {
    pub path: ValuePath,
    pub message: String,
    /// Short text under the caret.
    pub label: String,
    pub hint: Option<String>,
    /// A second place worth showing, e.g. the first definition of a duplicate.
    pub also: Option<(ValuePath, String)>,
}

/// Checks `file` completely and lowers it to a [`Scene`], or returns every issue found.
/// Terrain images are read from `folder` (the scene file's).
pub(crate) fn validate(file: &SceneFile, folder: &Path) -> Result<Scene, Vec<Issue>> {
    let root = ValuePath::root();
    let mut c = Checker { issues: Vec::new() };
    c.camera(&root.field("camera"), &file.camera);
    c.settings(&root.field("settings"), &file.settings);
    c.sky(&root.field("sky"), &file.sky);
    let env_image = c.environment_image(&root.field("sky"), &file.sky, folder);
    let materials = c.materials(&root.field("materials"), &file.materials.0);
    let textures = c.textures(&root.field("materials"), &file.materials.0, folder);
    let mut scene = Scene::default();
    let lowering = Lowering { file, materials: &materials, folder };
    // `None`: an item that reads a file failed, with its own message; no "the scene is
    // empty" on top.
    if let Some(primitives) = lower_lists(&mut c, &root, &lowering, &mut scene) {
        c.primitive_count(&root, primitives, file.boxes.len(), &scene.terrains, &scene.meshes);
    }
    c.lights(&root.field("lights"), &file.lights);
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    let scene = Scene {
        camera: lower_camera(&file.camera),
        settings: lower_settings(&file.settings),
        sky: lower_sky(&file.sky, env_image),
        materials: file
            .materials
            .0
            .iter()
            .zip(textures)
            .map(|((name, kind), (texture, maps))| Material {
                name: name.clone(),
                kind: kind.lower(),
                texture,
                maps,
            })
            .collect(),
        lights: file.lights.iter().map(lower_light).collect(),
        ..scene
    };
    c.compiled_budget(&root, &scene);
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    Ok(scene)
}

/// Checks an in-memory [`Scene`] (an editor's edit) with the same rules as a file,
/// without writing it out and parsing it back. Spheres, the bulk of a scene, are
/// checked in place; the few other values go through the file checks.
pub(crate) fn check_model(scene: &Scene) -> Vec<Issue> {
    let root = ValuePath::root();
    let mut c = Checker { issues: Vec::new() };
    let cam = &scene.camera;
    let camera = CameraFile {
        look_from: cam.look_from.to_array(),
        look_at: cam.look_at.to_array(),
        up: cam.up.to_array(),
        vfov_deg: cam.vfov_deg,
        aperture: cam.aperture,
        focus_dist: Some(cam.focus_dist),
    };
    c.camera(&root.field("camera"), &camera);
    c.settings(&root.field("settings"), &settings_file(scene.settings));
    c.sky(&root.field("sky"), &sky_file(&scene.sky));
    // An image texture keeps only its file name: an in-memory scene's images were read
    // already, and checked by `texture_file`.
    let materials: Vec<(String, MaterialFile)> = scene
        .materials
        .iter()
        .map(|m| {
            let maps = m.maps.slots().map(|t| t.map(texture_file_of));
            (m.name.clone(), MaterialFile::of(m.kind, m.texture.as_ref().map(texture_file_of), maps))
        })
        .collect();
    c.materials(&root.field("materials"), &materials);
    c.model_textures(&root.field("materials"), &scene.materials);
    let primitives = check_model_lists(&mut c, &root, scene);
    c.primitive_count(&root, primitives, scene.boxes.len(), &scene.terrains, &scene.meshes);
    let lights: Vec<LightFile> = scene.lights.iter().map(light_file).collect();
    c.lights(&root.field("lights"), &lights);
    c.compiled_budget(&root, scene);
    c.issues
}

/// Declares the steps of [`validate`] and [`check_model`] that go through every list
/// [`scene_lists!`](crate::scene_lists) names as written, in its order.
macro_rules! check_lists {
    (written { $($(#[$doc:meta])* $written:ident: $W:ty,)* } compiled { $($compiled:tt)* }) => {
        /// Checks every list of `lowering.file` and lowers it into `scene`; returns how
        /// many primitives they make, `None` when some list could not tell.
        fn lower_lists(
            c: &mut Checker,
            root: &ValuePath,
            lowering: &Lowering,
            scene: &mut Scene,
        ) -> Option<usize> {
            let mut primitives = Some(0);
            $(
                let written = &lowering.file.$written;
                scene.$written = <$W>::lower(c, &root.field(stringify!($written)), written, lowering);
                let made = <$W>::primitives_written(written, &scene.$written);
                primitives = primitives.zip(made).map(|(sum, n)| sum + n);
            )*
            primitives
        }

        /// Checks every list of an in-memory `scene`; returns how many primitives they make.
        fn check_model_lists(c: &mut Checker, root: &ValuePath, scene: &Scene) -> usize {
            $(<$W>::check_model(c, &root.field(stringify!($written)), &scene.$written, scene);)*
            0 $(+ <$W>::primitives(&scene.$written))*
        }
    };
}

crate::scene_lists!(check_lists);

impl Issue {
    /// Adds what the user can do about it.
    pub(crate) fn set_hint(&mut self, hint: impl Into<String>) {
        self.hint = Some(hint.into());
    }
}

/// The path of the value being checked, built only if an issue needs it: paths
/// allocate, and a large scene has millions of values that are fine.
type At<'a> = &'a dyn Fn() -> ValuePath;

/// Collects issues while walking the file.
pub(crate) struct Checker {
    issues: Vec<Issue>,
}

impl Checker {
    pub(crate) fn report(&mut self, at: At, message: impl Into<String>, label: &str) -> &mut Issue {
        let message = message.into();
        let issue = Issue { path: at(), message, label: label.to_owned(), hint: None, also: None };
        self.issues.push(issue);
        let last = self.issues.len() - 1;
        &mut self.issues[last]
    }

    /// Reports NaN and infinities; true when `v` is a usable number.
    fn finite(&mut self, v: f32, what: &str, at: At) -> bool {
        if !v.is_finite() {
            self.report(at, format!("{what} must be a finite number, found {v}"), "not a finite number")
                .set_hint("NaN and infinities are not allowed in a scene");
        }
        v.is_finite()
    }

    /// Checks each component of a vector; true when all are finite.
    pub(crate) fn finite3(&mut self, v: V3, what: &str, at: At) -> bool {
        // Not `all`: every bad component gets its own message.
        let mut ok = true;
        for (k, &x) in v.iter().enumerate() {
            ok &= self.finite(x, what, &|| at().index(k));
        }
        ok
    }

    /// A finite number that `ok` accepts, described by `expect` ("between 0 and 1");
    /// returns the issue when it is out of range, so the caller can add a hint.
    pub(crate) fn check(
        &mut self,
        v: f32,
        what: &str,
        at: At,
        ok: impl Fn(f32) -> bool,
        expect: &str,
    ) -> Option<&mut Issue> {
        if self.finite(v, what, at) && !ok(v) {
            return Some(self.report(at, format!("{what} must be {expect}, found {v}"), "out of range"));
        }
        None
    }

    /// A colour channel, strength or other quantity: finite, not negative and at most
    /// `ranges::MAX_RADIANCE`, so products of them stay finite.
    pub(super) fn non_negative(&mut self, v: f32, what: &str, at: At) {
        if self.check(v, what, at, |x| x >= 0.0, "non-negative").is_none() {
            self.at_most(v, ranges::MAX_RADIANCE, what, at);
        }
    }

    /// Reports a finite `v` above `max` (its range's upper end, after the check of its
    /// lower end): "must be at most 1e9".
    pub(crate) fn at_most(&mut self, v: f32, max: f32, what: &str, at: At) {
        if v.is_finite() && v > max {
            self.report(at, format!("{what} must be at most {max:e}, found {v}"), "too large")
                .set_hint("values this large overflow 32-bit floats in the renderers' products");
        }
    }

    /// A point: each coordinate finite and within `ranges::MAX_COORDINATE` of 0; true
    /// when usable.
    pub(crate) fn coordinate3(&mut self, v: V3, what: &str, at: At) -> bool {
        if !self.finite3(v, what, at) {
            return false;
        }
        let mut ok = true;
        for (k, &x) in v.iter().enumerate() {
            if x.abs() > ranges::MAX_COORDINATE {
                self.report(
                    &|| at().index(k),
                    format!("{what} must be between -1e9 and 1e9, found {x}"),
                    "out of range",
                )
                .set_hint("coordinates beyond 1e9 lose all precision in 32-bit floats; scale the scene down");
                ok = false;
            }
        }
        ok
    }

    /// A colour times a strength (an emitter's or light's radiance, an image's texel
    /// times its strength) within `ranges::MAX_RADIANCE`, reported at `at`.
    pub(super) fn radiance_product(&mut self, color: V3, strength: f32, what: &str, at: At) {
        let product = color.map(|c| c * strength);
        // Factors out of range have their own message: one mistake, one message.
        if ranges::radiance_ok(&color) && ranges::radiance_ok(&[strength]) && !ranges::radiance_ok(&product) {
            let max = product.iter().copied().fold(0.0, f32::max);
            self.report(at, format!("{what} is {max}, more than the 1e9 a radiance may be"), "too bright");
        }
    }

    /// A colour or other per-channel quantity: each channel finite and not negative.
    pub(super) fn non_negative3(&mut self, v: V3, what: &str, at: At) {
        for (k, &x) in v.iter().enumerate() {
            self.non_negative(x, what, &|| at().index(k));
        }
    }

    pub(crate) fn count(&mut self, at: &ValuePath, what: &str, n: usize, max: usize) {
        if n > max {
            self.report(
                &|| at.clone(),
                format!("too many {what}: {n}, at most {max} are supported"),
                "too many",
            );
        }
    }

    fn camera(&mut self, path: &ValuePath, cam: &CameraFile) {
        let field = |name: &'static str| move || path.field(name);
        let from_ok = self.coordinate3(cam.look_from, "camera `look_from`", &field("look_from"));
        let at_ok = self.coordinate3(cam.look_at, "camera `look_at`", &field("look_at"));
        let up_ok = self.finite3(cam.up, "camera `up`", &field("up"));
        let vfov_ok = |v| v > 0.0 && v < 180.0;
        self.check(
            cam.vfov_deg,
            "camera `vfov_deg`",
            &field("vfov_deg"),
            vfov_ok,
            "between 0 and 180 degrees (exclusive)",
        );
        self.non_negative(cam.aperture, "camera `aperture`", &field("aperture"));
        if let Some(focus) = cam.focus_dist
            && self
                .check(focus, "camera `focus_dist`", &field("focus_dist"), |v| v > 0.0, "positive")
                .is_none()
        {
            self.at_most(focus, 4.0 * ranges::MAX_COORDINATE, "camera `focus_dist`", &field("focus_dist"));
        }
        if !(from_ok && at_ok && up_ok) {
            return;
        }
        // The same normalization the renderer does: a direction that does not survive
        // it (zero, or a length that underflows or overflows) cannot orient a camera.
        let view = Vec3::from_array(cam.look_at) - Vec3::from_array(cam.look_from);
        let (forward, up) = (view.normalize_or_zero(), Vec3::from_array(cam.up).normalize_or_zero());
        if view == Vec3::ZERO {
            self.report(
                &field("look_at"),
                "camera `look_at` equals `look_from`",
                "same point as `look_from`",
            )
            .set_hint("the camera needs a direction to look in: move `look_at` away from `look_from`");
        } else if forward == Vec3::ZERO {
            self.report(
                &field("look_at"),
                "camera `look_at - look_from` is not a usable direction",
                "no direction",
            )
            .set_hint("the two points are too close together or too far apart for 32-bit floats");
        } else if up == Vec3::ZERO {
            self.report(&field("up"), "camera `up` must be a non-zero, normalizable vector", "no direction")
                .set_hint("use a direction like (0, 1, 0)");
        } else if forward.cross(up).length() <= PARALLEL_SINE {
            self.report(
                &field("up"),
                "camera `up` is parallel to the view direction",
                "parallel to the view",
            )
            .set_hint("choose an `up` across the view, e.g. (0, 0, 1) for a camera looking straight down");
        }
    }

    fn settings(&mut self, path: &ValuePath, s: &SettingsFile) {
        let side = limits::MAX_IMAGE_SIDE;
        for (name, value, max) in [
            ("width", s.width, side),
            ("height", s.height, side),
            ("spp", s.spp, limits::MAX_SPP),
            ("max_depth", s.max_depth, limits::MAX_DEPTH),
        ] {
            if value == 0 || value > max {
                let message = format!("settings `{name}` must be between 1 and {max}, found {value}");
                self.report(&|| path.field(name), message, "out of range");
            }
        }
        let max = ranges::MAX_EXPOSURE;
        let exposure_ok = |x: f32| x.abs() <= max;
        let at = || path.field("exposure");
        if let Some(issue) =
            self.check(s.exposure, "settings `exposure`", &at, exposure_ok, "between -20 and 20 stops")
        {
            issue.set_hint("each stop doubles the image's brightness; 0 leaves it as rendered");
        }
    }

    fn sky(&mut self, path: &ValuePath, sky: &SkyFile) {
        match sky {
            SkyFile::Gradient { bottom, top } => {
                self.non_negative3(*bottom, "sky `bottom` colour", &|| path.field("bottom"));
                self.non_negative3(*top, "sky `top` colour", &|| path.field("top"));
            }
            SkyFile::Constant(color) => self.non_negative3(*color, "sky colour", &|| path.index(0)),
            SkyFile::Environment { strength, rotation_deg, .. } => {
                self.non_negative(*strength, "sky `strength`", &|| path.field("strength"));
                self.finite(*rotation_deg, "sky `rotation_deg`", &|| path.field("rotation_deg"));
            }
        }
    }

    /// An environment sky's image, read from `folder` (the scene file's); `None` for
    /// the other skies and for an image that cannot be used (reported at `image`).
    fn environment_image(&mut self, path: &ValuePath, sky: &SkyFile, folder: &Path) -> Option<Arc<EnvImage>> {
        let SkyFile::Environment { image, .. } = sky else {
            return None;
        };
        match environment::read(&folder.join(image)) {
            Ok(data) => {
                if let SkyFile::Environment { strength, .. } = sky {
                    let brightest = data.texels.iter().flatten().copied().fold(0.0, f32::max);
                    let what = format!("the brightest texel of `{image}` times `strength`");
                    self.radiance_product([brightest; 3], *strength, &what, &|| path.field("strength"));
                }
                Some(Arc::new(data))
            }
            Err(error) => {
                let message = format!("cannot use environment image `{image}`: {error}");
                self.report(&|| path.field("image"), message, "this image").set_hint(
                    "the path is relative to the scene file's folder; images are .exr, .hdr, .png or .jpg",
                );
                None
            }
        }
    }

    /// Checks every material; returns the index of each name (first definition wins).
    fn materials<'f>(
        &mut self,
        path: &ValuePath,
        entries: &'f [(String, MaterialFile)],
    ) -> HashMap<&'f str, u32> {
        self.count(path, "materials", entries.len(), limits::MAX_MATERIALS);
        let mut index: HashMap<&str, u32> = HashMap::with_capacity(entries.len());
        for (i, (name, kind)) in entries.iter().enumerate() {
            if let Some(&first) = index.get(name.as_str()) {
                let message = format!("material `{name}` is defined twice");
                let issue = self.report(&|| path.key(i), message, "defined again here");
                issue.set_hint("rename one of them");
                issue.also = Some((path.key(first as usize), "first defined here".to_owned()));
            } else {
                // Indices fit: past MAX_MATERIALS (< u32::MAX) the scene is rejected anyway.
                index.insert(name, i as u32);
            }
            let what = |name_of_field: &str| format!("`{name_of_field}` of material `{name}`");
            kind.check(self, &what, &|field| path.index(i).field(field));
        }
        index
    }

    /// Checks every material's textures and reads their images from `folder`: one entry
    /// per material, its colour texture and its maps, `None` where it has none (or one
    /// that failed, reported).
    fn textures(
        &mut self,
        path: &ValuePath,
        entries: &[(String, MaterialFile)],
        folder: &Path,
    ) -> Vec<(Option<Texture>, Maps)> {
        let mut budget = TexelBudget::default();
        entries
            .iter()
            .enumerate()
            .map(|(i, (name, kind))| {
                let texture = kind.texture().and_then(|(texture, field)| {
                    self.texture(&|| path.index(i).field(field), name, texture, field, folder, &mut budget)
                });
                let maps = kind.maps();
                let maps = std::array::from_fn(|m| {
                    let field = MAP_FIELDS[m];
                    maps[m].and_then(|t| {
                        self.texture(&|| path.index(i).field(field), name, t, field, folder, &mut budget)
                    })
                });
                (texture, Maps::from_slots(maps))
            })
            .collect()
    }

    /// One texture in `field`: positive sizes and scales, colours not negative, an image
    /// that reads (as colour or data, by `field`).
    fn texture(
        &mut self,
        at: At,
        material: &str,
        texture: &TextureFile,
        field: &str,
        folder: &Path,
        budget: &mut TexelBudget,
    ) -> Option<Texture> {
        let what = |name: &str| format!("`{name}` of the texture of material `{material}`");
        match texture {
            TextureFile::Image { file, wrap, uv_transform } => {
                // Both are reported when both are wrong: one look at the file, all its mistakes.
                let uv_transform = self.uv_transform(&|| at().field("uv_transform"), material, uv_transform);
                match budget.read(folder, file, texture_file::encoding_of(field)) {
                    Ok(image) => Some(Texture::Image {
                        file: file.clone(),
                        image,
                        wrap: match wrap {
                            WrapFile::Repeat => Wrap::Repeat,
                            WrapFile::Clamp => Wrap::Clamp,
                        },
                        uv_transform: uv_transform?,
                    }),
                    Err(message) => {
                        self.report(&|| at().field("file"), message, "this image")
                            .set_hint(texture_file::IMAGE_HINT);
                        None
                    }
                }
            }
            &TextureFile::Checker { size, even, odd } => {
                let size_ok =
                    self.check(size, &what("size"), &|| at().field("size"), |s| s > 0.0, "above 0").is_none()
                        && size.is_finite();
                let before = self.issues.len();
                self.non_negative3(even, &what("even"), &|| at().field("even"));
                self.non_negative3(odd, &what("odd"), &|| at().field("odd"));
                let colours = self.issues.len() == before;
                (size_ok && colours).then(|| Texture::Checker {
                    size,
                    even: Vec3::from_array(even),
                    odd: Vec3::from_array(odd),
                })
            }
            &TextureFile::Noise { scale } => {
                let ok = self
                    .check(scale, &what("scale"), &|| at().field("scale"), |s| s > 0.0, "above 0")
                    .is_none()
                    && scale.is_finite();
                ok.then_some(Texture::Noise { scale })
            }
        }
    }

    /// An image texture's `uv_transform` at `at`: every number finite, which is all the
    /// blob's texture record asks (both renderers' lookups keep any finite transform of
    /// any finite coordinates finite: docs/path-tracing.md, "Textures").
    fn uv_transform(&mut self, at: At, material: &str, t: &UvTransformFile) -> Option<UvTransform> {
        let what =
            |name: &str| format!("`{name}` of the `uv_transform` of the texture of material `{material}`");
        let mut ok = true;
        for (name, pair) in [("offset", t.offset), ("scale", t.scale)] {
            for (k, &x) in pair.iter().enumerate() {
                ok &= self.finite(x, &what(name), &|| at().field(name).index(k));
            }
        }
        ok &= self.finite(t.rotation_deg, &what("rotation_deg"), &|| at().field("rotation_deg"));
        ok.then(|| UvTransform {
            offset: t.offset.into(),
            rotation_deg: t.rotation_deg,
            scale: t.scale.into(),
        })
    }

    /// The textures of an in-memory scene: what only they can get wrong
    /// ([`texture_file::model_problem`]), then the checks a file's textures get.
    fn model_textures(&mut self, path: &ValuePath, materials: &[Material]) {
        for (i, m) in materials.iter().enumerate() {
            let colour = m.texture.as_ref().map(|t| (t, m.kind.texture_field()));
            let maps = m.maps.slots().into_iter().zip(MAP_FIELDS).filter_map(|(t, f)| Some((t?, f)));
            for (texture, slot) in colour.into_iter().chain(maps) {
                let at = || path.index(i).field(slot);
                // The colour texture's kinds are model_problem's to check.
                if slot != m.kind.texture_field() && !m.kind.takes_maps() {
                    let message = format!("material `{}` takes no `{slot}`", m.name);
                    self.report(&at, message, "not a usable texture");
                } else if let Some((field, message)) = texture_file::model_problem(&m.name, &m.kind, texture)
                {
                    let at_field = || if field.is_empty() { at() } else { at().field(field) };
                    self.report(&at_field, message, "not a usable texture");
                } else if let Texture::Image { uv_transform, .. } = texture {
                    // The image was read; its transform is checked as a file's is.
                    self.uv_transform(
                        &|| at().field("uv_transform"),
                        &m.name,
                        &uv_transform_file(uv_transform),
                    );
                } else {
                    // No image to read: the folder is not used.
                    let mut no_images = TexelBudget::default();
                    self.texture(
                        &at,
                        &m.name,
                        &texture_file_of(texture),
                        slot,
                        Path::new(""),
                        &mut no_images,
                    );
                }
            }
        }
    }

    /// A shape's material, by name; reports an unknown one.
    pub(crate) fn material(&mut self, at: At, name: &str, materials: &HashMap<&str, u32>) -> Option<u32> {
        let found = materials.get(name).copied();
        if found.is_none() {
            let hint = unknown_material_hint(name, materials);
            self.report(at, format!("unknown material `{name}`"), "no material with this name")
                .set_hint(hint);
        }
        found
    }

    /// A shape's material, by index (an in-memory scene); reports one out of range.
    pub(crate) fn material_index(&mut self, at: At, material: u32, material_count: usize) {
        if material as usize >= material_count {
            let message = format!("material index {material} out of range ({material_count} materials)");
            self.report(at, message, "no such material");
        }
    }

    /// Checks a list of shapes with `check`, which reports into the checker it is given
    /// and returns the lowered shape, if any. A long list is checked in chunks on all
    /// threads; the issues still come out in list order, as one walk would report them.
    pub(crate) fn each<T: Sync, U: Send>(
        &mut self,
        items: &[T],
        check: impl Fn(&mut Checker, usize, &T) -> Option<U> + Sync,
    ) -> Vec<U> {
        if items.len() < 2 * PAR_CHUNK {
            return items.iter().enumerate().filter_map(|(i, item)| check(self, i, item)).collect();
        }
        let parts: Vec<(Vec<U>, Vec<Issue>)> = items
            .par_chunks(PAR_CHUNK)
            .enumerate()
            .map(|(k, chunk)| {
                let mut c = Checker { issues: Vec::new() };
                let first = k * PAR_CHUNK;
                let out =
                    chunk.iter().enumerate().filter_map(|(j, item)| check(&mut c, first + j, item)).collect();
                (out, c.issues)
            })
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for (part, issues) in parts {
            out.extend(part);
            self.issues.extend(issues);
        }
        out
    }

    /// At least one primitive of some kind (`primitives`, what every list makes; reported
    /// at `spheres`, where one usually goes), and room in the blob for the boxes and every
    /// terrain column (counted before merging, so whether a terrain fits does not depend
    /// on its content's regularity) and for the meshes' triangles.
    fn primitive_count(
        &mut self,
        root: &ValuePath,
        primitives: usize,
        boxes: usize,
        terrains: &[Terrain],
        meshes: &[Mesh],
    ) {
        let columns = Terrain::primitives(terrains);
        let triangles = Mesh::primitives(meshes);
        if triangles > limits::MAX_TRIANGLES {
            let message = format!(
                "too many triangles: {triangles} in all meshes, at most {} are supported",
                limits::MAX_TRIANGLES
            );
            self.report(&|| root.field("meshes"), message, "too many triangles");
        }
        if primitives == 0 {
            self.report(
                &|| root.field("spheres"),
                "the scene has no spheres, boxes, terrain columns or meshes",
                "empty",
            )
            .set_hint("add at least one, e.g. `(center: (0, 0, 0), radius: 1, material: \"name\")`");
        }
        if !terrains.is_empty() && boxes + columns > limits::MAX_BOXES {
            let message = format!(
                "too many boxes: {boxes} boxes and {columns} terrain columns, at most {} in all are supported",
                limits::MAX_BOXES
            );
            self.report(&|| root.field("terrains"), message, "too many columns")
                .set_hint("use smaller heightmap images, or fewer of them");
        }
    }

    /// What the compiled scene holds in all (`budget::problems`), reported at `materials`.
    fn compiled_budget(&mut self, root: &ValuePath, scene: &Scene) {
        for problem in budget::problems(scene) {
            self.report(&|| root.field("materials"), problem, "too much for one blob")
                .set_hint("use fewer or smaller images, or fewer materials");
        }
    }

    /// Checks every mesh, resolves its material and reads its model from `folder`.
    pub(super) fn meshes(
        &mut self,
        path: &ValuePath,
        meshes: &[MeshFile],
        materials: &HashMap<&str, u32>,
        folder: &Path,
    ) -> Vec<Mesh> {
        let mut out = Vec::with_capacity(meshes.len());
        // Triangles the meshes read so far: each model is read against what is left.
        let mut triangles = 0;
        for (i, mesh) in meshes.iter().enumerate() {
            let field = |name: &'static str| move || path.index(i).field(name);
            let transform = self.transform(&field("transform"), &mesh.transform);
            let material = match &mesh.material {
                Some(name) => self.material(&field("material"), name, materials).map(Some),
                None => Some(None),
            };
            let left = limits::MAX_TRIANGLES.saturating_sub(triangles);
            let data = match mesh_file::read_within(&folder.join(&mesh.file), left) {
                Ok(data) => {
                    triangles += data.triangles.len();
                    Some(data)
                }
                Err(error) => {
                    let message = format!("cannot use model `{}`: {error}", mesh.file);
                    self.report(&field("file"), message, "this model").set_hint(
                        "the path is relative to the scene file's folder; models are .obj, .ply, .gltf or .glb",
                    );
                    None
                }
            };
            if let (Some(None), Some(data)) = (material, &data)
                && data.materials.is_empty()
            {
                let message = format!("mesh `{}` needs a `material`: {}", mesh.file, data.no_materials);
                self.report(&|| path.index(i), message, "no material")
                    .set_hint("add e.g. `material: \"clay\"`, naming one of the scene's materials");
                continue;
            }
            let placed = transform.is_some_and(|t| {
                data.as_ref()
                    .is_none_or(|data| self.mesh_placement(&field("transform"), &mesh.file, &t, data))
            });
            if let (Some(transform), Some(material), Some(data), true) = (transform, material, data, placed) {
                out.push(Mesh { file: mesh.file.clone(), material, transform, data: Arc::new(data) });
            }
        }
        out
    }

    /// A mesh's placement: finite, with a positive scale.
    fn transform(&mut self, at: At, t: &TransformFile) -> Option<Transform> {
        let moves = self.coordinate3(t.translate, "`translate`", &|| at().field("translate"))
            & self.finite3(t.rotate_deg, "`rotate_deg`", &|| at().field("rotate_deg"));
        let scale_at = || at().field("scale");
        let mut scale_ok = self.check(t.scale, "`scale`", &scale_at, |s| s > 0.0, "above 0").is_none()
            && t.scale.is_finite();
        if scale_ok && !(ranges::MIN_SCALE..=ranges::MAX_SCALE).contains(&t.scale) {
            let message = format!("`scale` must be between 1e-6 and 1e6, found {}", t.scale);
            self.report(&scale_at, message, "out of range").set_hint(
                "a scale beyond these turns a model's triangles to nothing or to overflow in 32-bit floats",
            );
            scale_ok = false;
        }
        (moves && scale_ok).then(|| Transform {
            translate: Vec3::from_array(t.translate),
            rotate_deg: Vec3::from_array(t.rotate_deg),
            scale: t.scale,
        })
    }

    /// Whether a model's triangles, placed by `transform` as compiling places them
    /// (`crate::meshes`), each lie within the coordinate range and keep an area in f32
    /// (`ranges::triangle_problem`, what the blob check asks of them).
    fn mesh_placement(&mut self, at: At, file: &str, transform: &Transform, data: &MeshData) -> bool {
        let to_world = transform.matrix();
        let world: Vec<Vec3> = data.positions.par_iter().map(|&p| to_world.transform_point3(p)).collect();
        let bad = data
            .triangles
            .par_iter()
            .position_first(|t| ranges::triangle_problem(t.map(|i| world[i as usize])).is_some());
        let Some(t) = bad else { return true };
        let problem =
            ranges::triangle_problem(data.triangles[t].map(|i| world[i as usize])).unwrap_or_default();
        let message =
            format!("placed by this `transform`, triangle {t} of model `{file}` is unusable: {problem}");
        self.report(at, message, "out of range")
            .set_hint("keep the model within 1e9 of the origin, at a scale that keeps its triangles' area");
        false
    }

    /// [`Checker::meshes`] for meshes whose materials are already indices.
    pub(super) fn model_meshes(&mut self, path: &ValuePath, meshes: &[Mesh], material_count: usize) {
        for (i, m) in meshes.iter().enumerate() {
            let at = || path.index(i).field("transform");
            if self.transform(&at, &transform_file(&m.transform)).is_some() {
                self.mesh_placement(&at, &m.file, &m.transform, &m.data);
            }
            match m.material {
                Some(material) => {
                    self.material_index(&|| path.index(i).field("material"), material, material_count)
                }
                None if m.data.materials.is_empty() => {
                    let message = format!("mesh `{}` needs a `material`: {}", m.file, m.data.no_materials);
                    self.report(&|| path.index(i), message, "no material");
                }
                None => {}
            }
        }
    }

    /// Checks every sphere file entry, resolves its materials and reads its file from
    /// `folder`.
    /// `own`: how many spheres the scene file has in `spheres`.
    pub(super) fn sphere_files(
        &mut self,
        path: &ValuePath,
        lists: &[SphereListFile],
        own: usize,
        materials: &HashMap<&str, u32>,
        folder: &Path,
    ) -> Vec<SphereList> {
        let mut out = Vec::with_capacity(lists.len());
        for (i, list) in lists.iter().enumerate() {
            let field = |name: &'static str| move || path.index(i).field(name);
            let transform = self.transform(&field("transform"), &list.transform);
            let resolved = self.sphere_list_materials(&field("materials"), &list.materials, materials);
            let data = match sphere_file::read(&folder.join(&list.file)) {
                Ok(data) => {
                    self.sphere_materials(path, i, &list.file, &data, list.materials.len()).then_some(data)
                }
                Err(error) => {
                    let message = format!("cannot use sphere file `{}`: {error}", list.file);
                    self.report(&field("file"), message, "this file").set_hint(
                        "the path is relative to the scene file's folder; a sphere file is a PLY point list: a `vertex` element with `x y z radius` and an optional integer `material`",
                    );
                    None
                }
            };
            let placed = match (transform, data) {
                (Some(t), Some(data)) => self.sphere_placement(&field("transform"), &list.file, t, data),
                _ => None,
            };
            if let (Some((transform, data)), true) = (placed, resolved.len() == list.materials.len()) {
                out.push(SphereList {
                    file: list.file.clone(),
                    materials: resolved,
                    transform,
                    data: Arc::new(data),
                });
            }
        }
        self.sphere_total(path, own, &out);
        out
    }

    /// The scene's own spheres and its sphere files' together within the format's limit.
    fn sphere_total(&mut self, path: &ValuePath, own: usize, lists: &[SphereList]) {
        let total = own + SphereList::primitives(lists);
        if !lists.is_empty() && total > limits::MAX_SPHERES {
            let message = format!(
                "too many spheres: {total} in `spheres` and the sphere files, at most {} are supported",
                limits::MAX_SPHERES
            );
            self.report(&|| path.clone(), message, "too many spheres");
        }
    }

    /// A sphere file entry's `materials`, resolved; reports every unknown name.
    fn sphere_list_materials(
        &mut self,
        at: At,
        names: &[SmolStr],
        materials: &HashMap<&str, u32>,
    ) -> Vec<u32> {
        let mut resolved = Vec::with_capacity(names.len());
        for (k, name) in names.iter().enumerate() {
            match materials.get(name.as_str()) {
                Some(&m) => resolved.push(m),
                None => {
                    let message = format!("unknown material `{name}` in a sphere file's `materials`");
                    let hint = unknown_material_hint(name, materials);
                    self.report(&|| at().index(k), message, "no material with this name").set_hint(hint);
                }
            }
        }
        resolved
    }

    /// Whether a sphere file's `material` indices all name one of the `count` entries of
    /// its `materials` (a file without them needs exactly one).
    fn sphere_materials(
        &mut self,
        path: &ValuePath,
        i: usize,
        file: &str,
        data: &SphereListData,
        count: usize,
    ) -> bool {
        let field = |name: &'static str| move || path.index(i).field(name);
        if !data.has_material && count != 1 {
            let message = format!(
                "sphere file `{file}` has no `material` property, so `materials` must name exactly one material, not {count}"
            );
            self.report(&field("materials"), message, "one material")
                .set_hint("name one material, or give the file's vertices an integer `material` property");
            return false;
        }
        if count == 0 {
            self.report(&field("materials"), "a sphere file's `materials` is empty", "no materials")
                .set_hint("name the materials the file's `material` indices pick, in order");
            return false;
        }
        if let Some(v) = data.spheres.iter().position(|s| s.material as usize >= count) {
            let material = data.spheres[v].material;
            let message = format!(
                "cannot use sphere file `{file}`: vertex {v} has material {material}, but `materials` names {count} (indices count from 0)"
            );
            self.report(&field("file"), message, "this file").set_hint(
                "add the missing materials to `materials`, in the order the file's indices count them",
            );
            return false;
        }
        true
    }

    /// A sphere file's spheres stay finite where `transform` places them.
    fn sphere_placement(
        &mut self,
        at: At,
        file: &str,
        transform: Transform,
        data: SphereListData,
    ) -> Option<(Transform, SphereListData)> {
        let problem = |s: &Sphere| {
            let placed = transform.place(s);
            ranges::sphere_problem(placed.center, placed.radius)
        };
        let bad = data.spheres.par_iter().position_first(|s| problem(s).is_some());
        if let Some(v) = bad {
            let why = problem(&data.spheres[v]).unwrap_or_default();
            let message =
                format!("vertex {v} of sphere file `{file}`, placed by this `transform`, is unusable: {why}");
            self.report(at, message, "out of range").set_hint("spheres stay within 1e9 of the origin");
            return None;
        }
        Some((transform, data))
    }

    /// [`Checker::sphere_files`] for lists whose materials are already indices.
    pub(super) fn model_sphere_files(&mut self, path: &ValuePath, lists: &[SphereList], scene: &Scene) {
        let material_count = scene.materials.len();
        self.sphere_total(path, scene.spheres.len(), lists);
        for (i, list) in lists.iter().enumerate() {
            self.transform(&|| path.index(i).field("transform"), &transform_file(&list.transform));
            for (k, &m) in list.materials.iter().enumerate() {
                self.material_index(&|| path.index(i).field("materials").index(k), m, material_count);
            }
            self.sphere_materials(path, i, &list.file, &list.data, list.materials.len());
        }
    }

    /// Checks every terrain, resolves its materials and reads its image from `folder`.
    pub(super) fn terrains(
        &mut self,
        path: &ValuePath,
        terrains: &[TerrainFile],
        materials: &HashMap<&str, u32>,
        folder: &Path,
    ) -> Vec<Terrain> {
        let mut out = Vec::with_capacity(terrains.len());
        for (i, terrain) in terrains.iter().enumerate() {
            let TerrainFile::Heightmap { image, origin, cell, height_scale, material, palette } = terrain;
            let field = |name: &'static str| move || path.index(i).field(name);
            let params_ok = self.terrain_params(path, i, *origin, *cell, *height_scale);
            let surface = match (material, palette.is_empty()) {
                (Some(name), true) => {
                    self.material(&field("material"), name, materials).map(TerrainSurface::Material)
                }
                (None, false) => self.palette(&|| path.index(i).field("palette"), palette, materials),
                (Some(_), false) => {
                    self.report(
                        &field("palette"),
                        "a terrain has a `material` or a `palette`, not both",
                        "second choice",
                    )
                    .set_hint(
                        "remove `material` to colour the columns by height, or `palette` for one material",
                    );
                    None
                }
                (None, true) => {
                    self.report(
                        &field("image"),
                        "a terrain needs a `material` or a `palette`",
                        "no material",
                    )
                    .set_hint("add e.g. `material: \"concrete\"`");
                    None
                }
            };
            let heights = match heightmap::read(&folder.join(image)) {
                Ok(heights) => Some(heights),
                Err(error) => {
                    let message = format!("cannot use terrain image `{image}`: {error}");
                    self.report(&field("image"), message, "this image").set_hint(
                        "the path is relative to the scene file's folder; heightmaps are 8- or 16-bit PNG images",
                    );
                    None
                }
            };
            let resolvable = params_ok
                && heights
                    .as_ref()
                    .is_some_and(|h| self.resolvable(&field("cell"), *origin, *cell, *height_scale, h));
            if let (true, Some(surface), Some(heights)) = (resolvable, surface, heights) {
                out.push(Terrain {
                    image: image.clone(),
                    heights: Arc::new(heights),
                    origin: Vec3::from_array(*origin),
                    cell: *cell,
                    height_scale: *height_scale,
                    surface,
                });
            }
        }
        out
    }

    /// Terrain `i`'s placement: a finite origin, a positive cell size and height scale.
    fn terrain_params(
        &mut self,
        path: &ValuePath,
        i: usize,
        origin: V3,
        cell: f32,
        height_scale: f32,
    ) -> bool {
        let field = |name: &'static str| move || path.index(i).field(name);
        let positive = |v| v > 0.0;
        let origin_ok = self.coordinate3(origin, "terrain `origin`", &field("origin"));
        let cell_ok = self.check(cell, "terrain `cell`", &field("cell"), positive, "positive").is_none();
        let what = "terrain `height_scale`";
        let scale_ok = self.check(height_scale, what, &field("height_scale"), positive, "positive").is_none();
        origin_ok && cell_ok && scale_ok && cell.is_finite() && height_scale.is_finite()
    }

    /// Whether 32-bit floats tell a terrain's neighbouring columns (and height steps) apart
    /// everywhere it reaches: far from the scene's origin a small `cell` would round to
    /// nothing and the compiled columns would be flat.
    fn resolvable(&mut self, at: At, origin: V3, cell: f32, height_scale: f32, heights: &Heightmap) -> bool {
        let reach = Vec3::from_array(origin).abs().max_element()
            + (heights.width.max(heights.depth) as f32 * cell)
                .max(heights.values.iter().max().copied().unwrap_or(0) as f32 * height_scale);
        // NaN is not in range either.
        if !(0.0..=ranges::MAX_COORDINATE).contains(&reach) {
            let message =
                format!("the terrain reaches {reach} from the origin, past the 1e9 coordinates may have");
            self.report(at, message, "out of range").set_hint("use a smaller `cell` or `height_scale`");
            return false;
        }
        // Four ulps of slack: the kernels' hit offsets are a few ulps.
        let ok = reach * f32::EPSILON * 4.0 < cell.min(height_scale);
        if !ok {
            let message = format!(
                "terrain `cell` {cell} and `height_scale` {height_scale} are too fine for a terrain reaching {reach} from the origin"
            );
            self.report(at, message, "too small here")
                .set_hint("32-bit floats cannot tell the columns apart: move the terrain nearer the origin or use larger cells");
        }
        ok
    }

    /// A palette's bands: materials resolved, `from` finite and ascending.
    fn palette(
        &mut self,
        at: At,
        bands: &[BandFile],
        materials: &HashMap<&str, u32>,
    ) -> Option<TerrainSurface> {
        let mut out = Vec::with_capacity(bands.len());
        for (k, band) in bands.iter().enumerate() {
            let from_ok = self.band_from(at, k, band.from, k.checked_sub(1).map(|p| bands[p].from));
            let material = self.material(&|| at().index(k).field("material"), &band.material, materials);
            if let (true, Some(material)) = (from_ok, material) {
                out.push(Band { from: band.from, material });
            }
        }
        (out.len() == bands.len()).then_some(TerrainSurface::Palette(out))
    }

    /// Band `k`'s `from`: finite, and above the previous band's.
    fn band_from(&mut self, at: At, k: usize, from: f32, previous: Option<f32>) -> bool {
        let field = || at().index(k).field("from");
        if !self.finite(from, "palette band `from`", &field) {
            return false;
        }
        if let Some(previous) = previous.filter(|&p| from <= p) {
            let message =
                format!("palette bands must ascend: `from` {from} is not above the band before's {previous}");
            self.report(&field, message, "not ascending")
                .set_hint("list the bands from the lowest to the highest");
            return false;
        }
        true
    }

    /// [`Checker::terrains`] for terrains already loaded (an in-memory scene).
    pub(super) fn model_terrains(&mut self, path: &ValuePath, terrains: &[Terrain], material_count: usize) {
        for (i, t) in terrains.iter().enumerate() {
            self.terrain_params(path, i, t.origin.to_array(), t.cell, t.height_scale);
            let field = |name: &'static str| move || path.index(i).field(name);
            match &t.surface {
                TerrainSurface::Material(m) => self.material_index(&field("material"), *m, material_count),
                TerrainSurface::Palette(bands) => {
                    let at = field("palette");
                    for (k, band) in bands.iter().enumerate() {
                        self.band_from(&at, k, band.from, k.checked_sub(1).map(|p| bands[p].from));
                        self.material_index(
                            &|| at().index(k).field("material"),
                            band.material,
                            material_count,
                        );
                    }
                }
            }
        }
    }

    fn lights(&mut self, path: &ValuePath, lights: &[LightFile]) {
        self.count(path, "lights", lights.len(), limits::MAX_LIGHTS);
        let mut suns = 0;
        for (i, light) in lights.iter().enumerate() {
            let field = |name: &'static str| move || path.index(i).field(name);
            let (color, intensity) = match *light {
                LightFile::Point { position, color, intensity } => {
                    self.coordinate3(position, "light `position`", &field("position"));
                    (color, intensity)
                }
                LightFile::Directional { direction, color, intensity, angular_radius_deg } => {
                    let usable = Vec3::from_array(direction).normalize_or_zero() != Vec3::ZERO;
                    if self.finite3(direction, "light `direction`", &field("direction")) && !usable {
                        let message = "light `direction` must be a non-zero, normalizable vector";
                        self.report(&field("direction"), message, "no direction");
                    }
                    let below_90 = |a| (0.0..90.0).contains(&a);
                    let what = "light `angular_radius_deg`";
                    let at = field("angular_radius_deg");
                    self.check(angular_radius_deg, what, &at, below_90, "at least 0 and below 90 degrees");
                    if angular_radius_deg > 0.0 {
                        suns += 1;
                        if suns == limits::MAX_SUNS + 1 {
                            let message = format!(
                                "more than {} directional lights with a disc (`angular_radius_deg` > 0)",
                                limits::MAX_SUNS
                            );
                            self.report(&at, &message, "give the others `angular_radius_deg: 0`");
                        }
                    }
                    (color, intensity)
                }
            };
            self.non_negative3(color, "light `color`", &field("color"));
            self.non_negative(intensity, "light `intensity`", &field("intensity"));
            self.radiance_product(color, intensity, "light `color` times `intensity`", &field("color"));
        }
    }
}

/// "did you mean" when a name is close, else the list of names there are.
fn unknown_material_hint(typo: &str, materials: &HashMap<&str, u32>) -> String {
    let mut names: Vec<&str> = materials.keys().copied().collect();
    names.sort_by_key(|n| materials.get(n));
    match did_you_mean(typo, names.iter().copied()) {
        Some(near) => format!("did you mean `{near}`?"),
        None if names.is_empty() => {
            "the scene defines no materials: add them under `materials: { ... }`".to_owned()
        }
        None => format!("the materials are {}", one_of(names.iter().copied(), MAX_LISTED)),
    }
}

pub(super) fn settings_file(s: RenderSettings) -> SettingsFile {
    SettingsFile {
        width: s.width,
        height: s.height,
        spp: s.spp,
        max_depth: s.max_depth,
        seed: s.seed,
        exposure: s.exposure,
        view: match s.view {
            ViewTransform::Standard => ViewFile::Standard,
            ViewTransform::Agx => ViewFile::Agx,
            ViewTransform::Filmic => ViewFile::Filmic,
        },
        sampler: match s.sampler {
            SamplerKind::Independent => SamplerFile::Independent,
            SamplerKind::Sobol => SamplerFile::Sobol,
        },
    }
}

pub(super) fn sky_file(sky: &Sky) -> SkyFile {
    match sky {
        Sky::Gradient { bottom, top } => SkyFile::Gradient { bottom: bottom.to_array(), top: top.to_array() },
        Sky::Constant(color) => SkyFile::Constant(color.to_array()),
        Sky::Environment(env) => SkyFile::Environment {
            image: env.image.clone(),
            strength: env.strength,
            rotation_deg: env.rotation_deg,
        },
    }
}

fn texture_file_of(t: &Texture) -> TextureFile {
    match t {
        Texture::Image { file, wrap, uv_transform, .. } => TextureFile::Image {
            file: file.clone(),
            wrap: match wrap {
                Wrap::Repeat => WrapFile::Repeat,
                Wrap::Clamp => WrapFile::Clamp,
            },
            uv_transform: uv_transform_file(uv_transform),
        },
        &Texture::Checker { size, even, odd } => {
            TextureFile::Checker { size, even: even.to_array(), odd: odd.to_array() }
        }
        &Texture::Noise { scale } => TextureFile::Noise { scale },
    }
}

fn uv_transform_file(t: &UvTransform) -> UvTransformFile {
    UvTransformFile { offset: t.offset.to_array(), rotation_deg: t.rotation_deg, scale: t.scale.to_array() }
}

fn light_file(light: &Light) -> LightFile {
    match *light {
        Light::Point { position, color, intensity } => {
            LightFile::Point { position: position.to_array(), color: color.to_array(), intensity }
        }
        Light::Directional { direction, color, intensity, angular_radius_deg } => LightFile::Directional {
            direction: direction.to_array(),
            color: color.to_array(),
            intensity,
            angular_radius_deg,
        },
    }
}

fn lower_camera(cam: &CameraFile) -> Camera {
    let (look_from, look_at) = (Vec3::from_array(cam.look_from), Vec3::from_array(cam.look_at));
    Camera {
        look_from,
        look_at,
        up: Vec3::from_array(cam.up),
        vfov_deg: cam.vfov_deg,
        aperture: cam.aperture,
        focus_dist: cam.focus_dist.unwrap_or_else(|| (look_at - look_from).length()),
    }
}

fn lower_settings(s: &SettingsFile) -> RenderSettings {
    RenderSettings {
        width: s.width,
        height: s.height,
        spp: s.spp,
        max_depth: s.max_depth,
        seed: s.seed,
        exposure: s.exposure,
        view: match s.view {
            ViewFile::Standard => ViewTransform::Standard,
            ViewFile::Agx => ViewTransform::Agx,
            ViewFile::Filmic => ViewTransform::Filmic,
        },
        sampler: match s.sampler {
            SamplerFile::Independent => SamplerKind::Independent,
            SamplerFile::Sobol => SamplerKind::Sobol,
        },
    }
}

/// `env_image`: the environment's image, read and checked (validation reported an
/// issue for a sky that needs one and has none).
fn lower_sky(sky: &SkyFile, env_image: Option<Arc<EnvImage>>) -> Sky {
    match sky {
        SkyFile::Gradient { bottom, top } => {
            Sky::Gradient { bottom: Vec3::from_array(*bottom), top: Vec3::from_array(*top) }
        }
        SkyFile::Constant(color) => Sky::Constant(Vec3::from_array(*color)),
        SkyFile::Environment { image, strength, rotation_deg } => Sky::Environment(Environment {
            image: image.clone(),
            data: env_image.expect("validation reports an environment without its image"),
            strength: *strength,
            rotation_deg: *rotation_deg,
        }),
    }
}

fn lower_light(light: &LightFile) -> Light {
    match *light {
        LightFile::Point { position, color, intensity } => {
            Light::Point { position: Vec3::from_array(position), color: Vec3::from_array(color), intensity }
        }
        LightFile::Directional { direction, color, intensity, angular_radius_deg } => Light::Directional {
            direction: Vec3::from_array(direction),
            color: Vec3::from_array(color),
            intensity,
            angular_radius_deg,
        },
    }
}

/// The file form of a transform (for checks and the writer).
pub(crate) fn transform_file(t: &Transform) -> TransformFile {
    TransformFile { translate: t.translate.to_array(), rotate_deg: t.rotate_deg.to_array(), scale: t.scale }
}
