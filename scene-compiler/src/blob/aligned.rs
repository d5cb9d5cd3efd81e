//! A byte buffer whose start is 16-byte aligned, so `BlobView::parse` can cast
//! sections to `float4` records in place (a plain `Vec<u8>` guarantees only 1).

use std::{io, ops::Deref, path::Path};

/// One 16-byte, 16-aligned chunk of storage.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct Chunk([u8; 16]);

/// Owned bytes starting on a 16-byte boundary.
#[derive(Clone, Default)]
pub struct AlignedBytes {
    chunks: Vec<Chunk>,
    len: usize,
}

impl AlignedBytes {
    /// `len` zero bytes, from the allocator's zeroed memory: `vec![Chunk::default(); n]`
    /// wrote every byte (a `memset` of a 338 MB blob, faulting in each page before the
    /// encoder touched it), where a large zeroed allocation is fresh pages already zero.
    pub fn zeroed(len: usize) -> AlignedBytes {
        AlignedBytes { chunks: bytemuck::zeroed_vec(len.div_ceil(16)), len }
    }

    /// A copy of `bytes`, aligned.
    pub fn copy_from(bytes: &[u8]) -> AlignedBytes {
        let mut out = AlignedBytes::zeroed(bytes.len());
        out.as_mut_slice().copy_from_slice(bytes);
        out
    }

    /// Reads a whole file into aligned storage.
    pub fn read_file(path: &Path) -> io::Result<AlignedBytes> {
        use io::Read;
        // A device or a file larger than any blob is refused before it is allocated.
        let (mut file, len) = crate::files::open_input(path, crate::limits::MAX_BLOB_BYTES)?;
        let len = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "file larger than memory"))?;
        let mut out = AlignedBytes::zeroed(len);
        file.read_exact(out.as_mut_slice())?;
        // A file that grew while we read it would be silently cut: refuse it.
        if file.read(&mut [0u8; 1])? != 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "file changed while it was read"));
        }
        Ok(out)
    }

    /// The bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let len = self.len;
        &mut bytemuck::cast_slice_mut::<Chunk, u8>(&mut self.chunks)[..len]
    }
}

impl Deref for AlignedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &bytemuck::cast_slice::<Chunk, u8>(&self.chunks)[..self.len]
    }
}

impl std::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBytes({} bytes)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_16_aligned_and_len_is_exact() {
        for len in [0, 1, 15, 16, 17, 1000] {
            let bytes = AlignedBytes::zeroed(len);
            assert_eq!(bytes.len(), len);
            assert_eq!(bytes.as_ptr() as usize % 16, 0);
        }
        assert_eq!(&*AlignedBytes::copy_from(b"abc"), b"abc");
    }
}
