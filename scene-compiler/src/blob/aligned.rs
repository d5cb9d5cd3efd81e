//! A byte buffer whose start is 16-byte aligned, so `BlobView::parse` can cast
//! sections to `float4` records in place (a plain `Vec<u8>` guarantees only 1).

use std::{io, ops::Deref, path::Path};

/// One 16-byte, 16-aligned chunk of storage.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct Chunk([u8; 16]);

/// Owned bytes starting on a 16-byte boundary.
#[derive(Default)]
pub struct AlignedBytes {
    storage: Storage,
    len: usize,
}

/// Where the bytes live.
enum Storage {
    Heap(Vec<Chunk>),
    /// A shared mapping of a file (page-aligned): `scene-compiler build` encodes a large
    /// blob straight into its output file ([`crate::files::pending_mapped`]).
    #[cfg(unix)]
    Mapped(memmap2::MmapMut),
}

impl Default for Storage {
    fn default() -> Self {
        Storage::Heap(Vec::new())
    }
}

impl Clone for AlignedBytes {
    /// A copy in memory, whatever held the original.
    fn clone(&self) -> Self {
        AlignedBytes::copy_from(self)
    }
}

impl AlignedBytes {
    /// `len` zero bytes, from the allocator's zeroed memory: `vec![Chunk::default(); n]`
    /// wrote every byte (a `memset` of a 338 MB blob, faulting in each page before the
    /// encoder touched it), where a large zeroed allocation is fresh pages already zero.
    pub fn zeroed(len: usize) -> AlignedBytes {
        AlignedBytes { storage: Storage::Heap(bytemuck::zeroed_vec(len.div_ceil(16))), len }
    }

    /// The bytes of `map`, a shared mapping of a file of `map.len()` zero bytes: what
    /// is written to them is written to the file.
    #[cfg(unix)]
    pub(crate) fn mapped(map: memmap2::MmapMut) -> AlignedBytes {
        debug_assert_eq!(map.as_ptr() as usize % 16, 0, "mappings are page-aligned");
        let len = map.len();
        AlignedBytes { storage: Storage::Mapped(map), len }
    }

    /// Whether the bytes are a mapping of a file ([`AlignedBytes::mapped`]).
    #[cfg(test)]
    pub(crate) fn is_mapped(&self) -> bool {
        match self.storage {
            Storage::Heap(_) => false,
            #[cfg(unix)]
            Storage::Mapped(_) => true,
        }
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
        match &mut self.storage {
            Storage::Heap(chunks) => &mut bytemuck::cast_slice_mut::<Chunk, u8>(chunks)[..len],
            #[cfg(unix)]
            Storage::Mapped(map) => &mut map[..len],
        }
    }
}

impl Deref for AlignedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.storage {
            Storage::Heap(chunks) => &bytemuck::cast_slice::<Chunk, u8>(chunks)[..self.len],
            #[cfg(unix)]
            Storage::Mapped(map) => &map[..self.len],
        }
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
