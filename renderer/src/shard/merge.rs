//! Merging partial films: [`check`] that the parts are every shard of one render
//! exactly once (all problems at once, each naming its files), then [`sum`] their
//! sums in f64, in shard order, into a [`HostFilm`] whose average is the image.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use super::partial::{self, PartError};
use super::{Shard, ShardInfo};
use crate::backend::HostFilm;

/// A partial film on disk and its metadata ([`partial::read_info`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub path: PathBuf,
    pub info: ShardInfo,
}

/// Why parts cannot be merged: one line per problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot merge these parts into one image:\n{}", .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
pub struct MergeError {
    pub problems: Vec<String>,
}

/// Checks that `parts` are the shards `0..N` of one render, each exactly once: the
/// same scene (blob hash), resolution, seed, max depth, NEE, sampler, total spp and shard
/// count as the first part, no shard twice, none missing. Returns the parts in shard
/// order.
pub fn check(mut parts: Vec<Part>) -> Result<Vec<Part>, MergeError> {
    let Some(first) = parts.first().cloned() else {
        return Err(MergeError { problems: vec!["no parts given".to_owned()] });
    };
    let mut problems = Vec::new();
    let reference = &first.info.render;
    let mut by_index: BTreeMap<u32, Vec<&Part>> = BTreeMap::new();
    for part in &parts {
        let differences = reference.differences(&part.info.render);
        if part.info.checkpoint {
            problems.push(format!(
                "`{}` is a checkpoint of shard {} (samples {:?} of {:?}), not a finished part: \
                 finish it with `renderer render --resume {}`",
                part.path.display(),
                part.info.shard(),
                part.info.samples,
                part.info.shard().samples(part.info.render.spp),
                part.path.display()
            ));
        } else if differences.is_empty() {
            by_index.entry(part.info.index).or_default().push(part);
        } else {
            problems.push(format!(
                "`{}` is from another render than `{}`: {}",
                part.path.display(),
                first.path.display(),
                differences.join(", ")
            ));
        }
    }
    let count = reference.shard_count;
    for (index, given) in &by_index {
        if given.len() > 1 {
            let files: Vec<String> = given.iter().map(|p| format!("`{}`", p.path.display())).collect();
            problems.push(format!(
                "shard {} is given {} times: {}",
                Shard { index: *index, count },
                given.len(),
                files.join(", ")
            ));
        }
    }
    let missing: Vec<u32> = (0..count).filter(|i| !by_index.contains_key(i)).collect();
    if !missing.is_empty() {
        problems.push(missing_text(&missing, count, reference.spp));
    }
    if !problems.is_empty() {
        return Err(MergeError { problems });
    }
    parts.sort_by_key(|p| p.info.index);
    Ok(parts)
}

/// "missing shard 4/16 (samples 1024..1280)" or, for many, a compact list of indices.
fn missing_text(missing: &[u32], count: u32, spp: u32) -> String {
    const LISTED: usize = 8;
    let noun = if missing.len() == 1 { "shard" } else { "shards" };
    if missing.len() <= LISTED {
        let each: Vec<String> = missing
            .iter()
            .map(|&index| {
                let shard = Shard { index, count };
                format!("{shard} (samples {:?})", shard.samples(spp))
            })
            .collect();
        return format!(
            "missing {noun} {}: every shard 0..{} must be given once",
            each.join(", "),
            count - 1
        );
    }
    // Runs of consecutive indices: "3, 5-9, 12".
    let mut text = String::new();
    let mut i = 0;
    while i < missing.len() {
        let mut j = i;
        while j + 1 < missing.len() && missing[j + 1] == missing[j] + 1 {
            j += 1;
        }
        let sep = if text.is_empty() { "" } else { ", " };
        let _ = if i == j {
            write!(text, "{sep}{}", missing[i])
        } else {
            write!(text, "{sep}{}-{}", missing[i], missing[j])
        };
        i = j + 1;
    }
    format!(
        "missing {} of {count} shards: {text} (every shard 0..{} must be given once)",
        missing.len(),
        count - 1
    )
}

/// Reads every part's sums (in the order given: [`check`] sorts them by shard) and
/// adds them in f64. The film's average is the merged image.
pub fn sum(parts: &[Part]) -> Result<HostFilm, PartError> {
    let Some(first) = parts.first() else {
        return Ok(HostFilm::default());
    };
    let render = &first.info.render;
    let mut film = HostFilm::new(render.width, render.height);
    for part in parts {
        let read = partial::read(&part.path)?;
        let changed = || PartError::NotPartial {
            path: part.path.display().to_string(),
            reason: "it changed while the parts were merged".to_owned(),
        };
        if read.info != part.info {
            return Err(changed());
        }
        let samples = read.info.samples.end - read.info.samples.start;
        film.add(&read.sums, samples).map_err(|_| changed())?;
    }
    Ok(film)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scene_compiler::scene::SamplerKind;

    use crate::backend::Tonemap;
    use crate::shard::RenderInfo;

    fn part(index: u32, count: u32, name: &str) -> Part {
        let render = RenderInfo {
            blob_hash: "blake3:00".to_owned(),
            width: 4,
            height: 3,
            seed: 1,
            max_depth: 8,
            nee: true,
            sampler: SamplerKind::Independent,
            spp: 64,
            shard_count: count,
        };
        let samples = Shard { index, count }.samples(64);
        Part {
            path: name.into(),
            info: ShardInfo {
                render,
                index,
                samples,
                backend: "CPU".to_owned(),
                display: Tonemap::default(),
                checkpoint: false,
            },
        }
    }

    #[test]
    fn every_shard_once_in_any_order_is_sorted() {
        let parts = vec![part(2, 3, "c"), part(0, 3, "a"), part(1, 3, "b")];
        let sorted = check(parts).expect("complete");
        assert_eq!(sorted.iter().map(|p| p.info.index).collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn missing_duplicated_and_foreign_parts_are_all_reported() {
        let mut foreign = part(1, 3, "other");
        foreign.info.render.seed = 2;
        let error = check(vec![part(0, 3, "a"), part(0, 3, "a2"), foreign]).expect_err("bad set");
        let text = error.to_string();
        assert_eq!(error.problems.len(), 3, "{text}");
        assert!(text.contains("`other` is from another render than `a`: seed 1 ≠ 2"), "{text}");
        assert!(text.contains("shard 0/3 is given 2 times: `a`, `a2`"), "{text}");
        assert!(text.contains("missing shards 1/3 (samples 21..42), 2/3 (samples 42..64)"), "{text}");
    }

    #[test]
    fn a_checkpoint_is_not_a_part() {
        let mut unfinished = part(1, 2, "ckpt.exr");
        unfinished.info.checkpoint = true;
        unfinished.info.samples = 32..40;
        let text = check(vec![part(0, 2, "a"), unfinished]).expect_err("a checkpoint").to_string();
        assert!(
            text.contains(
                "`ckpt.exr` is a checkpoint of shard 1/2 (samples 32..40 of 32..64), not a finished part: \
                 finish it with `renderer render --resume ckpt.exr`"
            ),
            "{text}"
        );
    }

    #[test]
    fn many_missing_shards_are_listed_as_runs() {
        let parts: Vec<Part> = [0, 1, 4, 9].iter().map(|&i| part(i, 16, &format!("p{i}"))).collect();
        let text = check(parts).expect_err("incomplete").to_string();
        assert!(text.contains("missing 12 of 16 shards: 2-3, 5-8, 10-15"), "{text}");
    }
}
