//! The blob's records: the single source of truth for every byte the GPU reads.
//!
//! Each record is `#[repr(C)]` + `bytemuck::Pod` and is declared through
//! [`blob_record!`], which also records its fields so that `tools/` can generate
//! `kernels/blob_layout.cuh` with the same layout (a test fails when the checked-in
//! header is stale). Device records hold only 16-byte `float4`/`uint4` lanes or
//! 4-byte scalars: 12-byte `float3` arrays double the number of global loads.

use bytemuck::{Pod, Zeroable};

/// `b"RTSCENE\0"`: the first eight bytes of every blob.
pub const MAGIC: [u8; 8] = *b"RTSCENE\0";
/// Bumped on any change to a record or to the header.
pub const FORMAT_VERSION: u32 = 1;
/// Every section starts on this boundary (and the header's size is a multiple of it).
pub const SECTION_ALIGN: usize = 16;
/// Header flag: nodes are in van Emde Boas order (else depth-first).
pub const FLAG_LAYOUT_VEB: u32 = 1;
/// Set in [`NodeLinksRecord::right_or_count`] for leaves.
pub const LEAF_FLAG: u32 = 0x8000_0000;
/// Deepest BVH the loader accepts: the kernels' traversal stack has this many entries.
pub const MAX_BVH_DEPTH: u32 = 64;
/// Light kinds, stored in the `w` lane of [`LightRecord::position_kind`].
pub const LIGHT_POINT: f32 = 1.0;
pub const LIGHT_DIRECTIONAL: f32 = 0.0;

/// A C type as the CUDA header spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    Float4,
    Uint4,
    Uint,
}

impl CType {
    /// The CUDA spelling.
    pub fn cuda_name(self) -> &'static str {
        match self {
            CType::Float4 => "float4",
            CType::Uint4 => "uint4",
            CType::Uint => "unsigned int",
        }
    }
}

/// Maps a Rust field type to the CUDA type with the same bytes and alignment.
pub trait FieldType {
    const C_TYPE: CType;
}
impl FieldType for [f32; 4] {
    const C_TYPE: CType = CType::Float4;
}
impl FieldType for [u32; 4] {
    const C_TYPE: CType = CType::Uint4;
}
impl FieldType for u32 {
    const C_TYPE: CType = CType::Uint;
}

/// One field of a record, for the header generator and the format docs.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: CType,
    pub offset: usize,
    pub doc: &'static str,
}

/// A record type that lives in a blob section.
pub trait Record: Pod {
    const C_NAME: &'static str;
    const DOC: &'static str;
    const FIELDS: &'static [Field];
}

macro_rules! blob_record {
    (
        $(#[doc = $doc:literal])*
        $(#[align($align:literal)])?
        pub struct $name:ident as $cname:literal {
            $( $(#[doc = $fdoc:literal])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[doc = $doc])*
        #[repr(C $(, align($align))?)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
        pub struct $name { $( $(#[doc = $fdoc])* pub $field: $ty, )* }

        impl Record for $name {
            const C_NAME: &'static str = $cname;
            const DOC: &'static str = concat!($($doc),*);
            const FIELDS: &'static [Field] = &[$(Field {
                name: stringify!($field),
                ty: <$ty as FieldType>::C_TYPE,
                offset: core::mem::offset_of!($name, $field),
                doc: concat!($($fdoc),*),
            }),*];
        }
    };
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
        /// seed, then three reserved zeros.
        pub seed: [u32; 4],
    }
}

blob_record! {
    /// A material in branchless form: the kernel blends lambert/metal/dielectric by weight.
    #[align(16)]
    pub struct MaterialRecord as "MaterialRecord" {
        /// albedo.rgb, metal fuzz in [0, 1].
        pub albedo_fuzz: [f32; 4],
        /// Weights of lambert, metal and dielectric scattering (sum 1, or 0 for pure emitters), ior.
        pub weights_ior: [f32; 4],
        /// Emitted radiance rgb (color * strength), w unused.
        pub emission: [f32; 4],
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
    /// A BVH node's bounding box.
    #[align(16)]
    pub struct NodeBoundsRecord as "NodeBoundsRecord" {
        /// min.xyz, w unused.
        pub min: [f32; 4],
        /// max.xyz, w unused.
        pub max: [f32; 4],
    }
}

blob_record! {
    /// A BVH node's links: children of an inner node, or a leaf's sphere range.
    #[align(8)]
    pub struct NodeLinksRecord as "NodeLinksRecord" {
        /// Inner: left child index. Leaf: first sphere.
        pub left_or_first: u32,
        /// Inner: right child index. Leaf: sphere count | LEAF_FLAG.
        pub right_or_count: u32,
    }
}

blob_record! {
    /// A light for next-event estimation.
    #[align(16)]
    pub struct LightRecord as "LightRecord" {
        /// Point: position.xyz, w = LIGHT_POINT. Directional: unit direction towards the light, w = LIGHT_DIRECTIONAL.
        pub position_kind: [f32; 4],
        /// Radiance rgb (color * intensity), w unused.
        pub radiance: [f32; 4],
        /// cos(angular radius) of a directional light's disc (1 for point lights), yzw unused.
        pub cone: [f32; 4],
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
    Spheres,
    SphereMaterials,
    SphereSources,
    NodeBounds,
    NodeLinks,
    Lights,
}

/// Number of sections in the table.
pub const SECTION_COUNT: usize = 8;

impl SectionId {
    /// All sections, in file order.
    pub const ALL: [SectionId; SECTION_COUNT] = [
        SectionId::Globals,
        SectionId::Materials,
        SectionId::Spheres,
        SectionId::SphereMaterials,
        SectionId::SphereSources,
        SectionId::NodeBounds,
        SectionId::NodeLinks,
        SectionId::Lights,
    ];

    /// A lower-case name for messages and `inspect`.
    pub fn name(self) -> &'static str {
        match self {
            SectionId::Globals => "globals",
            SectionId::Materials => "materials",
            SectionId::Spheres => "spheres",
            SectionId::SphereMaterials => "sphere_materials",
            SectionId::SphereSources => "sphere_sources",
            SectionId::NodeBounds => "node_bounds",
            SectionId::NodeLinks => "node_links",
            SectionId::Lights => "lights",
        }
    }

    /// Size of one element of this section.
    pub fn record_size(self) -> usize {
        use core::mem::size_of;
        match self {
            SectionId::Globals => size_of::<GlobalsRecord>(),
            SectionId::Materials => size_of::<MaterialRecord>(),
            SectionId::Spheres => size_of::<SphereRecord>(),
            SectionId::SphereMaterials | SectionId::SphereSources => size_of::<u32>(),
            SectionId::NodeBounds => size_of::<NodeBoundsRecord>(),
            SectionId::NodeLinks => size_of::<NodeLinksRecord>(),
            SectionId::Lights => size_of::<LightRecord>(),
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
    pub sphere_count: u32,
    pub material_count: u32,
    pub light_count: u32,
    pub node_count: u32,
    /// CRC-32 (IEEE) of every byte after the header.
    pub payload_crc32: u32,
    /// Size of this header in bytes, so a reader can check it read the right thing.
    pub header_len: u32,
    /// Size of the whole blob in bytes.
    pub total_len: u64,
    pub sections: [SectionEntry; SECTION_COUNT],
}

/// Size of [`BlobHeader`] in bytes.
pub const HEADER_LEN: usize = core::mem::size_of::<BlobHeader>();

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, size_of};

    #[test]
    fn device_records_are_whole_lanes_and_gpu_aligned() {
        assert_eq!(size_of::<GlobalsRecord>(), 112);
        assert_eq!(size_of::<MaterialRecord>(), 48);
        assert_eq!(size_of::<SphereRecord>(), 16);
        assert_eq!(size_of::<NodeBoundsRecord>(), 32);
        assert_eq!(size_of::<NodeLinksRecord>(), 8);
        assert_eq!(size_of::<LightRecord>(), 48);
        assert_eq!(align_of::<SphereRecord>(), 16);
        assert_eq!(HEADER_LEN % SECTION_ALIGN, 0);
        assert_eq!(HEADER_LEN, 176);
    }

    #[test]
    fn field_tables_cover_every_byte() {
        fn covered<R: Record>() -> usize {
            R::FIELDS
                .iter()
                .map(|f| match f.ty {
                    CType::Float4 | CType::Uint4 => 16,
                    CType::Uint => 4,
                })
                .sum()
        }
        assert_eq!(covered::<GlobalsRecord>(), size_of::<GlobalsRecord>());
        assert_eq!(covered::<MaterialRecord>(), size_of::<MaterialRecord>());
        assert_eq!(covered::<NodeLinksRecord>(), size_of::<NodeLinksRecord>());
        assert_eq!(covered::<LightRecord>(), size_of::<LightRecord>());
        assert_eq!(NodeLinksRecord::FIELDS[1].offset, 4);
    }
}
