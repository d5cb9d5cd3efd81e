//! Checkpoints of long renders (`render --checkpoint FILE`, `--resume FILE`): the film
//! of a render not yet finished, saved as a partial film ([`super::partial`]) with
//! `rtscene.checkpoint` = 1 and the samples done so far, `[shard start, end)`. An
//! unsharded render is shard 0/1. Saved atomically (temporary file renamed over the
//! previous checkpoint), so a crash or a second signal during a save leaves the
//! previous checkpoint whole.
//!
//! [`check_resume`] decides whether a checkpoint belongs to the render about to run:
//! the same scene (blob hash), resolution, seed, max depth, NEE, sampler, spp, shard count and
//! shard index. Every sample has its own random stream and the CPU film adds each
//! pixel's samples in order, so resuming from the f32 sums continues exactly where
//! the interrupted render was: the same image, bit for bit, on the CPU.
//!
//! Not here: the render loop and the signals (cli/render.rs, cli/interrupt.rs).

use std::path::Path;

use super::partial::PartialFilm;
use super::{RenderInfo, Shard};

/// Why a checkpoint cannot resume this render: one reason per difference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{path}` is not a checkpoint of this render:\n{}\n(render with the settings it was made with, or start over without --resume)",
    .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n")
)]
pub struct ResumeError {
    pub path: String,
    pub problems: Vec<String>,
}

/// Checks that `found` (read from `path`) is a checkpoint, or a finished part, of the
/// render `expected` and shard `shard` (0/1 unsharded).
pub fn check_resume(
    path: &Path,
    found: &PartialFilm,
    expected: &RenderInfo,
    shard: Shard,
) -> Result<(), ResumeError> {
    let mut problems: Vec<String> = expected
        .differences(&found.info.render)
        .into_iter()
        .map(|d| format!("{d} (this render ≠ the checkpoint)"))
        .collect();
    if found.info.index != shard.index && found.info.render.shard_count == shard.count {
        problems.push(format!("it is shard {} and this render is shard {shard}", found.info.shard()));
    }
    if problems.is_empty() { Ok(()) } else { Err(ResumeError { path: path.display().to_string(), problems }) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scene_compiler::scene::SamplerKind;

    use crate::backend::Tonemap;
    use crate::shard::ShardInfo;

    fn render() -> RenderInfo {
        RenderInfo {
            blob_hash: crate::shard::blob_hash(b"scene"),
            width: 4,
            height: 2,
            seed: 7,
            max_depth: 8,
            nee: true,
            sampler: SamplerKind::Independent,
            spp: 16,
            shard_count: 1,
        }
    }

    fn checkpoint(render: RenderInfo, index: u32) -> PartialFilm {
        PartialFilm {
            info: ShardInfo {
                render,
                index,
                samples: 0..5,
                backend: "CPU".into(),
                display: Tonemap::default(),
                checkpoint: true,
            },
            sums: vec![[0.0; 3]; 8],
        }
    }

    #[test]
    fn a_checkpoint_of_this_render_resumes() {
        let path = Path::new("a.ckpt.exr");
        assert_eq!(
            check_resume(path, &checkpoint(render(), 0), &render(), Shard { index: 0, count: 1 }),
            Ok(())
        );
    }

    #[test]
    fn every_difference_is_a_reason() {
        let path = Path::new("a.ckpt.exr");
        let other =
            RenderInfo { seed: 8, spp: 32, width: 5, nee: false, sampler: SamplerKind::Sobol, ..render() };
        let error = check_resume(path, &checkpoint(other, 0), &render(), Shard { index: 0, count: 1 })
            .expect_err("other settings");
        let text = error.to_string();
        assert_eq!(error.problems.len(), 5, "{text}");
        assert!(text.contains("`a.ckpt.exr` is not a checkpoint of this render"), "{text}");
        assert!(text.contains("seed 7 ≠ 8 (this render ≠ the checkpoint)"), "{text}");
        assert!(text.contains("resolution 4x2 ≠ 5x2"), "{text}");
        assert!(text.contains("total spp 16 ≠ 32"), "{text}");
        assert!(text.contains("next-event estimation on ≠ off"), "{text}");
        assert!(text.contains("sampler Independent ≠ Sobol"), "{text}");

        let sharded = RenderInfo { shard_count: 4, ..render() };
        let error =
            check_resume(path, &checkpoint(sharded.clone(), 1), &sharded, Shard { index: 2, count: 4 })
                .expect_err("another shard");
        assert_eq!(error.problems, vec!["it is shard 1/4 and this render is shard 2/4".to_owned()]);
    }
}
