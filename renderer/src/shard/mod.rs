//! Sharded renders for render farms (docs/shards.md): shard `i` of `N` renders one
//! contiguous range of the frame's sample indices into a fresh film and writes it as
//! a *partial film* (float sums, the sample count and what render it belongs to);
//! `renderer merge` checks that the parts are one render's every shard, adds their
//! sums and writes the image.
//!
//! - [`sample_range`]: shard `i` of `N` gets samples `[i·spp/N, (i+1)·spp/N)`
//!   (integer division), so the shards cover `0..spp` exactly once, in order, and
//!   their sizes differ by at most one. The random streams are per (pixel, sample
//!   index), so a shard renders exactly the samples an unsharded render would.
//!   `job::split_weighted` is the same split in proportion to weights (several GPUs).
//! - [`partial`]: the partial film in OpenEXR, the metadata as header attributes.
//! - [`merge`]: the checks (same render, every shard once) and the f64 sum.
//! - [`checkpoint`]: an unfinished render's film saved as a partial film of the
//!   samples done so far (`render --checkpoint`), and the checks before `--resume`.

pub mod checkpoint;
pub mod merge;
pub mod partial;

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use scene_compiler::scene::SamplerKind;

use crate::backend::Tonemap;

/// Most shards one render can be split into (the index is stored as a 32-bit int).
pub const MAX_SHARDS: u32 = 1 << 16;

/// Shard `index` of `count` (`--shard 3/16`: index 3 of shards 0..=15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The samples this shard renders of a `spp`-sample render ([`sample_range`]).
    pub fn samples(&self, spp: u32) -> Range<u32> {
        sample_range(spp, self.index, self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `i/N` with `0 <= i < N <= MAX_SHARDS`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || format!("`{text}` is not a shard: write INDEX/COUNT, e.g. 3/16 (indices from 0)");
        let (index, count) = text.split_once('/').ok_or_else(usage)?;
        let index: u32 = index.trim().parse().map_err(|_| usage())?;
        let count: u32 = count.trim().parse().map_err(|_| usage())?;
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("`{text}`: the shard count must be 1 to {MAX_SHARDS}"));
        }
        if index >= count {
            return Err(format!(
                "`{text}`: shard indices run from 0 to {} (like a job array's task index)",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }
}

/// The samples of shard `index` of `count` of a `spp`-sample render:
/// `[index·spp/count, (index+1)·spp/count)` in integer arithmetic (no overflow: u64).
/// The shards partition `0..spp` in index order; sizes are `spp/count` or one more;
/// with more shards than samples some are empty (they render nothing and still
/// write their partial film, so that a job array's every task succeeds).
pub fn sample_range(spp: u32, index: u32, count: u32) -> Range<u32> {
    let at = |i: u32| (u64::from(spp) * u64::from(i) / u64::from(count.max(1))) as u32;
    at(index.min(count))..at((index + 1).min(count))
}

/// The content hash that ties a partial film to its scene: BLAKE3 of the compiled
/// blob's bytes (deterministic for a scene and compile options), as `blake3:<hex>`.
pub fn blob_hash(blob: &[u8]) -> String {
    format!("blake3:{}", blake3::hash(blob).to_hex())
}

/// What makes two partial films parts of the same render: equal in every field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderInfo {
    /// [`blob_hash`] of the scene as compiled.
    pub blob_hash: String,
    pub width: u32,
    pub height: u32,
    pub seed: u32,
    pub max_depth: u32,
    /// Next-event estimation on (off: `--no-nee`).
    pub nee: bool,
    /// How sample points are drawn: parts of different samplers are not one render.
    pub sampler: SamplerKind,
    /// Samples per pixel of the whole render, all shards together.
    pub spp: u32,
    /// How many shards the render is split into.
    pub shard_count: u32,
}

impl RenderInfo {
    /// Every field that differs from `other`, as `name: ours ≠ theirs`.
    pub fn differences(&self, other: &RenderInfo) -> Vec<String> {
        let mut out = Vec::new();
        let mut field = |name: &str, a: String, b: String| {
            if a != b {
                out.push(format!("{name} {a} ≠ {b}"));
            }
        };
        field("scene blob hash", self.blob_hash.clone(), other.blob_hash.clone());
        field(
            "resolution",
            format!("{}x{}", self.width, self.height),
            format!("{}x{}", other.width, other.height),
        );
        field("seed", self.seed.to_string(), other.seed.to_string());
        field("max depth", self.max_depth.to_string(), other.max_depth.to_string());
        let nee = |on: bool| if on { "on" } else { "off" }.to_owned();
        field("next-event estimation", nee(self.nee), nee(other.nee));
        field("sampler", self.sampler.name().to_owned(), other.sampler.name().to_owned());
        field("total spp", self.spp.to_string(), other.spp.to_string());
        field("shard count", self.shard_count.to_string(), other.shard_count.to_string());
        out
    }
}

/// The metadata of one partial film.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardInfo {
    pub render: RenderInfo,
    pub index: u32,
    /// The sample indices summed in this film (`samples.len()` divides nothing
    /// alone: the merge divides the sum of all parts by the render's spp).
    pub samples: Range<u32>,
    /// The backend and device that rendered it ("CPU · 16 threads").
    pub backend: String,
    /// The exposure and view transform the part was rendered with: not part of the
    /// render's identity (a display transform), what `merge` encodes a PNG with unless
    /// told otherwise.
    pub display: Tonemap,
    /// A checkpoint of an unfinished render (`render --checkpoint`): `samples` is the
    /// start of the shard's range, not all of it. `merge` refuses it; `render
    /// --resume` renders the rest ([`checkpoint`]).
    pub checkpoint: bool,
}

impl ShardInfo {
    /// This part's shard.
    pub fn shard(&self) -> Shard {
        Shard { index: self.index, count: self.render.shard_count }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::split_weighted;

    #[test]
    fn shards_cover_every_sample_exactly_once() {
        for spp in [0, 1, 2, 3, 7, 16, 30, 64, 100, 4096, 65_537, 1 << 20] {
            for count in [1, 2, 3, 5, 7, 16, 64, 100, 1000, MAX_SHARDS] {
                let mut next = 0;
                let mut sizes = Vec::new();
                for index in 0..count {
                    let range = sample_range(spp, index, count);
                    assert_eq!(
                        range.start, next,
                        "spp {spp}, shard {index}/{count} starts where the last ended"
                    );
                    assert!(range.start <= range.end);
                    sizes.push(range.len() as u32);
                    next = range.end;
                }
                assert_eq!(next, spp, "spp {spp} in {count} shards ends at spp");
                let (min, max) = (sizes.iter().min().copied(), sizes.iter().max().copied());
                assert!(
                    max.unwrap_or(0) - min.unwrap_or(0) <= 1,
                    "spp {spp}/{count}: sizes {min:?}..{max:?}"
                );
                if count > spp {
                    assert_eq!(sizes.iter().filter(|&&s| s == 0).count() as u32, count - spp, "empty shards");
                }
            }
        }
    }

    #[test]
    fn the_split_is_the_documented_formula() {
        assert_eq!(sample_range(4096, 3, 16), 768..1024);
        assert_eq!(sample_range(10, 0, 3), 0..3);
        assert_eq!(sample_range(10, 1, 3), 3..6);
        assert_eq!(sample_range(10, 2, 3), 6..10);
        assert_eq!(sample_range(2, 0, 4), 0..0, "more shards than samples: empty shards");
        assert_eq!(sample_range(u32::MAX, MAX_SHARDS - 1, MAX_SHARDS).end, u32::MAX, "no overflow");
    }

    #[test]
    fn equal_weights_split_like_shards() {
        for (spp, count) in [(4096, 16), (10, 3), (3, 7)] {
            let pieces = split_weighted(0..spp, &vec![1; count as usize]);
            let shards: Vec<_> = (0..count).map(|i| sample_range(spp, i, count)).collect();
            assert_eq!(pieces, shards, "equal weights split like shards");
        }
    }

    #[test]
    fn shards_parse_as_index_slash_count() {
        assert_eq!("3/16".parse::<Shard>(), Ok(Shard { index: 3, count: 16 }));
        assert_eq!("0/1".parse::<Shard>(), Ok(Shard { index: 0, count: 1 }));
        for bad in ["16/16", "3", "a/b", "-1/4", "1/0", "0/65537", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 3, count: 16 }.to_string(), "3/16");
    }

    #[test]
    fn the_blob_hash_is_blake3_hex() {
        let hash = blob_hash(b"abc");
        assert_eq!(hash, "blake3:6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85");
    }
}
