//! The CRC-32 (IEEE) of blobs and scene files, on all cores for large inputs: a
//! 1M-sphere scene checksums 0.17 GB per save (its RON, then its blob), which one core
//! of crc32fast's SIMD path takes about 15 ms per 100 MB for.

use rayon::prelude::*;

/// Pieces checksummed by one task; their CRCs are combined in order.
const CHUNK: usize = 1 << 20;

/// The CRC-32 (IEEE) of `bytes`, the same value as `crc32fast::hash`.
pub fn crc32(bytes: &[u8]) -> u32 {
    if bytes.len() < 4 * CHUNK {
        return crc32fast::hash(bytes);
    }
    let piece = |chunk: &[u8]| {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(chunk);
        hasher
    };
    // rayon's reduce keeps the pieces' order; CRC combination is associative.
    bytes
        .par_chunks(CHUNK)
        .map(piece)
        .reduce_with(|mut left, right| {
            left.combine(&right);
            left
        })
        .map_or(0, crc32fast::Hasher::finalize)
}

/// The CRC-32 of a message whose CRC was `crc` after the bytes `old` in it, followed by
/// `after` more bytes, were replaced by `new` (as long): CRC-32 is affine, so the two
/// messages' CRCs differ by the CRC of the difference alone, moved past the bytes after
/// it ([`crc32fast::Hasher::combine`] does the moving in O(log n)). What keeps a blob's
/// header true when a few records in it are rewritten in place, without reading the
/// rest of it.
pub(crate) fn crc32_rewritten(crc: u32, old: &[u8], new: &[u8], after: u64) -> u32 {
    debug_assert_eq!(old.len(), new.len(), "a rewrite keeps the length");
    let difference = crc32fast::hash(old) ^ crc32fast::hash(new);
    let mut moved = crc32fast::Hasher::new_with_initial_len(difference, 0);
    moved.combine(&crc32fast::Hasher::new_with_initial_len(0, after));
    crc ^ moved.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_window_updates_the_crc_as_a_full_pass_would() {
        let bytes: Vec<u8> = (0..70_000usize).map(|i| ((i * 2_654_435_761usize) >> 11) as u8).collect();
        for (start, len) in [(0, 1), (0, 144), (13, 48), (40_000, 4096), (69_999, 1), (69_856, 144)] {
            let mut edited = bytes.clone();
            for (k, b) in edited[start..start + len].iter_mut().enumerate() {
                *b ^= (k as u8).wrapping_mul(31) | 1;
            }
            let after = (bytes.len() - start - len) as u64;
            let window = start..start + len;
            let updated = crc32_rewritten(crc32(&bytes), &bytes[window.clone()], &edited[window], after);
            assert_eq!(updated, crc32(&edited), "{len} bytes at {start}");
        }
    }

    #[test]
    fn equals_the_sequential_crc_on_every_split() {
        // Sizes around the parallel threshold and chunk boundaries, bytes that differ.
        let bytes: Vec<u8> = (0..6 * CHUNK + 77).map(|i| ((i * 2_654_435_761usize) >> 13) as u8).collect();
        for len in [0, 1, 4 * CHUNK - 1, 4 * CHUNK, 4 * CHUNK + 1, 5 * CHUNK, bytes.len()] {
            assert_eq!(crc32(&bytes[..len]), crc32fast::hash(&bytes[..len]), "{len} bytes");
        }
    }
}
