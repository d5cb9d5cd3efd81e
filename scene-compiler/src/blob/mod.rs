//! The blob: one little-endian file, a fixed header, then 16-byte-aligned SoA
//! sections (docs/blob-format.md). [`write`] encodes, [`BlobView::parse`] validates
//! and reads in place; [`layout`] is the single source of truth for both and for
//! the generated `kernels/blob_layout.cuh` ([`cuda_header`]) and format tables.
//! [`record`] is the machinery behind it ([`blob_record!`](crate::blob_record)), which
//! other crates use for their own records shared with the kernels ([`cuda_struct`]).

mod aligned;
mod codegen;
mod crc;
mod environment;
mod error;
mod lights;
mod materials;
pub(crate) mod patch;
mod read;
mod textures;
mod write;

pub use crate::records::{cuda_struct, generated_banner, layout, normal, record};
pub use aligned::AlignedBytes;
pub use codegen::{cuda_header, with_field_tables};
pub use crc::crc32;
pub use error::BlobError;
pub use patch::{BlobEdit, MovedRecords};
pub use read::{BlobView, NodeLayout, SunDisc};
pub use textures::noise_table;
pub use write::{BlobMemory, rewrite_globals_and_materials, write};
pub(crate) use write::{
    child_boxes, in_memory, material_emission, reach_through, world_reach, write_with_reach,
};
