//! The blob: one little-endian file, a fixed header, then 16-byte-aligned SoA sections.
pub mod layout;
