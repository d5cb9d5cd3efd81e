//! What can be wrong with a blob, said so a user knows what and where.

use super::layout::SectionId;

/// A blob that `BlobView::parse` refused; nothing of it reached a backend.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlobError {
    #[error("blob is {len} bytes, shorter than its {needed}-byte header: truncated or not a blob")]
    TooShort { len: usize, needed: usize },
    #[error("blob buffer does not start on a 16-byte boundary (load it with AlignedBytes)")]
    Misaligned,
    #[error("not a scene blob: magic bytes are {found:?}, expected {expected:?}")]
    BadMagic { found: [u8; 8], expected: [u8; 8] },
    #[error("blob format version {found}, this build reads version {supported}: recompile the scene")]
    UnsupportedVersion { found: u32, supported: u32 },
    #[error("header says {field} is {found}, expected {expected}")]
    HeaderMismatch { field: &'static str, found: u64, expected: u64 },
    #[error("unknown header flags {0:#x}")]
    UnknownFlags(u32),
    #[error("payload checksum {found:#010x} does not match header {expected:#010x}: the file is corrupted")]
    Checksum { found: u32, expected: u32 },
    #[error("section {section}: {problem}", section = .section.name())]
    Section { section: SectionId, problem: String },
    #[error("{section}[{index}]: {problem}", section = .section.name())]
    Record { section: SectionId, index: usize, problem: String },
    #[error("BVH: {0}")]
    Tree(String),
}

impl BlobError {
    pub(crate) fn record(section: SectionId, index: usize, problem: impl Into<String>) -> BlobError {
        BlobError::Record { section, index, problem: problem.into() }
    }

    pub(crate) fn section(section: SectionId, problem: impl Into<String>) -> BlobError {
        BlobError::Section { section, problem: problem.into() }
    }
}
