//! One compile of the watched file: scene text or blob bytes in, a [`CompiledScene`]
//! or a [`SceneError`] out, plus the content hashes the session compares.
//!
//! Not here: files and events (`watcher.rs`) or when to compile (`mod.rs`).

use std::hash::Hasher;
use std::path::Path;

use scene_compiler::bvh::{self, BvhStats};
use scene_compiler::{AlignedBytes, BlobView, CompileOptions, LoadError, Scene, compile_scene, scene};

use super::{SceneError, blob_scene};

/// A scene that compiled: the scene, its validated blob and what the BVH looks like.
#[derive(Debug)]
pub struct CompiledScene {
    /// The scene (decoded from the blob when the session watches a `.blob`).
    pub scene: Scene,
    /// The blob, validated once by [`BlobView::parse`].
    pub blob: AlignedBytes,
    pub bvh_stats: BvhStats,
    /// A hash of `blob`: equal hashes mean nothing to re-upload.
    pub content_hash: u64,
}

impl CompiledScene {
    /// The blob's sections. Validates again (linear in the blob's size), so call it once per upload.
    pub fn view(&self) -> BlobView<'_> {
        // Every CompiledScene is built from a blob that `BlobView::parse` accepted, and the
        // bytes are never mutated afterwards, so this cannot fail.
        BlobView::parse(&self.blob).expect("a CompiledScene holds a blob that parsed when it was built")
    }

    /// Compiles a validated scene.
    pub(super) fn from_scene(scene: Scene, options: &CompileOptions) -> CompiledScene {
        let compiled = compile_scene(&scene, options);
        let content_hash = content_hash(&compiled.blob);
        CompiledScene { scene, blob: compiled.blob, bvh_stats: compiled.bvh_stats, content_hash }
    }

    /// Parses, validates and compiles RON scene text; `origin` names it in diagnostics.
    pub(super) fn from_ron(
        text: &str,
        origin: &str,
        options: &CompileOptions,
    ) -> Result<CompiledScene, SceneError> {
        let scene = scene::parse(text, origin).map_err(|e| SceneError::from_load(&e))?;
        Ok(CompiledScene::from_scene(scene, options))
    }

    /// Validates blob bytes read from `path` and decodes the scene they hold.
    pub(super) fn from_blob(bytes: &[u8], path: &Path) -> Result<CompiledScene, SceneError> {
        let blob = AlignedBytes::copy_from(bytes);
        let (scene, bvh_stats) = {
            let view = BlobView::parse(&blob).map_err(|error| SceneError {
                message: format!("`{}` is not a valid scene blob: {error}", path.display()),
                line: None,
                column: None,
            })?;
            (blob_scene::decode(&view), bvh::stats(&view.tree()))
        };
        let content_hash = content_hash(&blob);
        Ok(CompiledScene { scene, blob, bvh_stats, content_hash })
    }
}

impl SceneError {
    /// The rendered diagnostics, located at the first one.
    pub(super) fn from_load(error: &LoadError) -> SceneError {
        let first = error.diagnostics().first();
        SceneError {
            message: error.to_string(),
            line: first.and_then(|d| d.line()),
            column: first.and_then(|d| d.column()),
        }
    }
}

/// A 64-bit hash of `bytes` (std's SipHash): enough to tell a changed file or blob from
/// an unchanged one within one process; never stored.
pub(super) fn content_hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}
