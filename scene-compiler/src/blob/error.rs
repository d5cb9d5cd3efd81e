//! What can be wrong with a blob, said so a user knows what and where.

use super::layout::SectionId;

/// A blob that `BlobView::parse` refused; nothing of it reached a backend.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlobError {
    #[error("blob is {len} bytes, shorter than its {needed}-byte header: truncated or not a blob")]
    TooShort { len: usize, needed: usize },
    #[error("blob buffer does not start on a 16-byte boundary (load it with AlignedBytes)")]
    Misaligned,
    /// `looks_like` says what the file seems to be instead (see [`describe_start`]).
    #[error(
        "not a scene blob: {looks_like} (a blob starts with `RTSCENE`; `scene-compiler build` makes one)"
    )]
    BadMagic { looks_like: String },
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

/// What a file that is not a blob seems to be, from its first bytes: a known format by
/// its signature, else its start as text or as hex.
pub fn describe_start(bytes: &[u8]) -> String {
    const SIGNATURES: [(&[u8], &str); 7] = [
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"\x76\x2f\x31\x01", "an OpenEXR image"),
        (b"\x1f\x8b", "a gzip archive"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"\x7fELF", "a program (ELF executable)"),
        (b"%PDF", "a PDF document"),
    ];
    if let Some((_, name)) = SIGNATURES.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return format!("this is {name}");
    }
    let head = &bytes[..bytes.len().min(24)];
    match std::str::from_utf8(head) {
        Ok(text) if text.chars().all(|c| !c.is_control() || c.is_whitespace()) => {
            let text = text.trim_start();
            if text.starts_with("Scene") || text.starts_with("//") || text.starts_with('(') {
                "this looks like RON scene text: name it `.ron` to have it compiled".to_owned()
            } else {
                format!("it is text starting `{}`", text.lines().next().unwrap_or(""))
            }
        }
        _ => {
            let hex: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
            format!("it starts with the bytes {}", hex.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::describe_start;

    #[test]
    fn files_that_are_not_blobs_are_named() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(describe_start(png), "this is a PNG image");
        assert_eq!(describe_start(b"\x76\x2f\x31\x01\x02\0\0\0"), "this is an OpenEXR image");
        assert_eq!(
            describe_start(b"  Scene(camera: (look_from"),
            "this looks like RON scene text: name it `.ron` to have it compiled"
        );
        assert_eq!(describe_start(b"[package]\nname = 1"), "it is text starting `[package]`");
        assert_eq!(
            describe_start(&[0, 1, 2, 0xfe, 4, 5, 6, 7, 8, 9]),
            "it starts with the bytes 00 01 02 fe 04 05 06 07"
        );
    }
}
