//! The blob's records: the single source of truth for every byte the GPU reads.
//!
//! Each record is `#[repr(C)]` + `bytemuck::Pod` and is declared through
//! [`blob_record!`], which also records its fields so that `tools/` can generate
//! `kernels/blob_layout.cuh` with the same layout (a test fails when the checked-in
//! header is stale). Device records hold only 16-byte `float4`/`uint4` lanes or
//! 4-byte scalars: 12-byte `float3` arrays double the number of global loads.

use bytemuck::{Pod, Zeroable};

// The record machinery lives in `super::record`; re-exported for `layout::` users.
pub use super::record::{CType, CudaName, Field, FieldType, Record};
use crate::blob_record;
use crate::limits;
use crate::scene::{SamplerKind, ViewTransform};

/// `b"RTSCENE\0"`: the first eight bytes of every blob.
pub const MAGIC: [u8; 8] = *b"RTSCENE\0";
/// Bumped on any change to a record or to the header.
pub const FORMAT_VERSION: u32 = 14;
/// Every section starts on this boundary (and the header's size is a multiple of it).
pub const SECTION_ALIGN: usize = 16;
/// Header flag: nodes are in van Emde Boas order (else depth-first).
pub const FLAG_LAYOUT_VEB: u32 = 1;
/// Header flag: some vertex has a normal (a [`VertexRecord`]'s `normal` other than
/// [`NO_NORMAL`]); without it every triangle shades flat.
pub const FLAG_SHADING_NORMALS: u32 = 2;
/// Header flag: the `noise` section holds the Perlin table (some material has a Noise
/// texture); without it the section is empty.
pub const FLAG_NOISE: u32 = 4;
/// Header flag: the `vertex_uvs` section holds one record per vertex (some mesh has
/// texture coordinates); without it the section is empty and a triangle's coordinates
/// are its barycentrics.
pub const FLAG_TRIANGLE_UVS: u32 = 8;
/// Header flag: the `triangle_tangents` section holds one record per triangle (some
/// triangle's material has a normal map); without it the section is empty and a normal
/// map's frame comes from the texture coordinates, per triangle.
pub const FLAG_TRIANGLE_TANGENTS: u32 = 16;
/// Header flag: the `prim_light_pdfs` section holds one entry per primitive (some
/// primitive is a light); without it the section is empty and no primitive is one.
pub const FLAG_PRIM_LIGHTS: u32 = 32;
/// Entries of the Perlin table (`noise` section): "The Next Week"'s point count.
pub const NOISE_POINTS: usize = 256;

/// A primitive kind. Its value is stored in leaf links and primitive references, and
/// each kind has its own record section (spheres: [`SphereRecord`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum PrimKind {
    Sphere = 0,
    Box = 1,
    Triangle = 2,
    /// A placed copy of a mesh's bottom-level tree ([`InstanceRecord`]).
    Instance = 3,
}

impl PrimKind {
    /// Every kind, in the order their primitives are numbered in `prim_materials`.
    pub const ALL: [PrimKind; 4] = [PrimKind::Sphere, PrimKind::Box, PrimKind::Triangle, PrimKind::Instance];
    /// Kinds a header has count slots for ([`limits::MAX_PRIM_KINDS`]).
    pub const SLOTS: usize = limits::MAX_PRIM_KINDS as usize;
    /// Kinds in use: what a validated blob's links and references name.
    pub const USED: usize = Self::ALL.len();

    /// The kind stored as `value`, if there is one.
    pub fn from_u32(value: u32) -> Option<PrimKind> {
        PrimKind::ALL.into_iter().find(|k| *k as u32 == value)
    }

    /// A lower-case name for messages.
    pub fn name(self) -> &'static str {
        match self {
            PrimKind::Sphere => "sphere",
            PrimKind::Box => "box",
            PrimKind::Triangle => "triangle",
            PrimKind::Instance => "instance",
        }
    }

    /// The header field of this kind's count, for messages.
    pub fn count_field(self) -> &'static str {
        match self {
            PrimKind::Sphere => "prim_counts (sphere)",
            PrimKind::Box => "prim_counts (box)",
            PrimKind::Triangle => "prim_counts (triangle)",
            PrimKind::Instance => "prim_counts (instance)",
        }
    }

    /// The section holding this kind's records.
    pub fn section(self) -> SectionId {
        match self {
            PrimKind::Sphere => SectionId::Spheres,
            PrimKind::Box => SectionId::Boxes,
            PrimKind::Triangle => SectionId::Triangles,
            PrimKind::Instance => SectionId::Instances,
        }
    }
}

/// A primitive reference: `kind << PRIM_KIND_SHIFT | index`, the index counting within
/// its kind's record section. Hits carry one; a leaf link holds its first primitive's.
/// The kind takes the bits between the leaf flag and the leaf count.
pub const PRIM_KIND_SHIFT: u32 = 31 - limits::MAX_PRIM_KINDS.trailing_zeros();
/// The bits of a primitive reference (and leaf link) that hold the kind.
pub const PRIM_KIND_MASK: u32 = (limits::MAX_PRIM_KINDS - 1) << PRIM_KIND_SHIFT;
/// The bits of a primitive reference (and leaf link) that hold the index within its kind.
pub const PRIM_INDEX_MASK: u32 = limits::MAX_PRIMS_PER_KIND - 1;
/// A child link with this bit set is a leaf: `LEAF_FLAG | kind << PRIM_KIND_SHIFT |
/// (count - 1) << LEAF_COUNT_SHIFT | first`, primitives `first..first + count` of one
/// kind. Without it, the index of an inner node.
pub const LEAF_FLAG: u32 = 0x8000_0000;
/// Where a leaf link keeps its primitive count minus one.
pub const LEAF_COUNT_SHIFT: u32 = limits::MAX_PRIMS_PER_KIND.trailing_zeros();
/// The bits of a leaf link that hold its count minus one.
pub const LEAF_COUNT_MASK: u32 = (limits::MAX_LEAF_SIZE - 1) << LEAF_COUNT_SHIFT;
/// [`Shape::material`](crate::shapes::Shape) of an instance that keeps its mesh's
/// materials (its `prim_materials` entry); any other value replaces them.
pub const NO_MATERIAL: u32 = u32::MAX;
/// [`VertexRecord::normal`] of a vertex without a normal: both halves -32768, which the
/// octahedral code never writes (it rounds to -32767..=32767).
pub const NO_NORMAL: u32 = 0x8000_8000;
/// Light kinds, [`LightRecord::kind`].
pub const LIGHT_POINT: u32 = 0;
pub const LIGHT_DIRECTIONAL: u32 = 1;
/// An emissive primitive of any kind, an area light; [`LightRecord::prim`] says which.
pub const LIGHT_AREA: u32 = 2;
/// The environment sky (`BlobHeader::env_size`, sections `env_texels` and
/// `env_sampling`); at most one, and only in a blob with an environment.
pub const LIGHT_ENVIRONMENT: u32 = 3;

/// View transforms, [`GlobalsRecord::view`] (`scene::ViewTransform`).
pub const VIEW_STANDARD: u32 = 0;
pub const VIEW_AGX: u32 = 1;
pub const VIEW_FILMIC: u32 = 2;
/// Samplers, [`GlobalsRecord::sampler`] (`scene::SamplerKind`).
pub const SAMPLER_INDEPENDENT: u32 = 0;
pub const SAMPLER_SOBOL: u32 = 1;

/// The [`GlobalsRecord::view`] code of a view.
pub fn view_code(view: ViewTransform) -> u32 {
    match view {
        ViewTransform::Standard => VIEW_STANDARD,
        ViewTransform::Agx => VIEW_AGX,
        ViewTransform::Filmic => VIEW_FILMIC,
    }
}

/// The view of a [`GlobalsRecord::view`] code; `None` for a code no view has.
pub fn view_of(code: u32) -> Option<ViewTransform> {
    ViewTransform::ALL.into_iter().find(|&v| view_code(v) == code)
}

/// The [`GlobalsRecord::sampler`] code of a sampler.
pub fn sampler_code(sampler: SamplerKind) -> u32 {
    match sampler {
        SamplerKind::Independent => SAMPLER_INDEPENDENT,
        SamplerKind::Sobol => SAMPLER_SOBOL,
    }
}

/// The sampler of a [`GlobalsRecord::sampler`] code; `None` for a code no sampler has.
pub fn sampler_of(code: u32) -> Option<SamplerKind> {
    SamplerKind::ALL.into_iter().find(|&s| sampler_code(s) == code)
}

/// Material kinds, [`MaterialRecord::kind`]: the kinds a scene names, each with its
/// own parameters in the record's lanes.
pub const MATERIAL_LAMBERT: u32 = 0;
pub const MATERIAL_METAL: u32 = 1;
pub const MATERIAL_DIELECTRIC: u32 = 2;
/// Emits; with a non-zero albedo also reflects as Lambert does, else absorbs.
pub const MATERIAL_EMISSIVE: u32 = 3;
/// The glTF 2.0 metallic-roughness material (docs/path-tracing.md, "Principled").
pub const MATERIAL_PRINCIPLED: u32 = 4;
/// Every material kind by the name the CUDA header gives it (`BLOB_MATERIAL_<name>`):
/// the header's one list of them.
pub const MATERIAL_KINDS: [(&str, u32); 5] = [
    ("LAMBERT", MATERIAL_LAMBERT),
    ("METAL", MATERIAL_METAL),
    ("DIELECTRIC", MATERIAL_DIELECTRIC),
    ("EMISSIVE", MATERIAL_EMISSIVE),
    ("PRINCIPLED", MATERIAL_PRINCIPLED),
];
/// A texture slot of [`MaterialRecord::textures`] without a texture.
pub const NO_TEXTURE: u32 = u32::MAX;
/// [`MaterialRecord::textures`]: the colour texture (a Principled's base colour), then
/// a Principled's metallic-roughness, emission and normal textures.
pub const TEXTURE_SLOT_COLOR: usize = 0;
pub const TEXTURE_SLOT_METALLIC_ROUGHNESS: usize = 1;
pub const TEXTURE_SLOT_EMISSION: usize = 2;
pub const TEXTURE_SLOT_NORMAL: usize = 3;
/// Alpha modes, [`MaterialRecord::alpha_mode`] (glTF `alphaMode`).
pub const ALPHA_OPAQUE: u32 = 0;
/// Cut out where alpha is below [`MaterialRecord::alpha_cutoff`].
pub const ALPHA_MASK: u32 = 1;
/// Cut out with probability 1 - alpha (stochastic transparency).
pub const ALPHA_BLEND: u32 = 2;
/// Texture kinds, [`TextureRecord::kind`].
pub const TEXTURE_IMAGE: u32 = 0;
pub const TEXTURE_CHECKER: u32 = 1;
pub const TEXTURE_NOISE: u32 = 2;
/// Image wrap modes, lane w of [`TextureRecord::image`].
pub const WRAP_REPEAT: u32 = 0;
pub const WRAP_CLAMP: u32 = 1;

// The four fields tile the 32 bits exactly, whatever the limits say.
const _: () = assert!(LEAF_FLAG ^ PRIM_KIND_MASK ^ LEAF_COUNT_MASK ^ PRIM_INDEX_MASK == u32::MAX);
const _: () = assert!(LEAF_FLAG & PRIM_KIND_MASK == 0 && PRIM_KIND_MASK & LEAF_COUNT_MASK == 0);
const _: () = assert!(LEAF_COUNT_MASK & PRIM_INDEX_MASK == 0);

/// The reference to primitive `index` of `kind`.
#[inline(always)]
pub const fn prim_ref(kind: PrimKind, index: u32) -> u32 {
    (kind as u32) << PRIM_KIND_SHIFT | index
}

/// A primitive reference's kind value (not checked against [`PrimKind::ALL`]) and index.
#[inline(always)]
pub const fn prim_parts(prim: u32) -> (u32, u32) {
    ((prim & PRIM_KIND_MASK) >> PRIM_KIND_SHIFT, prim & PRIM_INDEX_MASK)
}

/// The link to a leaf holding primitives `first..first + count` of `kind`.
///
/// # Panics
///
/// If the leaf does not fit a link: the builder clamps leaves to
/// [`limits::MAX_LEAF_SIZE`] and scene validation caps each kind's count at
/// [`limits::MAX_PRIMS_PER_KIND`], so only a hand-made tree can.
pub fn leaf_link(kind: PrimKind, first: u32, count: u32) -> u32 {
    assert!(
        (1..=limits::MAX_LEAF_SIZE).contains(&count)
            && first.checked_add(count).is_some_and(|end| end <= limits::MAX_PRIMS_PER_KIND),
        "leaf {first}+{count} does not fit a blob link"
    );
    LEAF_FLAG | prim_ref(kind, first) | (count - 1) << LEAF_COUNT_SHIFT
}

/// True when `link` is a leaf (else it is an inner node's index).
#[inline(always)]
pub const fn is_leaf(link: u32) -> bool {
    link & LEAF_FLAG != 0
}

/// A leaf link's first primitive (a reference: kind and index) and its count.
#[inline(always)]
pub const fn leaf_prims(link: u32) -> (u32, u32) {
    (link & (PRIM_KIND_MASK | PRIM_INDEX_MASK), ((link & LEAF_COUNT_MASK) >> LEAF_COUNT_SHIFT) + 1)
}

blob_record! {
    /// Camera, sky and render defaults; the Globals section holds exactly one.
    #[align(16)]
    pub struct GlobalsRecord as "GlobalsRecord" {
        /// look_from.xyz, vfov in degrees.
        pub camera_from_vfov: [f32; 4],
        /// look_at.xyz, lens aperture (0 = pinhole).
        pub camera_at_aperture: [f32; 4],
        /// up.xyz, focus distance.
        pub camera_up_focus: [f32; 4],
        /// Sky radiance at dir.y = -1 (rgb, w unused).
        pub sky_bottom: [f32; 4],
        /// Sky radiance at dir.y = +1 (rgb, w unused); equal to sky_bottom for a constant sky.
        pub sky_top: [f32; 4],
        /// width, height, spp, max_depth.
        pub settings: [u32; 4],
        /// seed, the BVH root's link (node 0, or a leaf when the whole scene is one), two reserved zeros.
        pub seed_root: [u32; 4],
        /// The environment's rotation about +Y: (cos, sin, 0, 0); (1, 0, 0, 0) without one. A direction d looks up the image at R_y(-rotation) d.
        pub env_rotation: [f32; 4],
        /// Exposure in stops, applied when an 8-bit image is made (within +-20).
        pub exposure: f32,
        /// The view transform of 8-bit images: VIEW_STANDARD, VIEW_AGX or VIEW_FILMIC.
        pub view: u32,
        /// SAMPLER_INDEPENDENT or SAMPLER_SOBOL.
        pub sampler: u32,
        /// Zero.
        pub reserved: u32,
    }
}

blob_record! {
    /// A material: its kind (MATERIAL_*) and that kind's parameters. Lanes a kind does not use hold the neutral value given per field.
    #[align(16)]
    pub struct MaterialRecord as "MaterialRecord" {
        /// rgb: albedo (Lambert, Metal, an Emissive's diffuse part, a Principled's base colour; 1 for Dielectric). w: roughness in [0, 1] (Metal: its fuzz; Principled: its roughness; 0 for the other kinds).
        pub albedo_roughness: [f32; 4],
        /// rgb: emitted radiance (Emissive: color * strength; Principled: emission * emission_strength; 0 for the other kinds). w: index of refraction (Dielectric, Principled; 1 for the other kinds).
        pub emission_ior: [f32; 4],
        /// Principled: metallic, transmission, normal scale, alpha. The other kinds: 0, 0, 1, 1.
        pub pbr: [f32; 4],
        /// Textures (indices into the textures section, or NO_TEXTURE) by slot (TEXTURE_SLOT_*): the colour texture, multiplying the albedo (and an Emissive's emission; a Principled's base colour and alpha), then a Principled's metallic-roughness (G roughness, B metallic), emission and tangent-space normal textures.
        pub textures: [u32; 4],
        /// MATERIAL_LAMBERT, MATERIAL_METAL, MATERIAL_DIELECTRIC, MATERIAL_EMISSIVE or MATERIAL_PRINCIPLED.
        pub kind: u32,
        /// ALPHA_OPAQUE, ALPHA_MASK or ALPHA_BLEND (Principled; ALPHA_OPAQUE for the other kinds).
        pub alpha_mode: u32,
        /// ALPHA_MASK: alpha below this is cut out; else 0.
        pub alpha_cutoff: f32,
        /// Zero.
        pub reserved: u32,
    }
}

blob_record! {
    /// A texture a material's colour is multiplied by (docs/path-tracing.md, "Textures").
    #[align(16)]
    pub struct TextureRecord as "TextureRecord" {
        /// Checker: the even cells' rgb and w the cube edge; Noise: x the scale; Image: row 0 of its uv transform (m00, m01, m02), w 0: u' = m00 u + m01 v + m02, before the lookup.
        pub a: [f32; 4],
        /// Checker: the odd cells' rgb, w 0; Image: row 1 of its uv transform (m10, m11, m12), w 0: v' = m10 u + m11 v + m12; Noise: zeros.
        pub b: [f32; 4],
        /// Image: its first texel in the texels section, width, height, WRAP_REPEAT or WRAP_CLAMP; else zeros.
        pub image: [u32; 4],
        /// TEXTURE_IMAGE, TEXTURE_CHECKER or TEXTURE_NOISE.
        pub kind: u32,
        /// Zeros.
        pub reserved: [u32; 3],
    }
}

blob_record! {
    /// One entry of the Perlin noise table ("The Next Week"): a random unit gradient and the three axes' permutations.
    #[align(16)]
    pub struct NoiseRecord as "NoiseRecord" {
        /// A unit vector xyz, w 0.
        pub gradient: [f32; 4],
        /// perm_x, perm_y, perm_z at this index (each a permutation of 0..NOISE_POINTS), w 0.
        pub perm: [u32; 4],
    }
}

blob_record! {
    /// A vertex's texture coordinates, same index as its VertexRecord (present when FLAG_TRIANGLE_UVS is set). A vertex of a mesh without them holds two NaNs, as do all three of its triangle's vertices: such a triangle's coordinates are its barycentrics (b1, b2).
    #[align(8)]
    pub struct VertexUvRecord as "VertexUvRecord" {
        /// (u, v).
        pub uv: [f32; 2],
    }
}

impl VertexUvRecord {
    /// The coordinates of a vertex of a mesh without any: two NaNs.
    pub const NONE: VertexUvRecord = VertexUvRecord { uv: [f32::NAN; 2] };

    /// The coordinates, `None` for [`VertexUvRecord::NONE`] (the loader allows no other NaN).
    pub fn get(&self) -> Option<[f32; 2]> {
        (!self.uv[0].is_nan()).then_some(self.uv)
    }
}

blob_record! {
    /// A triangle's unit vertex tangents, same index as its TriangleRecord (present when FLAG_TRIANGLE_TANGENTS is set): glTF's TANGENT, the bitangent being w * (n x t) with n the shading normal, pointing up the image (towards decreasing v). A triangle with a normal-mapped material has its mesh's (the file's TANGENT, else MikkTSpace); any other has the tangent its texture coordinates give per face (its edges without them), thrice.
    #[align(16)]
    pub struct TriangleTangentsRecord as "TriangleTangentsRecord" {
        /// v0's tangent xyz, w the bitangent sign (+1 or -1).
        pub t0: [f32; 4],
        /// v1's tangent xyz, w the bitangent sign.
        pub t1: [f32; 4],
        /// v2's tangent xyz, w the bitangent sign.
        pub t2: [f32; 4],
    }
}

blob_record! {
    /// A sphere, in BVH leaf order.
    #[align(16)]
    pub struct SphereRecord as "SphereRecord" {
        /// center.xyz, radius.
        pub center_radius: [f32; 4],
    }
}

blob_record! {
    /// An axis-aligned box, in BVH leaf order; min < max on every axis.
    #[align(16)]
    pub struct BoxRecord as "BoxRecord" {
        /// The low corner xyz, w unused (0).
        pub min: [f32; 4],
        /// The high corner xyz, w unused (0).
        pub max: [f32; 4],
    }
}

blob_record! {
    /// A triangle of a mesh, in BVH leaf order: the indices of its three vertices in the vertices section, as the mesh shares them (so neighbours meet exactly); (v1 - v0) x (v2 - v0) points out. A world triangle's vertices are in world space, a bottom level's in its mesh's own.
    #[align(4)]
    pub struct TriangleRecord as "TriangleRecord" {
        /// The vertices' indices.
        pub v: [u32; 3],
    }
}

blob_record! {
    /// A mesh's vertex, shared by the triangles that name it: the vertices section holds the world's meshes' vertices (in world space), then each bottom level's, in its model file's order.
    #[align(16)]
    pub struct VertexRecord as "VertexRecord" {
        /// The position xyz.
        pub position: [f32; 3],
        /// The unit shading normal, octahedral-coded (the low 16 bits x, the high 16 bits y, each a signed 16-bit fraction of 32767), or NO_NORMAL for a vertex of a mesh without normals, as are all three of its triangle's: such a triangle shades with its geometric normal. Normals only shade; the geometric normal decides inside and outside.
        pub normal: u32,
    }
}

blob_record! {
    /// An inner BVH node's two child boxes, one row per axis. Leaves have no record: a
    /// link holds their primitives. The CUDA backend adds each row's mirror, (left.max,
    /// right.max, left.min, right.min), in its device copy of the nodes, so a ray reads
    /// its near planes from lanes x, y and far planes from z, w whatever its direction;
    /// the blob stores each row once.
    #[align(16)]
    pub struct NodeBoxesRecord as "NodeBoxesRecord" {
        /// (left.min.x, right.min.x, left.max.x, right.max.x).
        pub x: [f32; 4],
        /// (left.min.y, right.min.y, left.max.y, right.max.y).
        pub y: [f32; 4],
        /// (left.min.z, right.min.z, left.max.z, right.max.z).
        pub z: [f32; 4],
    }
}

blob_record! {
    /// An inner BVH node's child links (same index as its NodeBoxesRecord). A link is an inner node's index, or LEAF_FLAG | kind << PRIM_KIND_SHIFT | (count - 1) << LEAF_COUNT_SHIFT | first primitive of that kind.
    #[align(8)]
    pub struct NodeLinksRecord as "NodeLinksRecord" {
        /// The left child's link.
        pub left: u32,
        /// The right child's link.
        pub right: u32,
    }
}

blob_record! {
    /// A placed copy of a mesh (docs/blob-format.md, "Instances"): a bottom-level tree of triangles in the mesh's own space (its root link; leaves name triangles only), and the affine maps between that space and the world. Its material is its prim_materials entry: NO_MATERIAL keeps the triangles' own.
    #[align(16)]
    pub struct InstanceRecord as "InstanceRecord" {
        /// World to object, three rows of a 3x4 matrix: object = M (world, 1).
        pub world_to_object: [[f32; 4]; 3],
        /// Object to world, three rows of a 3x4 matrix: the inverse of world_to_object.
        pub object_to_world: [[f32; 4]; 3],
        /// The world-space box of the placed mesh: the low corner xyz, w 0.
        pub bounds_min: [f32; 4],
        /// The high corner xyz, w 0.
        pub bounds_max: [f32; 4],
        /// The bottom-level tree's root link: an inner node's index or a leaf of triangles.
        pub root: u32,
        /// Zeros.
        pub reserved: [u32; 3],
    }
}

blob_record! {
    /// A light for next-event estimation: the scene's lights in scene order, then one per emissive primitive, kind after kind, each kind in leaf order. Picked with the alias method: with n lights and u in [0, 1), i = min(floor(u n), n - 1); keep i when u n - i < alias_threshold, else take alias.
    #[align(16)]
    pub struct LightRecord as "LightRecord" {
        /// Point: position.xyz; directional: unit direction towards the light; area: unused. w: directional: cos(angular radius); else 1.
        pub vector_cos: [f32; 4],
        /// rgb: intensity (point), irradiance at normal incidence (directional) or emitted radiance (area). w: the probability of picking this light.
        pub radiance_pdf: [f32; 4],
        /// LIGHT_POINT, LIGHT_DIRECTIONAL or LIGHT_AREA.
        pub kind: u32,
        /// Area lights: the primitive reference of the emitter; else 0.
        pub prim: u32,
        /// Alias method: keep this light when the pick's fraction is below this.
        pub alias_threshold: f32,
        /// Alias method: the light taken otherwise.
        pub alias: u32,
    }
}

blob_record! {
    /// A texel of the environment image, row by row from the top (+Y) row (BlobHeader::env_size): its radiance (the image times strength) and the sampling density of its cell.
    #[align(16)]
    pub struct EnvTexelRecord as "EnvTexelRecord" {
        /// rgb: radiance at the texel's centre. w: the density, in (u, v), with which the environment's light sampling picks a point of this texel's cell: P(cell) * width * height.
        pub rgb_pdf: [f32; 4],
    }
}

blob_record! {
    /// A cell of an alias table of the environment's sampling (section env_sampling): first the rows' table (height cells), then each row's table of its columns (width cells each, rows from the top). With n cells and u in [0, 1): i = min(floor(u n), n - 1), f = u n - i; keep i when f < threshold, else take alias.
    #[align(8)]
    pub struct EnvAliasRecord as "EnvAliasRecord" {
        /// Keep this cell when the pick's fraction is below this.
        pub threshold: f32,
        /// The cell taken otherwise.
        pub alias: u32,
    }
}

/// A section's place in the blob, in bytes from the blob's first byte.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SectionEntry {
    pub offset: u64,
    pub len: u64,
}

/// The sections, in file order. Each holds one array of one record type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum SectionId {
    Globals = 0,
    Materials,
    /// The textures materials point at.
    Textures,
    /// The image textures' texels, linear rgb (w 0), row by row from the top, image after image.
    Texels,
    /// The Perlin table, NOISE_POINTS records when the header has FLAG_NOISE.
    Noise,
    Spheres,
    Boxes,
    Triangles,
    /// The instances' placements, in leaf order.
    Instances,
    /// The meshes' vertices (`BlobHeader::vertex_count`), which triangles index.
    Vertices,
    /// Per vertex, same order, when the header has FLAG_TRIANGLE_UVS: its texture coordinates.
    VertexUvs,
    /// Per triangle, same order, when the header has FLAG_TRIANGLE_TANGENTS: its vertex tangents.
    TriangleTangents,
    /// Per primitive, every kind's in [`PrimKind::ALL`] order, each kind in leaf order: its material id.
    PrimMaterials,
    /// Per primitive, same order: its index in the scene's list of its kind.
    PrimSources,
    /// Per primitive, same order, when the header has FLAG_PRIM_LIGHTS: the probability
    /// of picking its light (0: not a light).
    PrimLightPdfs,
    NodeBoxes,
    NodeLinks,
    Lights,
    /// The environment's texels (`BlobHeader::env_size`), empty without one.
    EnvTexels,
    /// The environment's alias tables: rows, then each row's columns.
    EnvSampling,
}

/// Number of sections in the table.
pub const SECTION_COUNT: usize = 20;

impl SectionId {
    /// All sections, in file order.
    pub const ALL: [SectionId; SECTION_COUNT] = [
        SectionId::Globals,
        SectionId::Materials,
        SectionId::Textures,
        SectionId::Texels,
        SectionId::Noise,
        SectionId::Spheres,
        SectionId::Boxes,
        SectionId::Triangles,
        SectionId::Instances,
        SectionId::Vertices,
        SectionId::VertexUvs,
        SectionId::TriangleTangents,
        SectionId::PrimMaterials,
        SectionId::PrimSources,
        SectionId::PrimLightPdfs,
        SectionId::NodeBoxes,
        SectionId::NodeLinks,
        SectionId::Lights,
        SectionId::EnvTexels,
        SectionId::EnvSampling,
    ];

    /// A lower-case name for messages and `inspect`.
    pub fn name(self) -> &'static str {
        match self {
            SectionId::Globals => "globals",
            SectionId::Materials => "materials",
            SectionId::Textures => "textures",
            SectionId::Texels => "texels",
            SectionId::Noise => "noise",
            SectionId::Spheres => "spheres",
            SectionId::Boxes => "boxes",
            SectionId::Triangles => "triangles",
            SectionId::Instances => "instances",
            SectionId::Vertices => "vertices",
            SectionId::VertexUvs => "vertex_uvs",
            SectionId::TriangleTangents => "triangle_tangents",
            SectionId::PrimMaterials => "prim_materials",
            SectionId::PrimSources => "prim_sources",
            SectionId::PrimLightPdfs => "prim_light_pdfs",
            SectionId::NodeBoxes => "node_boxes",
            SectionId::NodeLinks => "node_links",
            SectionId::Lights => "lights",
            SectionId::EnvTexels => "env_texels",
            SectionId::EnvSampling => "env_sampling",
        }
    }

    /// Size of one element of this section.
    pub fn record_size(self) -> usize {
        use core::mem::size_of;
        match self {
            SectionId::Globals => size_of::<GlobalsRecord>(),
            SectionId::Materials => size_of::<MaterialRecord>(),
            SectionId::Textures => size_of::<TextureRecord>(),
            SectionId::Texels => size_of::<[f32; 4]>(),
            SectionId::Noise => size_of::<NoiseRecord>(),
            SectionId::Spheres => size_of::<SphereRecord>(),
            SectionId::Boxes => size_of::<BoxRecord>(),
            SectionId::Triangles => size_of::<TriangleRecord>(),
            SectionId::Instances => size_of::<InstanceRecord>(),
            SectionId::Vertices => size_of::<VertexRecord>(),
            SectionId::VertexUvs => size_of::<VertexUvRecord>(),
            SectionId::TriangleTangents => size_of::<TriangleTangentsRecord>(),
            SectionId::PrimMaterials | SectionId::PrimSources => size_of::<u32>(),
            SectionId::PrimLightPdfs => size_of::<f32>(),
            SectionId::NodeBoxes => size_of::<NodeBoxesRecord>(),
            SectionId::NodeLinks => size_of::<NodeLinksRecord>(),
            SectionId::Lights => size_of::<LightRecord>(),
            SectionId::EnvTexels => size_of::<EnvTexelRecord>(),
            SectionId::EnvSampling => size_of::<EnvAliasRecord>(),
        }
    }
}

/// The fixed header at offset 0. Host-only: the kernels get section pointers.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct BlobHeader {
    pub magic: [u8; 8],
    pub version: u32,
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Primitives of each kind, indexed by `PrimKind as usize`; unused slots are 0.
    pub prim_counts: [u32; PrimKind::SLOTS],
    pub material_count: u32,
    pub light_count: u32,
    /// Inner nodes of every tree, the world's and the instanced meshes' bottom levels
    /// (leaves live in their parents' links).
    pub node_count: u32,
    /// CRC-32 (IEEE) of every byte after the header.
    pub payload_crc32: u32,
    /// Size of this header in bytes, so a reader can check it read the right thing.
    pub header_len: u32,
    pub texture_count: u32,
    /// Size of the whole blob in bytes.
    pub total_len: u64,
    /// Texels of all image textures.
    pub texel_count: u32,
    /// Records in the vertices section.
    pub vertex_count: u32,
    /// Zeros.
    pub reserved: [u32; 2],
    /// The environment image's width and height in texels, then two zeros; all zero
    /// without an environment.
    pub env_size: [u32; 4],
    pub sections: [SectionEntry; SECTION_COUNT],
}

/// Size of [`BlobHeader`] in bytes.
pub const HEADER_LEN: usize = core::mem::size_of::<BlobHeader>();

impl BlobHeader {
    /// Primitives of `kind`.
    pub fn prim_count(&self, kind: PrimKind) -> u32 {
        self.prim_counts[kind as usize]
    }

    /// Where each kind's primitives start in the per-primitive sections (`prim_materials`,
    /// `prim_sources`): kinds follow each other in [`PrimKind::ALL`] order. Saturates on
    /// counts a validated header cannot have.
    pub fn kind_first(&self) -> [u32; PrimKind::SLOTS] {
        let mut first = [0; PrimKind::SLOTS];
        let mut next = 0u32;
        for kind in PrimKind::ALL {
            first[kind as usize] = next;
            next = next.saturating_add(self.prim_count(kind));
        }
        first
    }

    /// Primitives of every kind.
    pub fn prim_total(&self) -> u64 {
        self.prim_counts.iter().map(|&n| u64::from(n)).sum()
    }

    /// How many records section `id` holds, from the header's counts: what the writer
    /// lays out and the reader checks.
    pub fn section_records(&self, id: SectionId) -> u64 {
        match id {
            SectionId::Globals => 1,
            SectionId::Materials => self.material_count.into(),
            SectionId::Textures => self.texture_count.into(),
            SectionId::Texels => self.texel_count.into(),
            SectionId::Noise if self.flags & FLAG_NOISE != 0 => NOISE_POINTS as u64,
            SectionId::Noise => 0,
            SectionId::Spheres => self.prim_count(PrimKind::Sphere).into(),
            SectionId::Boxes => self.prim_count(PrimKind::Box).into(),
            SectionId::Triangles => self.prim_count(PrimKind::Triangle).into(),
            SectionId::Instances => self.prim_count(PrimKind::Instance).into(),
            SectionId::Vertices => self.vertex_count.into(),
            SectionId::VertexUvs if self.flags & FLAG_TRIANGLE_UVS != 0 => self.vertex_count.into(),
            SectionId::VertexUvs => 0,
            SectionId::TriangleTangents if self.flags & FLAG_TRIANGLE_TANGENTS != 0 => {
                self.prim_count(PrimKind::Triangle).into()
            }
            SectionId::TriangleTangents => 0,
            SectionId::PrimMaterials | SectionId::PrimSources => self.prim_total(),
            SectionId::PrimLightPdfs if self.flags & FLAG_PRIM_LIGHTS != 0 => self.prim_total(),
            SectionId::PrimLightPdfs => 0,
            SectionId::NodeBoxes | SectionId::NodeLinks => self.node_count.into(),
            SectionId::Lights => self.light_count.into(),
            SectionId::EnvTexels => self.env_texels(),
            SectionId::EnvSampling if self.env_texels() > 0 => {
                self.env_texels() + u64::from(self.env_size[1])
            }
            SectionId::EnvSampling => 0,
        }
    }

    /// Texels of the environment image (0 without one).
    pub fn env_texels(&self) -> u64 {
        u64::from(self.env_size[0]) * u64::from(self.env_size[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, size_of};

    #[test]
    fn device_records_are_whole_lanes_and_gpu_aligned() {
        assert_eq!(size_of::<GlobalsRecord>(), 144);
        assert_eq!(size_of::<EnvTexelRecord>(), 16);
        assert_eq!(size_of::<EnvAliasRecord>(), 8);
        assert_eq!(size_of::<MaterialRecord>(), 80);
        assert_eq!(size_of::<SphereRecord>(), 16);
        assert_eq!(size_of::<NodeBoxesRecord>(), 48);
        assert_eq!(size_of::<NodeLinksRecord>(), 8);
        assert_eq!(size_of::<LightRecord>(), 48);
        assert_eq!(align_of::<SphereRecord>(), 16);
        assert_eq!(HEADER_LEN % SECTION_ALIGN, 0);
        assert_eq!(size_of::<TextureRecord>(), 64);
        assert_eq!(size_of::<NoiseRecord>(), 32);
        assert_eq!(size_of::<VertexUvRecord>(), 8);
        assert_eq!(size_of::<VertexRecord>(), 16);
        assert_eq!(size_of::<TriangleRecord>(), 12);
        assert_eq!(size_of::<TriangleTangentsRecord>(), 48);
        assert_eq!(size_of::<InstanceRecord>(), 144);
        assert_eq!(HEADER_LEN, 432);
    }

    #[test]
    fn leaf_links_round_trip_every_leaf_size_and_the_last_sphere() {
        use limits::{MAX_LEAF_SIZE, MAX_PRIMS_PER_KIND};
        for kind in PrimKind::ALL {
            for count in 1..=MAX_LEAF_SIZE {
                for first in [0, 1, 12345, MAX_PRIMS_PER_KIND - count] {
                    let link = leaf_link(kind, first, count);
                    assert!(is_leaf(link));
                    assert_eq!(leaf_prims(link), (prim_ref(kind, first), count));
                    assert_eq!(prim_parts(leaf_prims(link).0), (kind as u32, first));
                }
            }
        }
        assert!(!is_leaf(LEAF_FLAG - 1), "inner indices below 2^31 are not leaves");
    }

    #[test]
    #[should_panic(expected = "does not fit")]
    fn a_leaf_past_the_sphere_limit_is_refused() {
        leaf_link(PrimKind::Sphere, limits::MAX_PRIMS_PER_KIND - 1, 2);
    }

    #[test]
    fn field_tables_cover_every_byte() {
        fn covered<R: Record>() -> usize {
            R::FIELDS.iter().map(|f| f.ty.size()).sum()
        }
        assert_eq!(covered::<GlobalsRecord>(), size_of::<GlobalsRecord>());
        assert_eq!(covered::<MaterialRecord>(), size_of::<MaterialRecord>());
        assert_eq!(covered::<NodeLinksRecord>(), size_of::<NodeLinksRecord>());
        assert_eq!(covered::<LightRecord>(), size_of::<LightRecord>());
        assert_eq!(covered::<NodeBoxesRecord>(), size_of::<NodeBoxesRecord>());
        assert_eq!(NodeLinksRecord::FIELDS[1].offset, 4);
    }
}
