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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_sequential_crc_on_every_split() {
        // Sizes around the parallel threshold and chunk boundaries, bytes that differ.
        let bytes: Vec<u8> = (0..6 * CHUNK + 77).map(|i| ((i * 2_654_435_761usize) >> 13) as u8).collect();
        for len in [0, 1, 4 * CHUNK - 1, 4 * CHUNK, 4 * CHUNK + 1, 5 * CHUNK, bytes.len()] {
            assert_eq!(crc32(&bytes[..len]), crc32fast::hash(&bytes[..len]), "{len} bytes");
        }
    }
}
