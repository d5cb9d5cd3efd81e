//! The checks of a scene: every value finite and in range, every material reference
//! resolved, and what the files a scene names hold usable where the scene puts it. One
//! set of checks serves a scene read from a file (after loading, `load.rs`) and one
//! built in memory (an editor's edit).
//!
//! Every check runs, so a scene with five mistakes reports five [`Issue`]s at once.
//! An issue names the [`ValuePath`] of the value it is about; for a file,
//! [`super::spans`] turns that into a location only when there is something to report.
//! A value that fails one check (e.g. NaN) is not checked further, so one mistake gives
//! one message.
//!
//! Not here: reading files (`load.rs`), and anything a compile step does.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use rayon::prelude::*;

use crate::{find_first, limits, ranges};

use super::{
    budget,
    checker::{At, Checker, Issue},
    list::{self, ListItem},
    material::{AlphaMode, MAP_FIELDS, MaterialKind, Principled},
    model::text::Written,
    model::{
        Camera, Heightmap, InstanceFileData, Light, Mesh, MeshData, PlacedInstance, RenderSettings, Scene,
        Sky, SphereList, SphereListData, Terrain, TerrainSurface, Texture, Transform, UvTransform,
    },
    spans::ValuePath,
    suggest::{did_you_mean, one_of},
};

/// The placements of `new` that differ from `old`'s (as many), in order: indices into
/// [`Mesh::placements`]' order.
fn moved_placements(old: &Mesh, new: &Mesh) -> Vec<usize> {
    let placed = |m: &Mesh, k: usize| match m.instances.get(k) {
        Some(p) => *p,
        None => m.placements.instances[k - m.instances.len()],
    };
    let count = new.placement_count();
    if Arc::ptr_eq(&old.placements, &new.placements) {
        return (0..new.instances.len()).filter(|&k| placed(old, k) != placed(new, k)).collect();
    }
    (0..count).into_par_iter().filter(|&k| placed(old, k) != placed(new, k)).collect()
}

/// The first of `count` items that is `bad`: among `candidates` alone when given (in
/// their order), else among all of them, on every core.
fn first_problem(
    candidates: Option<&[usize]>,
    count: usize,
    bad: impl Fn(usize) -> bool + Sync + Send,
) -> Option<usize> {
    match candidates {
        Some(candidates) => candidates.iter().copied().find(|&k| bad(k)),
        None => find_first::index(count, bad),
    }
}

/// The box of a model's triangles in its own space: the placed-once triangles' vertices
/// and those of the glTF meshes its file places several times, through their placements.
/// `None` for a model without triangles.
fn model_box(data: &MeshData) -> Option<[Vec3; 2]> {
    // In chunks of plain loops: an item per corner cost 88 ms at 1.31M triangles on the
    // 2-core dev machine, on every reload of a scene that places the model.
    let fold = |positions: &[Vec3], triangles: &[[u32; 3]]| {
        let empty = [Vec3::INFINITY, Vec3::NEG_INFINITY];
        triangles
            .par_chunks(1 << 14)
            .map(|chunk| {
                let corners = chunk.iter().flatten().map(|&v| positions[v as usize]);
                corners.fold(empty, |[lo, hi], p| [lo.min(p), hi.max(p)])
            })
            .reduce(|| empty, |[a, b], [c, d]| [a.min(c), b.max(d)])
    };
    let mut bounds = fold(&data.positions, &data.triangles);
    for part in &data.instanced {
        let [lo, hi] = fold(&part.geometry.positions, &part.geometry.triangles);
        if lo.cmpgt(hi).any() {
            continue;
        }
        for placement in &part.placements {
            for c in 0..8 {
                let corner = Vec3::new([lo.x, hi.x][c & 1], [lo.y, hi.y][c >> 1 & 1], [lo.z, hi.z][c >> 2]);
                let p = placement.transform_point3(corner);
                bounds = [bounds[0].min(p), bounds[1].max(p)];
            }
        }
    }
    (!bounds[0].cmpgt(bounds[1]).any()).then_some(bounds)
}

/// What to do about a placement 32-bit floats cannot undo.
const UNEVEN_HINT: &str = "stretch the model in one place (an instance's `scale`, the mesh's `transform` or the model file's nodes), or less: two scales per axis with a rotation between them shear it";

/// The first of `data`'s instanced glTF parts' placements that 32-bit floats cannot undo
/// after `outer` (the mesh's `transform`, or one of its instances' placements), each fine
/// alone: (the part's glTF mesh, the placement's index). The renderers take rays into
/// the part's space through the two maps composed.
fn uneven_part(outer: &Affine3A, data: &MeshData) -> Option<(usize, usize)> {
    data.instanced.iter().find_map(|part| {
        part.placements
            .iter()
            .position(|inner| !ranges::placement_invertible(&(*outer * *inner)))
            .map(|j| (part.mesh, j))
    })
}

/// How many material names an "unknown material" hint lists.
const MAX_LISTED: usize = 8;

/// `|up × forward|` (both unit length) at or below this: `up` gives no usable camera basis.
const PARALLEL_SINE: f32 = ranges::PARALLEL_SINE;

/// Checks `scene` completely. `text`: what its file said that the model cannot hold,
/// for a scene read from a file; every file such a scene names was read or, when it
/// could not be used, reported by loading. `None` for a scene built in memory, whose
/// texture images must have been read.
///
/// `before`: a scene that passed these checks and that `scene` is an edit of (a live
/// session's current scene), or `None`. A mesh with the same model (the same data, by
/// pointer), transform and number of placements as `before`'s at its index, in a scene
/// with as many materials, has its model's triangles and the placements that are as
/// they were taken as checked: a moved instance of a million is the one checked.
pub(crate) fn check(scene: &Scene, text: Option<&Written>, before: Option<&Scene>) -> Vec<Issue> {
    let root = ValuePath::root();
    let mut c = Checker::new(text, &scene.materials, before);
    c.camera(&root.field("camera"), &scene.camera);
    c.settings(&root.field("settings"), &scene.settings);
    c.sky(&root.field("sky"), &scene.sky);
    c.materials(&root.field("materials"));
    c.textures(&root.field("materials"));
    let primitives = list::check_lists(&mut c, &root, scene);
    c.primitive_count(&root, primitives, scene);
    c.lights(&root.field("lights"), &scene.lights);
    // The whole counted once every value is good: one mistake, one message.
    if c.is_clean() {
        c.compiled_budget(&root, scene);
    }
    c.into_issues()
}

impl<'s> Checker<'s> {
    /// Reports every parameter of a material's `kind` out of range. `what` names one of its fields in a
    /// message, `path` gives that field's path.
    fn material_kind(
        &mut self,
        kind: &MaterialKind,
        what: &dyn Fn(&str) -> String,
        path: &dyn Fn(&'static str) -> ValuePath,
    ) {
        let at = |name: &'static str| move || path(name);
        let c = self;
        match *kind {
            MaterialKind::Lambert { albedo } => c.non_negative3(albedo, &what("albedo"), &at("albedo")),
            MaterialKind::Metal { albedo, fuzz } => {
                c.non_negative3(albedo, &what("albedo"), &at("albedo"));
                let unit = |f| (0.0..=1.0).contains(&f);
                c.check(fuzz, &what("fuzz"), &at("fuzz"), unit, "between 0 and 1");
            }
            MaterialKind::Dielectric { ior } => {
                if let Some(issue) = c.check(ior, &what("ior"), &at("ior"), |v| v >= 1.0, "at least 1") {
                    issue.set_hint("the index of refraction of glass is about 1.5, of water 1.33");
                }
            }
            MaterialKind::Emissive { color, strength, albedo } => {
                c.non_negative3(color, &what("color"), &at("color"));
                c.non_negative(strength, &what("strength"), &at("strength"));
                c.non_negative3(albedo, &what("albedo"), &at("albedo"));
                c.radiance_product(color, strength, &what("color` times `strength"), &at("strength"));
            }
            MaterialKind::Principled(p) => c.principled(&p, what, path),
        }
    }

    /// [`Checker::material_kind`] of a Principled.
    fn principled(
        &mut self,
        p: &Principled,
        what: &dyn Fn(&str) -> String,
        path: &dyn Fn(&'static str) -> ValuePath,
    ) {
        let c = self;
        let at = |name: &'static str| move || path(name);
        let unit = |f: f32| (0.0..=1.0).contains(&f);
        for (k, channel) in p.base_color.to_array().into_iter().enumerate() {
            c.check(channel, &what("base_color"), &|| path("base_color").index(k), unit, "between 0 and 1");
        }
        for (value, name) in [
            (p.metallic, "metallic"),
            (p.roughness, "roughness"),
            (p.transmission, "transmission"),
            (p.alpha, "alpha"),
        ] {
            c.check(value, &what(name), &at(name), unit, "between 0 and 1");
        }
        if let Some(issue) = c.check(p.ior, &what("ior"), &at("ior"), |v| v >= 1.0, "at least 1") {
            issue.set_hint("the index of refraction of glass is about 1.5, of water 1.33");
        }
        c.non_negative3(p.emission, &what("emission"), &at("emission"));
        c.non_negative(p.emission_strength, &what("emission_strength"), &at("emission_strength"));
        let product = what("emission` times `emission_strength");
        c.radiance_product(p.emission, p.emission_strength, &product, &at("emission_strength"));
        c.non_negative(p.normal_scale, &what("normal_scale"), &at("normal_scale"));
        if let AlphaMode::Mask(cutoff) = p.alpha_mode {
            c.check(cutoff, &what("alpha_mode"), &at("alpha_mode"), unit, "a cutoff between 0 and 1");
        }
    }

    fn camera(&mut self, path: &ValuePath, cam: &Camera) {
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
        // Left out of a file, it is the distance to `look_at`: good when the points are.
        let focus = cam.focus_dist;
        if self.text.is_none_or(|t| t.focus_dist)
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
        let view = cam.look_at - cam.look_from;
        let (forward, up) = (view.normalize_or_zero(), cam.up.normalize_or_zero());
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

    fn settings(&mut self, path: &ValuePath, s: &RenderSettings) {
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

    fn sky(&mut self, path: &ValuePath, sky: &Sky) {
        match sky {
            Sky::Gradient { bottom, top } => {
                self.non_negative3(*bottom, "sky `bottom` colour", &|| path.field("bottom"));
                self.non_negative3(*top, "sky `top` colour", &|| path.field("top"));
            }
            Sky::Constant(color) => self.non_negative3(*color, "sky colour", &|| path.index(0)),
            Sky::Environment(env) => {
                let strength = || path.field("strength");
                self.non_negative(env.strength, "sky `strength`", &strength);
                self.finite(env.rotation_deg, "sky `rotation_deg`", &|| path.field("rotation_deg"));
                if !env.data.is_unread() {
                    let brightest = env.data.texels.iter().flatten().copied().fold(0.0, f32::max);
                    let what = format!("the brightest texel of `{}` times `strength`", env.image);
                    self.radiance_product(Vec3::splat(brightest), env.strength, &what, &strength);
                }
            }
        }
    }

    /// Checks every material's name and parameters.
    fn materials(&mut self, path: &ValuePath) {
        let materials = self.materials;
        self.count(path, "materials", materials.len(), limits::MAX_MATERIALS);
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(materials.len());
        for (i, m) in materials.iter().enumerate() {
            if let Some(&first) = first.get(m.name.as_str()) {
                let message = format!("material `{}` is defined twice", m.name);
                let issue = self.report(&|| path.key(i), message, "defined again here");
                issue.set_hint("rename one of them");
                issue.also = Some((path.key(first), "first defined here".to_owned()));
            } else {
                first.insert(&m.name, i);
            }
            let what = |field: &str| format!("`{field}` of material `{}`", m.name);
            self.material_kind(&m.kind, &what, &|field| path.index(i).field(field));
        }
    }

    /// Checks every material's textures: each in a slot its kind takes, with good
    /// parameters and an image that fills its size.
    fn textures(&mut self, path: &ValuePath) {
        for (i, m) in self.materials.iter().enumerate() {
            let colour = m.texture.as_ref().map(|t| (t, m.kind.texture_field()));
            let maps = m.maps.slots().into_iter().zip(MAP_FIELDS).filter_map(|(t, f)| Some((t?, f)));
            for (texture, slot) in colour.into_iter().chain(maps) {
                let at = || path.index(i).field(slot);
                if slot != m.kind.texture_field() && !m.kind.takes_maps() {
                    let message = format!("material `{}` takes no `{slot}`", m.name);
                    self.report(&at, message, "not a usable texture");
                } else if !m.kind.takes_texture() {
                    let message = format!("material `{}` is a Dielectric, which takes no texture", m.name);
                    self.report(&at, message, "not a usable texture");
                } else {
                    self.texture(&at, &m.name, texture);
                }
            }
        }
    }

    /// One texture at `at`: positive sizes and scales, colours not negative, finite uv
    /// transforms, an image read whose texels fill its size.
    fn texture(&mut self, at: At, material: &str, texture: &Texture) {
        let what = |name: &str| format!("`{name}` of the texture of material `{material}`");
        match texture {
            Texture::Image { file, image, uv_transform, .. } => {
                self.uv_transform(&|| at().field("uv_transform"), material, uv_transform);
                let what = format!("`file` of the texture of material `{material}` (`{file}`)");
                let file_at = || at().field("file");
                let side = limits::MAX_IMAGE_SIDE;
                let (width, height, texels) = (image.width, image.height, image.texels.len());
                if image.is_unread() {
                    // A file's images were all read, or loading said why not.
                    if self.text.is_none() {
                        self.report(&file_at, format!("{what} was not read"), "not a usable texture");
                    }
                } else if width == 0
                    || height == 0
                    || width > side
                    || height > side
                    || texels as u64 != u64::from(width) * u64::from(height)
                    || texels > limits::MAX_TEXELS
                    || !(image.alpha.is_empty() || image.alpha.len() == texels)
                {
                    let message = format!("{what} is {width} x {height} pixels with {texels} texels");
                    self.report(&file_at, message, "not a usable texture");
                }
            }
            &Texture::Checker { size, even, odd } => {
                self.check(size, &what("size"), &|| at().field("size"), |s| s > 0.0, "above 0");
                self.non_negative3(even, &what("even"), &|| at().field("even"));
                self.non_negative3(odd, &what("odd"), &|| at().field("odd"));
            }
            &Texture::Noise { scale } => {
                self.check(scale, &what("scale"), &|| at().field("scale"), |s| s > 0.0, "above 0");
            }
        }
    }

    /// An image texture's `uv_transform` at `at`: every number finite, which is all the
    /// blob's texture record asks (both renderers' lookups keep any finite transform of
    /// any finite coordinates finite: docs/path-tracing.md, "Textures").
    fn uv_transform(&mut self, at: At, material: &str, t: &UvTransform) {
        let what =
            |name: &str| format!("`{name}` of the `uv_transform` of the texture of material `{material}`");
        for (name, pair) in [("offset", t.offset), ("scale", t.scale)] {
            for (k, x) in pair.to_array().into_iter().enumerate() {
                self.finite(x, &what(name), &|| at().field(name).index(k));
            }
        }
        self.finite(t.rotation_deg, &what("rotation_deg"), &|| at().field("rotation_deg"));
    }

    /// A reference to material `m` at `at`; `where_` follows the name in the message of
    /// a name no material has (" in a sphere file's `materials`").
    pub(crate) fn material(&mut self, at: At, m: u32, where_: &str) {
        let count = self.materials.len();
        if (m as usize) < count {
            return;
        }
        match self.text.and_then(|t| t.unknown_name(m)) {
            Some(name) => {
                let hint = self.unknown_material_hint(name);
                let message = format!("unknown material `{name}`{where_}");
                self.report(at, message, "no material with this name").set_hint(hint);
            }
            None => {
                let message = format!("material index {m} out of range ({count} materials)");
                self.report(at, message, "no such material");
            }
        }
    }

    /// "did you mean" when a name is close, else the list of names there are.
    fn unknown_material_hint(&self, typo: &str) -> String {
        let mut seen = HashSet::with_capacity(self.materials.len());
        let names: Vec<&str> =
            self.materials.iter().map(|m| m.name.as_str()).filter(|&name| seen.insert(name)).collect();
        match did_you_mean(typo, names.iter().copied()) {
            Some(near) => format!("did you mean `{near}`?"),
            None if names.is_empty() => {
                "the scene defines no materials: add them under `materials: { ... }`".to_owned()
            }
            None => format!("the materials are {}", one_of(names.iter().copied(), MAX_LISTED)),
        }
    }

    /// At least one primitive of some kind (`primitives`, what every list makes, `None`
    /// when an item whose file was not read leaves that unknown; reported at `spheres`,
    /// where one usually goes), and room in the blob for the boxes and every terrain
    /// column (counted before merging, so whether a terrain fits does not depend on its
    /// content's regularity) and for the meshes' triangles (an instanced model's once)
    /// and instances.
    fn primitive_count(&mut self, root: &ValuePath, primitives: Option<usize>, scene: &Scene) {
        let columns = Terrain::primitives(&scene.terrains);
        let triangles: usize = scene.meshes.iter().map(|m| m.data.stored_triangles()).sum();
        if triangles > limits::MAX_TRIANGLES {
            let message = format!(
                "too many triangles: {triangles} in all meshes, at most {} are supported",
                limits::MAX_TRIANGLES
            );
            self.report(&|| root.field("meshes"), message, "too many triangles")
                .set_hint("a model placed many times is stored once: give one mesh `instances` or an `instance_file` instead of repeating it");
        }
        let instances: usize = scene.meshes.iter().map(Mesh::instance_count).sum();
        if instances > limits::MAX_INSTANCES {
            let message = format!(
                "too many instances: {instances} in all meshes' `instances` and instance files, at most {} are supported",
                limits::MAX_INSTANCES
            );
            self.report(&|| root.field("meshes"), message, "too many instances")
                .set_hint("use fewer or smaller instance files");
        }
        if primitives == Some(0) {
            self.report(
                &|| root.field("spheres"),
                "the scene has no spheres, boxes, terrain columns or meshes",
                "empty",
            )
            .set_hint("add at least one, e.g. `(center: (0, 0, 0), radius: 1, material: \"name\")`");
        }
        let boxes = scene.boxes.len();
        if !scene.terrains.is_empty() && boxes + columns > limits::MAX_BOXES {
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

    /// Checks every mesh: its placement (and its instances'), its material, and where
    /// its model's triangles land.
    pub(super) fn meshes(&mut self, path: &ValuePath, meshes: &[Mesh]) {
        for (i, mesh) in meshes.iter().enumerate() {
            let field = |name: &'static str| move || path.index(i).field(name);
            let transform_ok = self.transform(&field("transform"), &mesh.transform);
            let mut instances_ok = true;
            for (k, instance) in mesh.instances.iter().enumerate() {
                let at = || field("instances")().index(k);
                instances_ok &= self.transform(&at, &instance.transform);
                if let Some(m) = instance.material {
                    self.material(&|| at().field("material"), m, "");
                }
            }
            // Unread, loading said why; without a file, there is nothing to check.
            let file_read = mesh.instance_file.is_none() || !mesh.placements.is_unread();
            let known = self.known_mesh(i, mesh);
            // The placements that differ from the known mesh's, found once for both checks
            // of them below (a pass over 10^6 placements each).
            let moved = known.map(|old| moved_placements(old, mesh));
            if let Some(name) = &mesh.instance_file
                && file_read
            {
                let moved = moved.as_deref();
                let file: Option<Vec<usize>> =
                    moved.map(|m| m.iter().filter_map(|k| k.checked_sub(mesh.instances.len())).collect());
                instances_ok &=
                    self.instance_file(&field("instance_file"), name, &mesh.placements, file.as_deref());
            }
            // Instances that each name a material need none of the model's (an
            // instance file that was not read counts as naming them: loading said why).
            let all_replaced = || {
                mesh.is_instanced()
                    && mesh.instances.iter().chain(&mesh.placements.instances).all(|p| p.material.is_some())
            };
            match mesh.material {
                Some(m) => self.material(&field("material"), m, ""),
                None if !mesh.data.is_unread() && mesh.data.materials.is_empty() && !all_replaced() => {
                    let message =
                        format!("mesh `{}` needs a `material`: {}", mesh.file, mesh.data.no_materials);
                    self.report(&|| path.index(i), message, "no material")
                        .set_hint("add e.g. `material: \"clay\"`, naming one of the scene's materials");
                    continue;
                }
                None => {}
            }
            if !transform_ok || mesh.data.is_unread() {
                continue;
            }
            if !mesh.is_instanced() {
                self.mesh_placement(&field("transform"), &mesh.file, &mesh.transform, &mesh.data);
                if let Some((m, j)) = uneven_part(&mesh.transform.matrix(), &mesh.data) {
                    let message = format!(
                        "this `transform` stretches glTF mesh {m} of model `{}`, as its node placement {j} in the file places it, too unevenly for 32-bit floats to undo (the renderers take rays into the mesh's space)",
                        mesh.file
                    );
                    self.report(&field("transform"), message, "out of range").set_hint(UNEVEN_HINT);
                }
            } else if (known.is_some() || self.model_in_own_space(&field("file"), &mesh.file, &mesh.data))
                && instances_ok
                && file_read
            {
                self.instance_placement(path, i, mesh, moved.as_deref());
            }
        }
    }

    /// Mesh `i` of the scene checked before this one ([`check`]'s `before`) when it is
    /// `mesh`'s model placed by the same transform as many times, in a scene with as
    /// many materials: what `mesh`'s checks may take as checked where it is the same.
    fn known_mesh(&self, i: usize, mesh: &Mesh) -> Option<&'s Mesh> {
        let before = self.before?;
        let old = before.meshes.get(i)?;
        let same = before.materials.len() == self.materials.len()
            && Arc::ptr_eq(&old.data, &mesh.data)
            && old.transform == mesh.transform
            && old.instances.len() == mesh.instances.len()
            && old.placements.instances.len() == mesh.placements.instances.len();
        same.then_some(old)
    }

    /// A mesh's or sphere file's placement: finite, with a scale in range on every
    /// axis; true when usable. A scale the axes share is one number in the text
    /// (`to_ron`'s), reported at `scale`; another at the axis' component.
    fn transform(&mut self, at: At, t: &Transform) -> bool {
        let moves = self.coordinate3(t.translate, "`translate`", &|| at().field("translate"))
            & self.finite3(t.rotate_deg, "`rotate_deg`", &|| at().field("rotate_deg"));
        let scale_ok = match t.uniform_scale() {
            Some(s) => self.scale_factor(s, "`scale`", &|| at().field("scale")),
            // Not `all`: every bad axis gets its own message.
            None => (0..3).fold(true, |ok, k| {
                let what = format!("`scale` along {}", ["x", "y", "z"][k]);
                self.scale_factor(t.scale[k], &what, &|| at().field("scale").index(k)) & ok
            }),
        };
        moves && scale_ok
    }

    /// One axis' scale: finite, and between 1e-6 and 1e6 in size, either sign (a
    /// negative one mirrors); true when it is.
    fn scale_factor(&mut self, s: f32, what: &str, at: At) -> bool {
        if !self.finite(s, what, at) {
            return false;
        }
        if (ranges::MIN_SCALE..=ranges::MAX_SCALE).contains(&s.abs()) {
            return true;
        }
        let message =
            format!("{what} must be between 1e-6 and 1e6, or between -1e6 and -1e-6 to mirror, found {s}");
        self.report(at, message, "out of range").set_hint(
            "a scale of 0 flattens the model; one beyond these turns its triangles to nothing or to overflow in 32-bit floats",
        );
        false
    }

    /// A sphere file's scale is one size on every axis (its sign may differ: a mirror),
    /// which multiplies every radius: a sphere stretched would not be a sphere. True
    /// when it is.
    fn sphere_scale(&mut self, at: At, t: &Transform) -> bool {
        let size = t.scale.abs();
        if size.x == size.y && size.y == size.z {
            return true;
        }
        let [x, y, z] = t.scale.to_array();
        let message = format!(
            "a sphere file's `scale` must be one number (or the same size on every axis, a negative one mirroring), found ({x}, {y}, {z})"
        );
        self.report(&|| at().field("scale"), message, "stretched spheres")
            .set_hint("spheres stay spheres only when scaled alike along x, y and z: write e.g. `scale: 2`");
        false
    }

    /// Whether a model's triangles, placed by `transform` as compiling places them
    /// (`crate::meshes`), each lie within the coordinate range and keep an area in f32
    /// (`ranges::triangle_problem`, what the blob check asks of them).
    fn mesh_placement(&mut self, at: At, file: &str, transform: &Transform, data: &MeshData) {
        let to_world = transform.matrix();
        let world: Vec<Vec3> = data.positions.par_iter().map(|&p| to_world.transform_point3(p)).collect();
        let bad =
            find_first::problem(&data.triangles, |t| ranges::triangle_problem(t.map(|i| world[i as usize])));
        let Some((t, problem)) = bad else { return };
        let message =
            format!("placed by this `transform`, triangle {t} of model `{file}` is unusable: {problem}");
        self.report(at, message, "out of range")
            .set_hint("keep the model within 1e9 of the origin, at a scale that keeps its triangles' area");
    }

    /// An instance file's instances (at `at`, its `instance_file`): finite, with a scale
    /// in range and a `material` the scene has; the first vertex that is not is reported.
    /// True when they all are.
    /// `moved`: when the file's instances were checked before ([`Checker::known_mesh`]),
    /// the vertices that changed since, the only ones checked.
    fn instance_file(
        &mut self,
        at: At,
        name: &str,
        data: &InstanceFileData,
        moved: Option<&[usize]>,
    ) -> bool {
        let count = self.materials.len();
        let problem = |p: &PlacedInstance| -> Option<(String, &'static str)> {
            let t = &p.transform;
            let non_finite = "NaN and infinities are not allowed in a scene";
            let scale_hint = "a scale beyond 1e-6 to 1e6 turns a model's triangles to nothing or to overflow in 32-bit floats";
            if !t.translate.is_finite() {
                Some((format!("has a non-finite translation {}", t.translate), non_finite))
            } else if !t.rotate_deg.is_finite() {
                Some((format!("has a non-finite rotation {}", t.rotate_deg), non_finite))
            } else if t.uniform_scale().is_none() {
                // The file's `scale` is one number: an instance stretched in memory (an
                // edit) could not be written back.
                let [x, y, z] = t.scale.to_array();
                Some((
                    format!("has scale ({x}, {y}, {z}): an instance file's scale is one number"),
                    "stretch the model with the mesh's `transform`, or place it by `instances`",
                ))
            } else if !(t.scale.x.is_finite() && t.scale.x > 0.0) {
                Some((format!("has scale {}: a scale must be finite and above 0", t.scale.x), scale_hint))
            } else if !(ranges::MIN_SCALE..=ranges::MAX_SCALE).contains(&t.scale.x) {
                Some((format!("has scale {}: a scale must be between 1e-6 and 1e6", t.scale.x), scale_hint))
            } else {
                match p.material {
                    Some(m) if m as usize >= count => Some((
                        format!(
                            "has material {m}, but the scene has {count} materials (indices count from 0)"
                        ),
                        "a `material` counts the scene's `materials` from 0, in the order they are written",
                    )),
                    _ => None,
                }
            }
        };
        let Some(v) = first_problem(moved, data.instances.len(), |v| problem(&data.instances[v]).is_some())
        else {
            return true;
        };
        let (why, hint) = problem(&data.instances[v]).unwrap_or_default();
        self.report(at, format!("cannot use instance_file `{name}`: vertex {v} {why}"), "this file")
            .set_hint(hint);
        false
    }

    /// Whether an instanced model's triangles are usable in its own space, where the
    /// renderers intersect them (`ranges::triangle_problem` of the object positions;
    /// the mesh's `transform` is applied to the instances instead). Reported at `at`,
    /// its `file`.
    fn model_in_own_space(&mut self, at: At, file: &str, data: &MeshData) -> bool {
        let flat = find_first::problem(&data.triangles, |t| {
            ranges::triangle_problem(t.map(|i| data.positions[i as usize]))
        });
        let (t, problem) = match flat {
            Some(found) => found,
            None => {
                // The glTF meshes its file places several times, each in its own space.
                let parts = data.instanced.iter().map(|p| &p.geometry);
                let mut first = data.triangles.len();
                let mut found = None;
                for part in parts {
                    let corners = |t: &[u32; 3]| t.map(|i| part.positions[i as usize]);
                    if let Some((k, problem)) =
                        find_first::problem(&part.triangles, |t| ranges::triangle_problem(corners(t)))
                    {
                        found = Some((first + k, problem));
                        break;
                    }
                    first += part.triangles.len();
                }
                match found {
                    Some(found) => found,
                    None => return true,
                }
            }
        };
        let message = format!(
            "triangle {t} of model `{file}` (this `file`) is unusable in the model's own space, where its instances place it from: {problem}"
        );
        self.report(at, message, "unusable model")
            .set_hint("keep the model within 1e9 of its origin, at a size that keeps its triangles' area");
        false
    }

    /// Whether every placement of an instanced mesh (`Mesh::placements`) keeps its model
    /// within the coordinate range (its object-space box's corners placed) and can be
    /// undone in f32 (`ranges::placement_invertible`: the renderers take rays into the
    /// model's space). The first that does not is reported at its entry of `instances`
    /// or at `instance_file`.
    /// `moved`: when the mesh was checked before ([`Checker::known_mesh`]), the
    /// placements that changed since, the only ones checked.
    fn instance_placement(&mut self, path: &ValuePath, i: usize, mesh: &Mesh, moved: Option<&[usize]>) {
        let Some([lo, hi]) = model_box(&mesh.data) else { return };
        let corners: Vec<Vec3> = (0..8)
            .map(|c| Vec3::new([lo.x, hi.x][c & 1], [lo.y, hi.y][c >> 1 & 1], [lo.z, hi.z][c >> 2]))
            .collect();
        let file = &mesh.file;
        let outer = mesh.transform.matrix();
        let problem = |k: usize| {
            let (to_world, _) = mesh.placement_after(&outer, k);
            let far =
                corners.iter().map(|&c| to_world.transform_point3(c)).find(|&p| !ranges::coordinate_ok(p));
            match far {
                Some(corner) => Some((
                    format!(
                        "places model `{file}` past 1e9 from the origin (a corner of its box at {corner})"
                    ),
                    "keep every instance of the model within 1e9 of the origin",
                )),
                None if !ranges::placement_invertible(&to_world) => Some((
                    format!(
                        "stretches model `{file}` too unevenly for 32-bit floats to undo (the renderers take rays into the model's space)"
                    ),
                    UNEVEN_HINT,
                )),
                None => uneven_part(&to_world, &mesh.data).map(|(m, j)| {
                    (
                        format!(
                            "stretches glTF mesh {m} of model `{file}`, as its node placement {j} in the file places it, too unevenly for 32-bit floats to undo (the renderers take rays into the mesh's space)"
                        ),
                        UNEVEN_HINT,
                    )
                }),
            }
        };
        let count = mesh.placement_count();
        let Some(k) = first_problem(moved, count, |k| problem(k).is_some()) else { return };
        let (why, hint) = problem(k).unwrap_or_default();
        let field = |name: &'static str| path.index(i).field(name);
        let outer = if mesh.transform == Transform::default() { "" } else { " and the mesh's `transform`" };
        let issue = match k.checked_sub(mesh.instances.len()) {
            None => self.report(
                &|| field("instances").index(k),
                format!("instance {k} of `instances`{outer} {why}"),
                "out of range",
            ),
            Some(v) => {
                let name = mesh.instance_file.as_deref().unwrap_or_default();
                self.report(
                    &|| field("instance_file"),
                    format!("cannot use instance_file `{name}`: vertex {v}{outer} {why}"),
                    "this file",
                )
            }
        };
        issue.set_hint(hint);
    }

    /// Checks every sphere file entry: its placement, its materials, and its spheres
    /// against both. `own`: how many spheres the scene has in `spheres`.
    pub(super) fn sphere_files(&mut self, path: &ValuePath, lists: &[SphereList], own: usize) {
        for (i, list) in lists.iter().enumerate() {
            let field = |name: &'static str| move || path.index(i).field(name);
            let transform_ok = self.transform(&field("transform"), &list.transform)
                && self.sphere_scale(&field("transform"), &list.transform);
            for (k, &m) in list.materials.iter().enumerate() {
                self.material(&|| field("materials")().index(k), m, " in a sphere file's `materials`");
            }
            if !list.data.is_unread()
                && self.sphere_materials(path, i, &list.file, &list.data, list.materials.len())
                && transform_ok
            {
                self.sphere_placement(&field("transform"), &list.file, &list.transform, &list.data);
            }
        }
        let total = own + SphereList::primitives(lists);
        if !lists.is_empty() && total > limits::MAX_SPHERES {
            let message = format!(
                "too many spheres: {total} in `spheres` and the sphere files, at most {} are supported",
                limits::MAX_SPHERES
            );
            self.report(&|| path.clone(), message, "too many spheres");
        }
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

    /// A sphere file's spheres stay within range where `transform` places them.
    fn sphere_placement(&mut self, at: At, file: &str, transform: &Transform, data: &SphereListData) {
        let problem = |s: &super::Sphere| {
            let placed = transform.place(s);
            ranges::sphere_problem(placed.center, placed.radius)
        };
        if let Some((v, why)) = find_first::problem(&data.spheres, problem) {
            let message =
                format!("vertex {v} of sphere file `{file}`, placed by this `transform`, is unusable: {why}");
            self.report(at, message, "out of range").set_hint("spheres stay within 1e9 of the origin");
        }
    }

    /// Checks every terrain: its placement, its surface, and (its image read) whether
    /// 32-bit floats tell its columns apart.
    pub(super) fn terrains(&mut self, path: &ValuePath, terrains: &[Terrain]) {
        for (i, t) in terrains.iter().enumerate() {
            let field = |name: &'static str| move || path.index(i).field(name);
            let params_ok = self.terrain_params(path, i, t.origin, t.cell, t.height_scale);
            let both = self.text.is_some_and(|w| w.terrains_with_both.contains(&i));
            match &t.surface {
                _ if both => {
                    self.report(
                        &field("palette"),
                        "a terrain has a `material` or a `palette`, not both",
                        "second choice",
                    )
                    .set_hint(
                        "remove `material` to colour the columns by height, or `palette` for one material",
                    );
                }
                TerrainSurface::Material(m) => self.material(&field("material"), *m, ""),
                TerrainSurface::Palette(bands) if bands.is_empty() => {
                    self.report(
                        &field("image"),
                        "a terrain needs a `material` or a `palette`",
                        "no material",
                    )
                    .set_hint("add e.g. `material: \"concrete\"`");
                }
                TerrainSurface::Palette(bands) => {
                    let at = field("palette");
                    for (k, band) in bands.iter().enumerate() {
                        self.band_from(&at, k, band.from, k.checked_sub(1).map(|p| bands[p].from));
                        self.material(&|| at().index(k).field("material"), band.material, "");
                    }
                }
            }
            if params_ok && !t.heights.is_unread() {
                self.resolvable(&field("cell"), t.origin, t.cell, t.height_scale, &t.heights);
            }
        }
    }

    /// Terrain `i`'s placement: a finite origin, a positive cell size and height scale.
    fn terrain_params(
        &mut self,
        path: &ValuePath,
        i: usize,
        origin: Vec3,
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
    fn resolvable(&mut self, at: At, origin: Vec3, cell: f32, height_scale: f32, heights: &Heightmap) {
        let reach = origin.abs().max_element()
            + (heights.width.max(heights.depth) as f32 * cell)
                .max(heights.values.iter().max().copied().unwrap_or(0) as f32 * height_scale);
        // NaN is not in range either.
        if !(0.0..=ranges::MAX_COORDINATE).contains(&reach) {
            let message =
                format!("the terrain reaches {reach} from the origin, past the 1e9 coordinates may have");
            self.report(at, message, "out of range").set_hint("use a smaller `cell` or `height_scale`");
            return;
        }
        // Four ulps of slack: the kernels' hit offsets are a few ulps.
        if reach * f32::EPSILON * 4.0 >= cell.min(height_scale) {
            let message = format!(
                "terrain `cell` {cell} and `height_scale` {height_scale} are too fine for a terrain reaching {reach} from the origin"
            );
            self.report(at, message, "too small here")
                .set_hint("32-bit floats cannot tell the columns apart: move the terrain nearer the origin or use larger cells");
        }
    }

    /// Band `k`'s `from`: finite, and above the previous band's.
    fn band_from(&mut self, at: At, k: usize, from: f32, previous: Option<f32>) {
        let field = || at().index(k).field("from");
        if !self.finite(from, "palette band `from`", &field) {
            return;
        }
        if let Some(previous) = previous.filter(|&p| from <= p) {
            let message =
                format!("palette bands must ascend: `from` {from} is not above the band before's {previous}");
            self.report(&field, message, "not ascending")
                .set_hint("list the bands from the lowest to the highest");
        }
    }

    fn lights(&mut self, path: &ValuePath, lights: &[Light]) {
        self.count(path, "lights", lights.len(), limits::MAX_LIGHTS);
        let mut suns = 0;
        for (i, light) in lights.iter().enumerate() {
            let field = |name: &'static str| move || path.index(i).field(name);
            let (color, intensity) = match *light {
                Light::Point { position, color, intensity } => {
                    self.coordinate3(position, "light `position`", &field("position"));
                    (color, intensity)
                }
                Light::Directional { direction, color, intensity, angular_radius_deg } => {
                    let usable = direction.normalize_or_zero() != Vec3::ZERO;
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
