//! The validated in-memory scene: what the loader produces and the compiler consumes.
//!
//! Every value here has passed validation (finite, in range, names resolved to
//! indices), so later stages never re-check. Field names match the RON format
//! (docs/scene-format.md) so a reader can hold one against the other. What serde's
//! derive cannot say about a model type's text is its private part [`text`].

pub(crate) mod text;

use std::path::PathBuf;
use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};

use serde::{Deserialize, Serialize};

use super::material::MaterialKind;
use super::ply_points::PlyEncoding;
use super::values;
use crate::records::layout::{NO_NORMAL, VertexRecord, VertexUvRecord};

/// Hands `$then!` the [`Scene`]'s lists of primitives and of their sources, each as
/// `name: Type` with the field's attributes (its doc comment, and any serde attribute of
/// its own): first those a scene file writes, in the order it writes them (each item
/// type implements `ListItem`, `list.rs`), then those only compiling fills. The one list
/// of them: the `Scene`'s fields (and so the text's, both ways), the checks, the
/// resolution of material names and the schema tests are generated from it
/// (docs/architecture.md, "Adding a shape").
#[macro_export]
macro_rules! scene_lists {
    ($then:ident) => {
        $then! {
            written {
                /// The spheres the user wrote; sphere files add theirs when compiled.
                spheres: $crate::scene::Sphere,
                /// Spheres read from PLY point lists; compiling places them after `spheres`.
                /// A scene file names the files, so `to_ron` writes the names, never these
                /// spheres.
                sphere_files: $crate::scene::SphereList,
                /// Axis-aligned boxes the user wrote; terrains add theirs when compiled.
                boxes: $crate::scene::Cuboid,
                #[serde(with = "text::terrains")]
                terrains: $crate::scene::Terrain,
                /// Triangle meshes read from model files; compiling turns them into triangles.
                meshes: $crate::scene::Mesh,
            }
            compiled {
                /// The world's triangles (their vertices in `vertices`): what compiling makes of the meshes, and what a
                /// scene read back from a blob holds instead of its meshes. A scene file
                /// cannot write them (it names model files), so `to_ron` leaves them out.
                triangles: $crate::scene::Triangle,
                /// Placed copies of bottom levels: what compiling makes of meshes with
                /// `instances`, an `instance_file`, or glTF meshes that several nodes place.
                instances: $crate::scene::Instance,
                /// The instanced meshes' triangles in their own space, one list per
                /// distinct mesh, each built into its own tree (`Instance::bottom_level`).
                bottom_levels: $crate::scene::BottomLevel,
            }
        }
    };
}

/// Declares [`Scene`] with the lists that [`scene_lists!`](crate::scene_lists) names.
macro_rules! declare_scene {
    (
        written { $($(#[$written_doc:meta])* $written:ident: $W:ty,)* }
        compiled { $($(#[$compiled_doc:meta])* $compiled:ident: $C:ty,)* }
    ) => {
        /// A scene after parsing and validation.
        ///
        /// `Scene::default()` is the start of a scene built in code, so that it names
        /// only the lists it fills (`Scene { spheres, ..Scene::default() }`) and a list
        /// added to the format touches none of them: the default camera, settings and
        /// sky, no materials and every list empty. It is not a valid scene until it has
        /// a primitive.
        ///
        /// Its lists of shapes and of their sources, between `materials` and `lights`,
        /// are those `scene_lists!` (`shapes/mod.rs`) names, documented there.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename = "Scene", deny_unknown_fields)]
        pub struct Scene {
            pub camera: Camera,
            #[serde(default)]
            pub settings: RenderSettings,
            #[serde(default, with = "text::variants")]
            pub sky: Sky,
            #[serde(with = "text::materials")]
            pub materials: Vec<Material>,
            $(
                $(#[$written_doc])*
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                pub $written: Vec<$W>,
            )*
            $($(#[$compiled_doc])* #[serde(skip)] pub $compiled: Vec<$C>,)*
            /// The vertices the triangles index.
            #[serde(skip)]
            pub vertices: Vertices,
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub lights: Vec<Light>,
        }
    };
}

crate::scene_lists!(declare_scene);

/// A sphere; `material` indexes [`Scene::materials`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Sphere", deny_unknown_fields)]
pub struct Sphere {
    #[serde(with = "values::v3")]
    pub center: Vec3,
    pub radius: f32,
    #[serde(with = "text::material")]
    pub material: u32,
}

/// An axis-aligned box (`boxes: [(min: ..., max: ..., material: ...)]`); `min < max`
/// on every axis. Not `Box`, which Rust already means.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Box", deny_unknown_fields)]
pub struct Cuboid {
    #[serde(with = "values::v3")]
    pub min: Vec3,
    #[serde(with = "values::v3")]
    pub max: Vec3,
    #[serde(with = "text::material")]
    pub material: u32,
}

/// A triangle of a mesh: the indices of its vertices in its list's [`Vertices`] (the
/// scene's, or its bottom level's); `material` indexes [`Scene::materials`]. Its
/// winding gives its outward normal, `(v1 - v0) × (v2 - v0)`; its vertices' normals,
/// when its mesh has them, only shade (docs/path-tracing.md, "Shading normals").
/// `tangents`, its corners' tangents (`crate::tangents`: xyz unit, w the bitangent
/// sign) when its material has a normal map and its mesh has tangents or texture
/// coordinates: per corner, since MikkTSpace splits a vertex where the texture's seams
/// are. Boxed: a triangle without them (of every scene without normal maps) pays one
/// pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct Triangle {
    pub v: [u32; 3],
    pub material: u32,
    pub tangents: Option<Box<[Vec4; 3]>>,
}

/// The vertices a list of triangles indexes (the world's, or a bottom level's), as the
/// blob stores them (docs/blob-format.md, "Triangles"): what compiling makes of the
/// meshes' vertices, each mesh's in its file's order, placed (the world's) or in its
/// own space (a bottom level's). Equal when their bytes are (the NaNs of missing
/// texture coordinates included).
#[derive(Clone, Debug, Default)]
pub struct Vertices {
    /// Positions and octahedral-coded normals ([`crate::records::normal`];
    /// `NO_NORMAL` for a mesh without normals).
    pub records: Vec<VertexRecord>,
    /// Texture coordinates, one per record, or none when no mesh has them (NaN for
    /// the vertices of a mesh without them).
    pub uvs: Vec<VertexUvRecord>,
}

impl PartialEq for Vertices {
    fn eq(&self, other: &Vertices) -> bool {
        fn bytes<T: bytemuck::Pod>(records: &[T]) -> &[u8] {
            bytemuck::cast_slice(records)
        }
        bytes(&self.records) == bytes(&other.records) && bytes(&self.uvs) == bytes(&other.uvs)
    }
}

impl Vertices {
    /// Vertex `i`'s position.
    pub fn position(&self, i: u32) -> Vec3 {
        Vec3::from_array(self.records[i as usize].position)
    }

    /// A triangle's corners.
    pub fn corners(&self, t: &Triangle) -> [Vec3; 3] {
        t.v.map(|i| self.position(i))
    }

    /// A triangle's texture coordinates, when its mesh has them.
    pub fn triangle_uvs(&self, t: &Triangle) -> Option<[Vec2; 3]> {
        let uv = |i: u32| self.uvs.get(i as usize).and_then(VertexUvRecord::get).map(Vec2::from_array);
        Some([uv(t.v[0])?, uv(t.v[1])?, uv(t.v[2])?])
    }

    /// The largest magnitude of any coordinate.
    pub fn reach(&self) -> f32 {
        self.records.iter().flat_map(|r| r.position).fold(0.0f32, |m, x| m.max(x.abs()))
    }

    /// Appends a mesh's vertices (normals and texture coordinates either one per
    /// position or none) on all cores, and returns the index of the first.
    pub fn append(&mut self, positions: &[Vec3], normals: &[Vec3], uvs: &[Vec2]) -> u32 {
        use rayon::prelude::*;
        let first = self.records.len();
        let normal = |i: usize| normals.get(i).map_or(NO_NORMAL, |&n| crate::records::normal::encode(n));
        let records = positions
            .par_iter()
            .enumerate()
            .map(|(i, p)| VertexRecord { position: p.to_array(), normal: normal(i) });
        self.records.par_extend(records);
        // Coordinates for every vertex once some mesh has them: NaN for the others'.
        if !uvs.is_empty() || !self.uvs.is_empty() {
            self.uvs.resize(first, VertexUvRecord::NONE);
            self.uvs.extend(uvs.iter().map(|uv| VertexUvRecord { uv: uv.to_array() }));
            self.uvs.resize(self.records.len(), VertexUvRecord::NONE);
        }
        u32::try_from(first).expect("scene limits keep vertex counts below 2^32")
    }
}

/// A thin-lens camera; `aperture == 0` is a pinhole.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Camera", deny_unknown_fields)]
pub struct Camera {
    #[serde(with = "values::v3")]
    pub look_from: Vec3,
    #[serde(with = "values::v3")]
    pub look_at: Vec3,
    #[serde(with = "values::v3", default = "values::up")]
    pub up: Vec3,
    pub vfov_deg: f32,
    #[serde(default)]
    pub aperture: f32,
    /// A file may leave it out: then it is `|look_at - look_from|`.
    #[serde(default, deserialize_with = "text::focus_dist")]
    pub focus_dist: f32,
}

impl Default for Camera {
    /// The first camera of "Ray Tracing in One Weekend": a pinhole at the origin looking
    /// down -z with a 90° field of view, focused on `look_at`.
    fn default() -> Camera {
        Camera {
            look_from: Vec3::ZERO,
            look_at: Vec3::NEG_Z,
            up: Vec3::Y,
            vfov_deg: 90.0,
            aperture: 0.0,
            focus_dist: 1.0,
        }
    }
}

/// Render defaults stored with the scene; the renderer's flags override them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Settings", default, deny_unknown_fields)]
pub struct RenderSettings {
    pub width: u32,
    pub height: u32,
    pub spp: u32,
    pub max_depth: u32,
    pub seed: u32,
    /// Exposure in stops: the linear image is multiplied by `2^exposure` before the view
    /// transform. Applied when an 8-bit image is made (PNG, the editor), never to EXR.
    /// Like `view` and `sampler`, written only away from its default: a scene that
    /// never set them saves as it did before they existed.
    #[serde(skip_serializing_if = "values::is_zero")]
    pub exposure: f32,
    /// How the exposed linear image becomes display values (PNG, the editor).
    #[serde(skip_serializing_if = "values::is_default")]
    pub view: ViewTransform,
    /// How the sample points of a pixel's paths are drawn.
    #[serde(skip_serializing_if = "values::is_default")]
    pub sampler: SamplerKind,
}

impl RenderSettings {
    /// What a scene file that leaves `settings` (or any of them) out renders with:
    /// 1280 x 720, 30 samples per pixel, paths of up to 50 bounces, seed 0,
    /// exposure 0, the Standard view and independent samples. A `const`, so constant
    /// settings can be written `RenderSettings { spp: 4, ..RenderSettings::DEFAULT }`.
    pub const DEFAULT: RenderSettings = RenderSettings {
        width: 1280,
        height: 720,
        spp: 30,
        max_depth: 50,
        seed: 0,
        exposure: 0.0,
        view: ViewTransform::Standard,
        sampler: SamplerKind::Independent,
    };

    /// The settings with the exposure and view of `display` (what an 8-bit image looks
    /// like); everything that decides the samples stays.
    pub fn with_display_of(self, display: &RenderSettings) -> RenderSettings {
        RenderSettings { exposure: display.exposure, view: display.view, ..self }
    }
}

impl Default for RenderSettings {
    /// [`RenderSettings::DEFAULT`].
    fn default() -> RenderSettings {
        RenderSettings::DEFAULT
    }
}

/// The view transform: how exposed linear radiance becomes the display values of an
/// 8-bit image (docs/path-tracing.md, "Accumulation and output"). A display transform
/// only: the film, EXR files and partial films hold linear radiance whatever the view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename = "View")]
pub enum ViewTransform {
    /// Gamma 2.0 (`sqrt`, clipped at 1), the "Ray Tracing in One Weekend" convention,
    /// which approximates the sRGB curve: the project's images and benchmarks before
    /// view transforms, unchanged.
    #[default]
    Standard,
    /// Blender's AgX base view for an sRGB display (look "None"), in Benjamin
    /// Wrensch's minimal fit (iolite, 2023): highlights roll off towards white and
    /// saturated colours desaturate instead of clipping.
    Agx,
    /// John Hable's filmic curve ("Uncharted 2: HDR Lighting", GDC 2010; his published
    /// constants, white point 11.2, exposure bias 2) then the sRGB encoding. Not
    /// Blender's LUT-based Filmic, whose tables the project does not ship.
    Filmic,
}

impl ViewTransform {
    /// Every view, in the order the format lists them.
    pub const ALL: [ViewTransform; 3] = [ViewTransform::Standard, ViewTransform::Agx, ViewTransform::Filmic];

    /// The name a scene file writes (`view: Agx`).
    pub fn name(self) -> &'static str {
        match self {
            ViewTransform::Standard => "Standard",
            ViewTransform::Agx => "Agx",
            ViewTransform::Filmic => "Filmic",
        }
    }
}

/// How a path's random numbers are drawn (docs/path-tracing.md, "Random numbers").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename = "Sampler")]
pub enum SamplerKind {
    /// Independent uniform numbers from the per-(pixel, sample) PCG stream.
    #[default]
    Independent,
    /// A low-discrepancy Sobol sequence per pixel, scrambled so pixels decorrelate, whose
    /// points depend on the sample index alone (not on how samples are batched).
    Sobol,
}

impl SamplerKind {
    /// Every sampler, in the order the format lists them.
    pub const ALL: [SamplerKind; 2] = [SamplerKind::Independent, SamplerKind::Sobol];

    /// The name a scene file writes (`sampler: Sobol`).
    pub fn name(self) -> &'static str {
        match self {
            SamplerKind::Independent => "Independent",
            SamplerKind::Sobol => "Sobol",
        }
    }
}

/// Radiance seen by rays that leave the scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Sky", deny_unknown_fields)]
pub enum Sky {
    /// RTIOW gradient: `lerp(bottom, top, 0.5 * (normalize(dir).y + 1))`.
    Gradient {
        #[serde(with = "values::v3")]
        bottom: Vec3,
        #[serde(with = "values::v3")]
        top: Vec3,
    },
    Constant(#[serde(with = "values::v3")] Vec3),
    /// An equirectangular image around the scene, sampled as a light.
    Environment(Environment),
}

/// `sky: Environment(image: ..., strength: ..., rotation_deg: ...)`: radiance from an
/// equirectangular image (Mitsuba's `envmap` convention, docs/path-tracing.md,
/// "Environment").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Environment", deny_unknown_fields)]
pub struct Environment {
    /// The image as the scene file names it (relative to the file's folder; empty for
    /// a scene read back from a blob).
    pub image: String,
    /// The image's texels, read when the scene was loaded.
    #[serde(skip)]
    pub data: Arc<EnvImage>,
    /// Multiplies every texel.
    #[serde(default = "values::one")]
    pub strength: f32,
    /// Rotation of the image about +Y, in degrees (right-handed).
    #[serde(default)]
    pub rotation_deg: f32,
}

/// An environment image in linear RGB, row 0 the top (+Y) row. The default has no
/// texels: an image named by a scene and not read yet.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnvImage {
    /// The file it was read from, as opened: what a live session watches (empty for a
    /// scene read back from a blob).
    pub path: PathBuf,
    pub width: u32,
    pub height: u32,
    /// `width * height` texels, finite and non-negative.
    pub texels: Vec<[f32; 3]>,
}

impl EnvImage {
    /// Whether it is the default, not read (a read image has texels).
    pub fn is_unread(&self) -> bool {
        self.texels.is_empty()
    }
}

impl Default for Sky {
    /// The RTIOW sky, also a file's when it leaves `sky` out: white at the horizon,
    /// light blue overhead.
    fn default() -> Sky {
        Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) }
    }
}

/// A named material; spheres refer to it by index into [`Scene::materials`].
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: String,
    pub kind: MaterialKind,
    /// Multiplies the colour of a Lambert, Metal or Emissive material (its albedo; an
    /// emitter's emission too) or a Principled's base colour (and alpha); never set on a
    /// Dielectric.
    pub texture: Option<Texture>,
    /// A Principled's other textures; empty for the other kinds.
    pub maps: Maps,
}

impl Material {
    /// An untextured material.
    pub fn new(name: impl Into<String>, kind: MaterialKind) -> Material {
        Material { name: name.into(), kind, texture: None, maps: Maps::default() }
    }

    /// Every texture it has: the colour texture, then its maps.
    pub fn all_textures(&self) -> impl Iterator<Item = &Texture> {
        self.texture.iter().chain(self.maps.slots().into_iter().flatten())
    }
}

/// A Principled material's textures besides its base colour (docs/scene-format.md,
/// "Principled"): the data ones (metallic-roughness, normal) are read without sRGB
/// decoding.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Maps {
    /// glTF's channels: G roughness, B metallic (multiplying the factors).
    pub metallic_roughness: Option<Texture>,
    /// Multiplies the emission.
    pub emission: Option<Texture>,
    /// A tangent-space normal map (OpenGL convention, +Y up, as glTF).
    pub normal: Option<Texture>,
}

impl Maps {
    /// The maps in `material::MAP_FIELDS` order.
    pub fn slots(&self) -> [Option<&Texture>; 3] {
        [self.metallic_roughness.as_ref(), self.emission.as_ref(), self.normal.as_ref()]
    }

    /// As [`Maps::slots`], to change them.
    pub fn slots_mut(&mut self) -> [&mut Option<Texture>; 3] {
        [&mut self.metallic_roughness, &mut self.emission, &mut self.normal]
    }

    /// Built from [`Maps::slots`]' order.
    pub fn from_slots([metallic_roughness, emission, normal]: [Option<Texture>; 3]) -> Maps {
        Maps { metallic_roughness, emission, normal }
    }

    /// Whether a map of slot `i` holds data (read linear) rather than a colour.
    pub fn is_data(i: usize) -> bool {
        i != 1
    }
}

/// A colour that varies over a surface (docs/scene-format.md, "Textures").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Texture", deny_unknown_fields)]
pub enum Texture {
    /// An image looked up at the surface's texture coordinates moved by `uv_transform`,
    /// filtered bilinearly.
    Image {
        /// Relative to the scene file's folder.
        file: String,
        /// Read when the scene is loaded.
        #[serde(skip, default = "unread_image")]
        image: Arc<TextureImage>,
        #[serde(default, skip_serializing_if = "values::is_default")]
        wrap: Wrap,
        #[serde(default, skip_serializing_if = "UvTransform::is_identity")]
        uv_transform: UvTransform,
    },
    /// Solid cubes of edge `size`: the cell `floor(p / size)` is `even` when the sum of
    /// its three integers is even, else `odd`.
    Checker {
        size: f32,
        #[serde(with = "values::v3")]
        even: Vec3,
        #[serde(with = "values::v3")]
        odd: Vec3,
    },
    /// Perlin turbulence ("The Next Week"): `0.5 (1 + sin(scale p.z + 10 turb(p)))`.
    Noise { scale: f32 },
}

impl Texture {
    /// An image texture that names `file` but has not read it yet
    /// ([`TextureImage::unread`]): what an editor makes when the user names another
    /// image. [`crate::scene::read_inputs`] reads it, as a scene file's is read.
    pub fn image_to_read(file: impl Into<String>, wrap: Wrap, uv_transform: UvTransform) -> Texture {
        Texture::Image { file: file.into(), image: Arc::new(TextureImage::unread()), wrap, uv_transform }
    }
}

/// Where an image texture is looked up: glTF's `KHR_texture_transform`, the texture
/// coordinates (u, v) (v = 0 at the image's top row, glTF's convention) taken to
/// `T(offset) R(rotation) S(scale) (u, v, 1)` (docs/scene-format.md, "Textures").
/// A file writes only the fields away from the identity's, so a texture that only
/// repeats says only `scale: (4.0, 4.0)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "UvTransform", default, deny_unknown_fields)]
pub struct UvTransform {
    #[serde(with = "values::v2", skip_serializing_if = "values::is_default")]
    pub offset: Vec2,
    /// Degrees (glTF writes radians); positive turns the coordinates counter-clockwise as
    /// the image is seen, v down, so the image appears turned clockwise.
    #[serde(skip_serializing_if = "values::is_zero")]
    pub rotation_deg: f32,
    #[serde(with = "values::v2", skip_serializing_if = "unscaled")]
    pub scale: Vec2,
}

/// Whether a uv transform's `scale` is the identity's.
fn unscaled(scale: &Vec2) -> bool {
    *scale == Vec2::ONE
}

impl Default for UvTransform {
    fn default() -> UvTransform {
        UvTransform::IDENTITY
    }
}

impl UvTransform {
    /// Looks the image up at the coordinates as they are.
    pub const IDENTITY: UvTransform = UvTransform { offset: Vec2::ZERO, rotation_deg: 0.0, scale: Vec2::ONE };

    /// Whether it leaves the coordinates as they are (what a file need not write).
    pub fn is_identity(&self) -> bool {
        *self == UvTransform::IDENTITY
    }

    /// Its rows as the blob stores them (`TextureRecord` lanes `a` and `b`): u' = row 0 ·
    /// (u, v, 1), v' = row 1 · (u, v, 1), with R = [[cos, sin], [-sin, cos]], the
    /// extension README's rotation as written there and as Blender's glTF exporter
    /// (`texture_transform_blender_to_gltf`) and three.js apply it. Computed in f64 and
    /// rounded once; a quarter turn is exact, so a rotated image's texel centres land
    /// where the unrotated image's do.
    pub fn rows(&self) -> [[f32; 3]; 2] {
        let turn = f64::from(self.rotation_deg) % 360.0;
        let (sin, cos) = if turn % 90.0 == 0.0 {
            // 0, ±90, ±180, ±270 degrees: the exact sines and cosines.
            let quarter = (turn / 90.0).rem_euclid(4.0) as u8;
            [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)][usize::from(quarter)]
        } else {
            turn.to_radians().sin_cos()
        };
        let (sx, sy) = (f64::from(self.scale.x), f64::from(self.scale.y));
        [
            [(cos * sx) as f32, (sin * sy) as f32, self.offset.x],
            // 0 - x, not -x: no negative zero in an unrotated image's row.
            [(0.0 - sin * sx) as f32, (cos * sy) as f32, self.offset.y],
        ]
    }

    /// The transform whose [`UvTransform::rows`] are `rows`, up to rounding (for a scene
    /// read back from a blob): a rotation and a scale per axis. Rows with a shear, which
    /// the compiler never writes, come back as the nearest such transform.
    pub fn from_rows(rows: [[f32; 3]; 2]) -> UvTransform {
        let [[m00, m01, _], [m10, m11, _]] = rows.map(|r| r.map(f64::from));
        // Column 0 is sx (cos, -sin), column 1 sy (sin, cos): the angle from the longer.
        let (sx_len, sy_len) = (m00.hypot(m10), m01.hypot(m11));
        let angle = if sx_len >= sy_len { (-m10).atan2(m00) } else { m01.atan2(m11) };
        let (sin, cos) = angle.sin_cos();
        let (sx, sy) = (cos * m00 - sin * m10, sin * m01 + cos * m11);
        UvTransform {
            offset: Vec2::new(rows[0][2], rows[1][2]),
            rotation_deg: angle.to_degrees() as f32,
            scale: Vec2::new(sx as f32, sy as f32),
        }
    }
}

/// How image lookups outside [0, 1) behave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Wrap")]
pub enum Wrap {
    #[default]
    Repeat,
    Clamp,
}

/// An image's texels, linear RGB, row by row from the top (`scene/texture_file.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct TextureImage {
    /// The file it was read from (for a glTF model's embedded image, the model file):
    /// what a live session watches.
    pub path: PathBuf,
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[f32; 3]>,
    /// Per texel, the image's alpha channel; empty for an image without one (opaque).
    pub alpha: Vec<f32>,
}

impl TextureImage {
    /// No texels, no file: an image named by an edit and not read yet
    /// ([`Texture::image_to_read`]). A scene holding one does not validate.
    pub fn unread() -> TextureImage {
        TextureImage { path: PathBuf::new(), width: 0, height: 0, texels: Vec::new(), alpha: Vec::new() }
    }

    /// Whether this is an [`TextureImage::unread`] image (a read image has texels).
    pub fn is_unread(&self) -> bool {
        self.texels.is_empty()
    }
}

/// What a scene file's image texture holds until its image is read.
fn unread_image() -> Arc<TextureImage> {
    Arc::new(TextureImage::unread())
}

/// A sphere file placed in the scene (`sphere_files: [(file: ..., materials: [...], transform: ...)]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "SphereFile", deny_unknown_fields)]
pub struct SphereList {
    /// The file as the scene names it (relative to the scene file's folder).
    pub file: String,
    /// Indices into [`Scene::materials`]; a sphere's `material` in the file picks one.
    #[serde(with = "text::material::list")]
    pub materials: Vec<u32>,
    /// Scale, rotation, translation, as a mesh's, but with a scale of one size on every
    /// axis (which multiplies every radius; a sign per axis mirrors the centers): a
    /// sphere stretched would not be a sphere. Written only when it is not the identity.
    #[serde(default, skip_serializing_if = "values::is_default")]
    pub transform: Transform,
    /// The file's spheres, read when the scene was loaded.
    #[serde(skip)]
    pub data: Arc<SphereListData>,
}

/// A sphere file's spheres as read (`scene/sphere_file.rs`), in the file's order and
/// space; each `material` indexes its [`SphereList::materials`]. The default has no
/// spheres: a file named by a scene and not read yet.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SphereListData {
    /// The file as opened (the scene's folder joined with the name): what a live
    /// session watches.
    pub path: PathBuf,
    pub spheres: Vec<Sphere>,
    /// Whether the file has a `material` property (without one, every `material` is 0).
    pub has_material: bool,
}

impl SphereListData {
    /// Whether it is the default, not read (a sphere file has a sphere).
    pub fn is_unread(&self) -> bool {
        self.spheres.is_empty()
    }
}

/// A heightmap terrain: pixel `(x, z)` of the image with value `v > 0` is a column of
/// `cell x v * height_scale x cell` standing on `origin + (x * cell, 0, z * cell)`
/// (image rows run along +z). Compiling turns it into boxes (`crate::terrain`).
///
/// A file writes it as `Heightmap(...)`, with its surface as a `material` or a
/// `palette` after these fields (`model/text.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Heightmap", deny_unknown_fields)]
pub struct Terrain {
    /// The image as the scene file names it (relative to the file's folder).
    pub image: String,
    /// The image's pixels, read when the scene was loaded.
    #[serde(skip)]
    pub heights: Arc<Heightmap>,
    #[serde(default, with = "values::v3")]
    pub origin: Vec3,
    #[serde(default = "values::one")]
    pub cell: f32,
    #[serde(default = "values::one")]
    pub height_scale: f32,
    #[serde(skip, default = "no_surface")]
    pub surface: TerrainSurface,
}

/// What the columns of a terrain are made of.
#[derive(Clone, Debug, PartialEq)]
pub enum TerrainSurface {
    /// One material (index into [`Scene::materials`]) for every column.
    Material(u32),
    /// By height: a column takes the last band whose `from` is at most its height (the
    /// first band when it is below them all). Bands ascend by `from`.
    Palette(Vec<Band>),
}

/// What a terrain read from a file has until its `material` or `palette` is read.
fn no_surface() -> TerrainSurface {
    TerrainSurface::Palette(Vec::new())
}

/// One height band of a [`TerrainSurface::Palette`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Band", deny_unknown_fields)]
pub struct Band {
    /// In scene units (pixel value times `height_scale`).
    pub from: f32,
    #[serde(with = "text::material")]
    pub material: u32,
}

/// A heightmap image's pixel values, row by row: 0..=255 for an 8-bit image,
/// 0..=65535 for a 16-bit one (a colour image's luma). The default has no pixels: an
/// image named by a scene and not read yet.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Heightmap {
    /// The file it was read from, as opened (the scene's folder joined with the name):
    /// what a live session watches.
    pub path: PathBuf,
    pub width: u32,
    pub depth: u32,
    pub values: Vec<u16>,
}

impl Heightmap {
    /// The value of pixel `(x, z)`.
    pub fn value(&self, x: u32, z: u32) -> u16 {
        self.values[(z * self.width + x) as usize]
    }

    /// Pixels above zero: the columns before merging.
    pub fn raised(&self) -> usize {
        self.values.iter().filter(|&&v| v > 0).count()
    }

    /// Whether it is the default, not read (an image has a pixel).
    pub fn is_unread(&self) -> bool {
        self.values.is_empty()
    }
}

impl Scene {
    /// Every file the scene read besides itself (terrain images, model files, instance
    /// files, sphere files, texture images, those a model's materials name included,
    /// the environment image): what a live session watches.
    pub fn input_files(&self) -> Vec<&std::path::Path> {
        fn image(t: &Texture) -> Option<&std::path::Path> {
            match t {
                Texture::Image { image, .. } => Some(image.path.as_path()),
                _ => None,
            }
        }
        let mut files: Vec<&std::path::Path> =
            self.terrains.iter().map(|t| t.heights.path.as_path()).collect();
        files.extend(self.meshes.iter().map(|m| m.data.path.as_path()));
        files.extend(self.meshes.iter().map(|m| m.placements.path.as_path()));
        files.extend(self.sphere_files.iter().map(|l| l.data.path.as_path()));
        let model_textures = self
            .meshes
            .iter()
            .flat_map(|m| &m.data.materials)
            .flat_map(|m| m.texture.iter().chain(m.maps.slots().into_iter().flatten()));
        files.extend(
            self.materials.iter().flat_map(Material::all_textures).chain(model_textures).filter_map(image),
        );
        if let Sky::Environment(env) = &self.sky {
            files.push(env.data.path.as_path());
        }
        // A scene read back from a blob names no image files.
        files.retain(|f| !f.as_os_str().is_empty());
        files.sort();
        files.dedup();
        files
    }
}

/// A model file placed in the scene (`meshes: [(file: ..., material: ..., transform: ...)]`).
/// `Mesh::default()` names no file and has nothing read: code that builds one names what
/// it fills.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Mesh", deny_unknown_fields)]
pub struct Mesh {
    /// The file as the scene names it (relative to the scene file's folder).
    pub file: String,
    /// Index into [`Scene::materials`]: every triangle's material. `None`: the model's
    /// own materials ([`MeshData::materials`]), which compiling appends to the scene's.
    #[serde(default, with = "text::material::option", skip_serializing_if = "Option::is_none")]
    pub material: Option<u32>,
    /// Written only when it is not the identity. With `instances` or an
    /// `instance_file`, it applies after each instance's own.
    #[serde(default, skip_serializing_if = "values::is_default")]
    pub transform: Transform,
    /// Copies of the model, each placed by its own transform (then `transform`), and
    /// with its own `material` when it names one: the model is stored and built once,
    /// however many there are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<PlacedInstance>,
    /// A PLY file of more instances (docs/scene-format.md, "Instance files"), placed
    /// after `instances`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_file: Option<String>,
    /// The file's triangles, read when the scene was loaded.
    #[serde(skip)]
    pub data: Arc<MeshData>,
    /// The instance file's placements, read when the scene was loaded (empty without one).
    #[serde(skip)]
    pub placements: Arc<InstanceFileData>,
}

impl Mesh {
    /// Whether the model is instanced rather than flattened into the world's triangles.
    pub fn is_instanced(&self) -> bool {
        !self.instances.is_empty() || self.instance_file.is_some()
    }

    /// Every placement of the model in the world, each with the material that replaces
    /// the mesh's (an instance's `material`), in order: `instances`, then the
    /// instance file's; a mesh without either has its `transform` alone.
    pub fn placements(&self) -> Vec<(glam::Affine3A, Option<u32>)> {
        use rayon::prelude::*;
        let outer = self.transform.matrix();
        (0..self.placement_count()).into_par_iter().map(|k| self.placement_after(&outer, k)).collect()
    }

    /// How many placements [`Mesh::placements`] lists: 1 for a mesh that is not
    /// instanced.
    pub fn placement_count(&self) -> usize {
        if self.is_instanced() { self.instances.len() + self.placements.instances.len() } else { 1 }
    }

    /// Placement `k` of [`Mesh::placements`], made alone (validation looks at a million
    /// of them without listing them); `k` below [`Mesh::placement_count`].
    pub fn placement(&self, k: usize) -> (glam::Affine3A, Option<u32>) {
        self.placement_after(&self.transform.matrix(), k)
    }

    /// [`Mesh::placement`] given its `transform`'s matrix, `outer`, made once for all of
    /// them (at 10^6 instances, building it for each doubled the matrices' cost).
    pub fn placement_after(&self, outer: &glam::Affine3A, k: usize) -> (glam::Affine3A, Option<u32>) {
        if !self.is_instanced() {
            return (*outer, None);
        }
        match self.instances.get(k) {
            Some(p) => (*outer * p.transform.matrix(), p.material),
            None => {
                let p = &self.placements.instances[k - self.instances.len()];
                (*outer * p.transform.matrix(), p.material)
            }
        }
    }

    /// Its instances: its placements when it is instanced, else none; what validation
    /// counts against `limits::MAX_INSTANCES`. (glTF meshes that its file places several
    /// times, `MeshData::instanced`, are not among them.)
    pub fn instance_count(&self) -> usize {
        if self.is_instanced() { self.placement_count() } else { 0 }
    }
}

/// An instance file's placements (`scene/instance_file.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceFileData {
    /// The file as opened; empty when the mesh names none or it is not read yet.
    pub path: PathBuf,
    pub instances: Vec<PlacedInstance>,
    /// Whether edited instances can be written back into the file without losing
    /// anything it holds: its encoding, or why not (other elements or properties,
    /// doubles).
    pub rewrite: Result<PlyEncoding, String>,
}

impl Default for InstanceFileData {
    fn default() -> InstanceFileData {
        InstanceFileData { path: PathBuf::new(), instances: Vec::new(), rewrite: Err("not read".to_owned()) }
    }
}

impl InstanceFileData {
    /// Whether it is the default, not read (an instance file has an instance).
    pub fn is_unread(&self) -> bool {
        self.instances.is_empty()
    }
}

/// One instance of a mesh: an entry of its `instances` (written as a transform's fields
/// and an optional `material`, `model/text.rs`) or a vertex of its instance file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "text::InstanceText", into = "text::InstanceText")]
pub struct PlacedInstance {
    /// A file's `x y z`, `rx ry rz` (degrees) and `scale` (the same on every axis).
    pub transform: Transform,
    /// An index into the scene's materials, replacing the mesh's (and the model's).
    pub material: Option<u32>,
}

impl From<Transform> for PlacedInstance {
    /// An instance placed by `transform`, keeping the mesh's material.
    fn from(transform: Transform) -> PlacedInstance {
        PlacedInstance { transform, material: None }
    }
}

/// A placed copy of a bottom level ([`Scene::bottom_levels`]), made by compiling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instance {
    /// Object to world (any invertible affine map: rotation, non-uniform scale, mirror).
    pub to_world: glam::Affine3A,
    /// Index into [`Scene::bottom_levels`] (for a scene read back from a blob, which
    /// keeps no bottom levels: the tree's root link).
    pub bottom_level: u32,
    /// The material that replaces its triangles' own, if any.
    pub material: Option<u32>,
    /// The placed mesh's world-space box (its bottom level's box through `to_world`).
    pub bounds: [Vec3; 2],
}

/// An instanced mesh's triangles and vertices in its own space. Shared, so that a
/// compile that reuses the tree built over them (`compile.rs`) need not copy them.
/// Equal when both lists are shared or hold the same values.
#[derive(Clone, Debug, Default)]
pub struct BottomLevel {
    pub triangles: Arc<Vec<Triangle>>,
    pub vertices: Arc<Vertices>,
}

impl PartialEq for BottomLevel {
    fn eq(&self, other: &BottomLevel) -> bool {
        (Arc::ptr_eq(&self.triangles, &other.triangles) || self.triangles == other.triangles)
            && (Arc::ptr_eq(&self.vertices, &other.vertices) || self.vertices == other.vertices)
    }
}

/// Object to world: scale along X, Y and Z, then rotations about X, then Y, then Z
/// (degrees), then the translation. A negative scale mirrors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Transform", default, deny_unknown_fields)]
pub struct Transform {
    #[serde(with = "values::v3")]
    pub translate: Vec3,
    #[serde(with = "values::v3")]
    pub rotate_deg: Vec3,
    /// Per axis; written as one number when the axes share it.
    #[serde(with = "values::scale")]
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Transform {
        Transform { translate: Vec3::ZERO, rotate_deg: Vec3::ZERO, scale: Vec3::ONE }
    }
}

impl Transform {
    /// The matrix that applies it.
    pub fn matrix(&self) -> glam::Affine3A {
        let r = self.rotate_deg;
        let rotation =
            glam::Quat::from_euler(glam::EulerRot::ZYX, r.z.to_radians(), r.y.to_radians(), r.x.to_radians());
        glam::Affine3A::from_scale_rotation_translation(self.scale, rotation, self.translate)
    }

    /// The scale when every axis has the same one (what a file may write as one number).
    pub fn uniform_scale(&self) -> Option<f32> {
        values::scale::uniform(self.scale)
    }

    /// Where it puts sphere `s` (its material untouched): the center through the
    /// transform, the radius times the scale's size, which must be the same on every
    /// axis (a sphere file's check). The identity changes no bit, so a sphere file's
    /// spheres compile to the blob the same spheres written in RON do.
    pub fn place(&self, s: &Sphere) -> Sphere {
        if *self == Transform::default() {
            return *s;
        }
        Sphere {
            center: self.matrix().transform_point3(s.center),
            radius: s.radius * self.scale.x.abs(),
            ..*s
        }
    }
}

/// A model file's triangles in object space, as read (`scene/mesh_file.rs`). Code that
/// builds one names what it fills and takes the rest from `MeshData::default()`, which
/// has no triangles: a model named by a scene and not read yet.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// The file as opened (the scene's folder joined with the name): what a live
    /// session watches.
    pub path: PathBuf,
    pub positions: Vec<Vec3>,
    /// Unit vertex normals, one per position, or none (flat shading).
    pub normals: Vec<Vec3>,
    /// Texture coordinates, one per position, or none.
    pub uvs: Vec<glam::Vec2>,
    /// The file's vertex tangents (glTF `TANGENT`), one per position, or none: xyz unit
    /// (zero where the file's has no direction), w the bitangent sign, +1 or -1
    /// ([`MeshData::unit_tangent`]).
    pub tangents: Vec<glam::Vec4>,
    /// Three indices into `positions` (and `normals`, `uvs`) per triangle.
    pub triangles: Vec<[u32; 3]>,
    /// The model's own materials mapped to ours (docs/scene-format.md, "Model
    /// materials"); empty when the file has none (a PLY, an OBJ without MTL).
    pub materials: Vec<ModelMaterial>,
    /// Per triangle, its index into `materials`; empty when `materials` is.
    pub triangle_materials: Vec<u32>,
    /// What the mapping could not carry over, each property named once (a compile
    /// warns with them when the model's materials are used).
    pub dropped: Vec<String>,
    /// Why the model has no materials of its own, when it has none.
    pub no_materials: String,
    /// glTF meshes that several nodes place (or `EXT_mesh_gpu_instancing` does), each
    /// read once in its own space: compiling makes each a bottom level with one instance
    /// per placement. The triangles above are the nodes' meshes placed once.
    pub instanced: Vec<InstancedPart>,
}

/// A glTF mesh placed more than once in its file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InstancedPart {
    /// Its mesh's index in the file, for errors.
    pub mesh: usize,
    /// Its triangles in the mesh's own space; `triangle_materials` index the whole
    /// file's `materials` (this one's `materials` is empty).
    pub geometry: MeshData,
    /// Mesh space to file space, one per placement.
    pub placements: Vec<glam::Affine3A>,
}

impl MeshData {
    /// Whether it is the default, not read (a model has a triangle).
    pub fn is_unread(&self) -> bool {
        self.triangles.is_empty() && self.instanced.is_empty()
    }

    /// Triangles stored: the placed-once ones and each instanced part's once.
    pub fn stored_triangles(&self) -> usize {
        self.triangles.len() + self.instanced.iter().map(|p| p.geometry.triangles.len()).sum::<usize>()
    }

    /// `t` as [`MeshData::tangents`] holds one: a unit xyz and w exactly +1 or -1 (its
    /// sign; +1 for 0); none when its xyz has no direction (zero, or not finite).
    pub fn unit_tangent(t: Vec4) -> Option<Vec4> {
        Some(t.truncate().try_normalize()?.extend(if t.w < 0.0 { -1.0 } else { 1.0 }))
    }
}

/// One of a model file's materials, as the scene material it becomes.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelMaterial {
    /// Its name in the file (or its index, when it has none).
    pub name: String,
    pub kind: MaterialKind,
    /// Its base colour texture (glTF `baseColorTexture`, MTL `map_Kd`).
    pub texture: Option<Texture>,
    /// Its other textures (a Principled's).
    pub maps: Maps,
}

/// A light the renderer samples directly (next-event estimation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Light", deny_unknown_fields)]
pub enum Light {
    Point {
        #[serde(with = "values::v3")]
        position: Vec3,
        #[serde(with = "values::v3", default = "values::white")]
        color: Vec3,
        #[serde(default = "values::one")]
        intensity: f32,
    },
    Directional {
        #[serde(with = "values::v3")]
        direction: Vec3,
        #[serde(with = "values::v3", default = "values::white")]
        color: Vec3,
        #[serde(default = "values::one")]
        intensity: f32,
        #[serde(default)]
        angular_radius_deg: f32,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The identity's rows are exactly the identity's, bit for bit (no negative zero);
    /// transforms read back from their rows give the same rows again to rounding, and
    /// quarter turns exactly.
    #[test]
    fn uv_transform_rows_read_back() {
        let bits = |rows: [[f32; 3]; 2]| rows.map(|r| r.map(f32::to_bits));
        assert_eq!(bits(UvTransform::IDENTITY.rows()), bits([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]));
        let back = UvTransform::from_rows(UvTransform::IDENTITY.rows());
        assert!(back.is_identity(), "{back:?}");
        for rotation_deg in [0.0, 22.5, 90.0, -90.0, 180.0, 270.0, 725.0, -1e6] {
            for (scale, offset) in [
                (Vec2::new(4.0, 2.0), Vec2::new(0.5, -0.25)),
                (Vec2::new(-1.5, 0.5), Vec2::ZERO),
                (Vec2::new(0.0, 3.0), Vec2::new(1e6, 2.0)),
                (Vec2::ZERO, Vec2::ONE),
            ] {
                let t = UvTransform { offset, rotation_deg, scale };
                let rows = t.rows();
                let again = UvTransform::from_rows(rows).rows();
                for (a, b) in rows.iter().flatten().zip(again.iter().flatten()) {
                    assert!((a - b).abs() <= 1e-6 * (1.0 + a.abs()), "{t:?}: {rows:?} against {again:?}");
                }
            }
        }
        let quarter = UvTransform { rotation_deg: 90.0, ..UvTransform::IDENTITY };
        assert_eq!(quarter.rows(), [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]);
    }
}
