//! The one scene loader: a `.ron` scene (parsed, validated and compiled in memory) or a
//! precompiled `.blob` (validated), chosen by the file's extension, ends as a
//! [`CompiledScene`]; anything wrong is one [`SceneError`]. `renderer render`, `bench`,
//! `watch` and `view` (through the session) all load through here.
//!
//! Not here: RON syntax and the blob layout (scene-compiler owns both), and when to
//! reload (`session/`).

mod blob_scene;

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use std::sync::Arc;

use scene_compiler::blob::BlobEdit;
use scene_compiler::blob::layout::HEADER_LEN;
use scene_compiler::bvh::{self, BottomTree, Bvh, BvhStats};
use scene_compiler::moves::{self, InPlace, MoveIndex};
use scene_compiler::scene::{self, LoadError, Reuse, Scene};
use scene_compiler::{AlignedBytes, BlobView, CompileOptions, Previous, compile_scene_reusing};

/// Which compiler a file goes through, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneKind {
    /// A `.ron` scene: parsed, validated and compiled in memory.
    Ron,
    /// A `.blob` from `scene-compiler build`: validated as it is.
    Blob,
}

impl SceneKind {
    /// The kind of `path` by its extension (any case).
    pub fn of(path: &Path) -> Result<SceneKind, SceneError> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("ron") => Ok(SceneKind::Ron),
            Some("blob") => Ok(SceneKind::Blob),
            _ => Err(SceneError::plain(
                SceneErrorKind::UnknownType,
                format!(
                    "`{}`: unknown scene file type; expected a `.ron` scene or a compiled `.blob`",
                    path.display()
                ),
            )),
        }
    }
}

/// What kind of problem a [`SceneError`] is; the command line maps it to an exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneErrorKind {
    /// The scene text has errors: the message is the compiler's rendered diagnostics.
    Diagnostics,
    /// A blob that fails validation, or a scene file that is not UTF-8 text.
    Invalid,
    /// The file cannot be read.
    Io,
    /// Neither `.ron` nor `.blob`.
    UnknownType,
}

/// Why a scene could not be loaded; every message names the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError {
    pub kind: SceneErrorKind,
    /// For [`SceneErrorKind::Diagnostics`] the full rendered diagnostics (`error: …`,
    /// `--> file:line:col`, source snippet); otherwise one sentence without a prefix.
    pub message: String,
    /// 1-based line of the first diagnostic; `None` when it is not about the text.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the first diagnostic.
    pub column: Option<usize>,
}

impl SceneError {
    fn plain(kind: SceneErrorKind, message: String) -> SceneError {
        SceneError { kind, message, line: None, column: None }
    }

    /// The compiler's diagnostics, located at the first one.
    pub fn from_diagnostics(error: &LoadError) -> SceneError {
        let first = error.diagnostics().first();
        SceneError {
            kind: SceneErrorKind::Diagnostics,
            message: error.to_string(),
            line: first.and_then(|d| d.line()),
            column: first.and_then(|d| d.column()),
        }
    }

    /// `path` could not be read.
    pub fn read(path: &Path, error: &std::io::Error) -> SceneError {
        SceneError::plain(SceneErrorKind::Io, format!("cannot read `{}`: {error}", path.display()))
    }
}

impl fmt::Display for SceneError {
    /// Diagnostics as rendered; any other error as `error: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            SceneErrorKind::Diagnostics => f.write_str(&self.message),
            _ => write!(f, "error: {}", self.message),
        }
    }
}

impl std::error::Error for SceneError {}

/// How long each stage of a load took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadTimes {
    /// Reading and parsing the file: RON with its validation, a blob with its validation.
    pub load_parse: Duration,
    /// For a `.ron`: the in-memory compile (BVH build and blob encode).
    pub compile: Option<Duration>,
    /// For a `.ron`: the BVH build alone (part of `compile`; near zero when reused).
    pub bvh_build: Option<Duration>,
    /// For a `.ron`: the BVH came from the previous compile (see [`CompiledScene::recompile`]).
    pub bvh_reused: bool,
    /// For a `.ron`: the BVH is the previous compile's, refitted to moved primitives.
    pub bvh_refitted: bool,
    /// For a `.ron`: turning terrains into boxes (part of `compile`).
    pub terrains: Option<Duration>,
    /// For a `.ron`: the instanced meshes' trees, and how many of them were built (the
    /// others came back unchanged from the previous compile: an edit that moves
    /// instances builds none).
    pub bottom_levels: usize,
    pub bottom_levels_built: usize,
    /// For a `.ron`: the compile moved instances in place ([`CompiledScene::move_instances`]).
    pub moved_in_place: bool,
}

/// A scene that loaded: the scene, its validated blob, and what it took.
#[derive(Debug)]
pub struct CompiledScene {
    /// The scene (decoded from the blob for a `.blob`: see `blob_scene.rs`).
    pub scene: Scene,
    /// The blob, validated when it was made or read.
    pub blob: AlignedBytes,
    /// A hash of `blob`: equal hashes mean nothing to re-upload.
    pub content_hash: u64,
    pub times: LoadTimes,
    /// Per terrain, the index of its first column among the blob's boxes (from the
    /// compile; empty for a `.blob`, whose decoded scene has no terrains).
    pub terrain_starts: Vec<u32>,
    /// Known from the build for a `.ron`; measured on first use for a `.blob`.
    bvh_stats: OnceLock<BvhStats>,
    /// The BVH of a `.ron` compile, kept for the next compile of an edit of it (a live
    /// session), with the SAH cost of the full build it comes from; `None` for a `.blob`
    /// and after [`load`], which never recompiles.
    bvh: Option<(Arc<Bvh>, f32)>,
    /// The bottom levels' trees of a `.ron` compile (instanced meshes), kept for the
    /// next compile as `bvh` is: a mesh that comes back unchanged is not built again.
    bottom_trees: Vec<Arc<BottomTree>>,
    /// [`scene_compiler::Compiled::level_reach`] of a `.ron` compile (empty for a `.blob`).
    level_reach: Vec<f32>,
    /// Where the instances sit in the tree, from the first edit that moved some in
    /// place ([`CompiledScene::move_instances`]) to the next compile of a new tree.
    move_index: Option<MoveIndex>,
    /// That index being built on a thread of its own ([`CompiledScene::start_move_index`]):
    /// the first move then does not wait the 9-11 ms it takes at 10^6 instances.
    move_index_early: Option<std::thread::JoinHandle<Option<MoveIndex>>>,
    /// Set when the last change to this scene was instances moved in place: what the
    /// blob was before and which of its bytes changed, so that a device holding that
    /// blob copies only those ([`crate::backend::Backend::update`]).
    pub edit: Option<BlobEdit>,
}

/// Instances from which [`CompiledScene::start_move_index`] builds the move index ahead;
/// fewer take well under a millisecond.
const EARLY_INDEX_INSTANCES: usize = 1 << 14;

impl CompiledScene {
    /// The blob's sections. Cheap (the header and section bounds are checked; the rest
    /// was validated when the blob was made or read), so call it once per upload.
    pub fn view(&self) -> BlobView<'_> {
        // Every CompiledScene holds a blob that `BlobView::parse` accepted (a fresh
        // compile, or a file checked in `from_blob`), never mutated since.
        BlobView::parse_accepted(&self.blob)
            .expect("a CompiledScene holds a blob that parsed when it was built")
    }

    /// Node count, depth, leaf sizes and SAH cost of the scene's BVH.
    pub fn bvh_stats(&self) -> &BvhStats {
        self.bvh_stats.get_or_init(|| bvh::stats(&self.view().tree()))
    }

    /// Compiles a validated scene.
    pub fn from_scene(scene: Scene, options: &CompileOptions) -> CompiledScene {
        CompiledScene::recompile(scene, options, None)
    }

    /// Compiles a validated scene that is an edit of `previous` (compiled with the same
    /// `options`): when the primitives did not change (a camera, settings, sky, light or
    /// material-parameter edit) the previous BVH is reused, and the blob is still byte for
    /// byte what a fresh compile gives; when as many primitives moved, the previous BVH
    /// is refitted while that keeps it good enough (`compile_scene_reusing`).
    pub fn recompile(
        scene: Scene,
        options: &CompileOptions,
        previous: Option<&CompiledScene>,
    ) -> CompiledScene {
        let start = Instant::now();
        let previous = previous.and_then(|p| {
            let (bvh, built_sah_cost) = p.bvh.as_ref()?;
            Some(Previous {
                scene: &p.scene,
                blob: &p.blob,
                bvh,
                bottom_trees: &p.bottom_trees,
                bvh_stats: p.bvh_stats.get()?,
                built_sah_cost: *built_sah_cost,
                level_reach: &p.level_reach,
            })
        });
        let compiled = compile_scene_reusing(&scene, options, previous);
        let times = LoadTimes {
            load_parse: Duration::ZERO,
            compile: Some(start.elapsed()),
            bvh_build: Some(compiled.bvh_time),
            bvh_reused: compiled.bvh_reused,
            bvh_refitted: compiled.bvh_refitted,
            terrains: Some(compiled.terrain_time),
            bottom_levels: compiled.bottom_trees.len(),
            bottom_levels_built: compiled.bottom_built,
            moved_in_place: false,
        };
        CompiledScene {
            scene,
            content_hash: blob_hash(&compiled.blob),
            blob: compiled.blob,
            times,
            terrain_starts: compiled.terrain_starts,
            bvh_stats: OnceLock::from(compiled.bvh_stats),
            bvh: Some((compiled.bvh, compiled.built_sah_cost)),
            bottom_trees: compiled.bottom_trees,
            level_reach: compiled.level_reach,
            move_index: None,
            move_index_early: None,
            edit: None,
        }
    }

    /// Starts finding where the instances sit in the tree ([`MoveIndex`]) on a thread of
    /// its own, when this is a `.ron` compile of at least [`EARLY_INDEX_INSTANCES`]
    /// instances: what a live session does after each compile, so that the first move
    /// of an instance ([`CompiledScene::move_instances`]) does not wait for it (it is
    /// built while the first frame renders). One-shot loads, which never move, do not.
    pub fn start_move_index(&mut self) {
        let Some((tree, _)) = &self.bvh else { return };
        let instances = scene_compiler::meshes::placed_instances(&self.scene).total;
        if instances < EARLY_INDEX_INSTANCES || self.move_index.is_some() {
            return;
        }
        let tree = Arc::clone(tree);
        // No thread (the system refused one): the first move builds it.
        self.move_index_early =
            std::thread::Builder::new().spawn(move || MoveIndex::new(&tree, instances)).ok();
    }

    /// Makes this compile one of `scene` in place when `scene` differs from its scene
    /// only in where some instances are placed (`scene_compiler::moves`: their records
    /// and the boxes above them rewritten in the blob, which stays byte for byte what
    /// [`CompiledScene::recompile`] would refit), recording which bytes changed in
    /// [`CompiledScene::edit`]; `scene` must be valid. Gives `scene` back, with this
    /// compile unchanged, for any other edit, and for a `.blob` or a one-shot load.
    pub fn move_instances(&mut self, scene: Scene) -> Result<(), Box<Scene>> {
        let start = Instant::now();
        let Some((bvh, built_sah_cost)) = &mut self.bvh else { return Err(Box::new(scene)) };
        let Some(stats) = self.bvh_stats.get_mut() else { return Err(Box::new(scene)) };
        if let Some(early) = self.move_index_early.take() {
            // Joined before the tree is touched: the thread's clone of it is gone then.
            self.move_index = early.join().ok().flatten();
        }
        let target = InPlace {
            scene: &self.scene,
            blob: &mut self.blob,
            bvh,
            bottom_trees: &self.bottom_trees,
            bvh_stats: stats,
            built_sah_cost: *built_sah_cost,
            level_reach: &self.level_reach,
            index: &mut self.move_index,
        };
        let Some(edit) = moves::move_instances(target, &scene) else { return Err(Box::new(scene)) };
        drop_elsewhere(std::mem::replace(&mut self.scene, scene));
        self.content_hash = blob_hash(&self.blob);
        self.edit = Some(edit);
        let bottom_levels = self.bottom_trees.len();
        self.times = LoadTimes {
            compile: Some(start.elapsed()),
            bvh_build: Some(Duration::ZERO),
            bvh_refitted: true,
            terrains: Some(Duration::ZERO),
            bottom_levels,
            moved_in_place: true,
            ..LoadTimes::default()
        };
        Ok(())
    }

    /// Compiles file content of `kind`; `path` names it in messages. `previous`: the
    /// last compile of the same file, whose BVH is reused if it still fits (see
    /// [`CompiledScene::recompile`]).
    pub fn from_bytes(
        kind: SceneKind,
        bytes: &[u8],
        path: &Path,
        options: &CompileOptions,
        previous: Option<&CompiledScene>,
    ) -> Result<CompiledScene, SceneError> {
        match kind {
            SceneKind::Ron => {
                CompiledScene::from_ron(text_of(bytes, path)?, &path.display().to_string(), options, previous)
            }
            SceneKind::Blob => CompiledScene::from_blob(bytes, path),
        }
    }

    /// Parses, validates and compiles RON scene text; `origin` names it in diagnostics.
    pub fn from_ron(
        text: &str,
        origin: &str,
        options: &CompileOptions,
        previous: Option<&CompiledScene>,
    ) -> Result<CompiledScene, SceneError> {
        let (scene, load_parse) = parse_ron(text, origin, None)?;
        let mut compiled = CompiledScene::recompile(scene, options, previous);
        compiled.times.load_parse = load_parse;
        Ok(compiled)
    }

    /// Validates blob bytes read from `path` and decodes the scene they hold.
    fn from_blob(bytes: &[u8], path: &Path) -> Result<CompiledScene, SceneError> {
        let start = Instant::now();
        let blob = AlignedBytes::copy_from(bytes);
        let scene = {
            let view = BlobView::parse(&blob).map_err(|error| {
                SceneError::plain(
                    SceneErrorKind::Invalid,
                    format!("`{}` is not a valid scene blob: {error}", path.display()),
                )
            })?;
            blob_scene::decode(&view)
        };
        let times = LoadTimes { load_parse: start.elapsed(), ..LoadTimes::default() };
        Ok(CompiledScene {
            scene,
            content_hash: blob_hash(&blob),
            blob,
            times,
            terrain_starts: Vec::new(),
            bvh_stats: OnceLock::new(),
            bvh: None,
            bottom_trees: Vec::new(),
            level_reach: Vec::new(),
            move_index: None,
            move_index_early: None,
            edit: None,
        })
    }
}

/// Parses and validates RON scene text, reading the files it names, and checks that it
/// fits in memory: the half of [`CompiledScene::from_ron`] before the compile, and how
/// long it took. With `reuse`, an earlier parse of the same file and which of its files
/// have not changed since, as `scene::parse_reusing` takes them; `origin` names the
/// text in diagnostics.
pub fn parse_ron(
    text: &str,
    origin: &str,
    reuse: Option<Reuse<'_>>,
) -> Result<(Scene, Duration), SceneError> {
    let start = Instant::now();
    let scene = match reuse {
        Some(reuse) => scene::parse_reusing(text, origin, reuse),
        None => scene::parse(text, origin),
    }
    .map_err(|e| SceneError::from_diagnostics(&e))?;
    scene_compiler::memory::check(&scene, scene_compiler::memory::available())
        .map_err(|e| SceneError::plain(SceneErrorKind::Invalid, format!("{origin}: {e}")))?;
    Ok((scene, start.elapsed()))
}

/// The text of a scene file's bytes, or the loader's error naming `path`.
pub fn text_of<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a str, SceneError> {
    scene_compiler::files::text(bytes).map_err(|e| {
        SceneError::plain(SceneErrorKind::Invalid, format!("`{}` is not UTF-8 text: {e}", path.display()))
    })
}

/// Drops `value` on a thread of its own: freeing the scene an edit replaced (at 10^6
/// instances, 40 MB of placements) took 1-3 ms of a save-to-frame on the GPU machine.
fn drop_elsewhere<T: Send + 'static>(value: T) {
    std::thread::spawn(move || drop(value));
}

/// Reads and compiles the scene at `path` (its kind by extension).
pub fn load(path: &Path, options: &CompileOptions) -> Result<CompiledScene, SceneError> {
    let kind = SceneKind::of(path)?;
    let start = Instant::now();
    let bytes = read(path)?;
    let read_time = start.elapsed();
    let mut compiled = CompiledScene::from_bytes(kind, &bytes, path, options, None)?;
    compiled.times.load_parse += read_time;
    // A one-shot load is never recompiled: free the BVH (as large as half the blob).
    compiled.bvh = None;
    Ok(compiled)
}

/// Reads a file for [`CompiledScene::from_bytes`], with the loader's error for a failure:
/// a device or a file larger than its kind's limit is refused before it is read.
pub fn read(path: &Path) -> Result<Vec<u8>, SceneError> {
    let max = match SceneKind::of(path) {
        Ok(SceneKind::Blob) => scene_compiler::limits::MAX_BLOB_BYTES,
        _ => scene_compiler::limits::MAX_INPUT_BYTES,
    };
    scene_compiler::files::read_within(path, max).map_err(|e| SceneError::read(path, &e))
}

/// The length and CRC-32 of `bytes`: enough to tell a changed file from the version
/// before it within one process (never stored). CRC-32 rather than std's SipHash: a
/// 1M-sphere save hashes its 92 MB of RON; per 100 MB SipHash takes 30 ms on the
/// 2-core dev machine, crc32fast's SIMD path 12 ms, and
/// [`scene_compiler::blob::crc32`] runs it on all cores.
pub fn content_hash(bytes: &[u8]) -> u64 {
    ((bytes.len() as u64) << 32) ^ u64::from(scene_compiler::blob::crc32(bytes))
}

/// [`content_hash`] of a validated blob, from its header alone: the header holds the
/// blob's length and the CRC-32 of everything after it (checked when the blob was read,
/// written when it was made), so it tells blobs apart as well as hashing every byte.
fn blob_hash(blob: &AlignedBytes) -> u64 {
    content_hash(&blob[..HEADER_LEN])
}

#[cfg(test)]
mod tests {
    use scene_compiler::procedural::{Format, icosphere, write};
    use scene_compiler::scene::{PlacedInstance, PlyEncoding, Transform, load_file, write_instance_file};

    use super::*;

    /// A compile of [`EARLY_INDEX_INSTANCES`] instances starts its move index on a
    /// thread of its own when asked; the first move takes it and rewrites the blob as
    /// the refit compile of the same edit writes it.
    #[test]
    fn a_compile_with_many_instances_builds_its_move_index_ahead() {
        let dir = tempfile::tempdir().expect("temp dir");
        write(&icosphere(0, 0.2), Format::PlyLittleEndian, &dir.path().join("ico.ply")).expect("model");
        let side = 128;
        assert_eq!(side * side, EARLY_INDEX_INSTANCES);
        let instances = |dy: f32| {
            let placed: Vec<PlacedInstance> = (0..EARLY_INDEX_INSTANCES)
                .map(|k| {
                    let y = if k == 5000 { dy } else { 0.0 };
                    let translate = glam::Vec3::new((k % side) as f32, y, (k / side) as f32);
                    Transform { translate, ..Transform::default() }.into()
                })
                .collect();
            write_instance_file(&placed, PlyEncoding::BinaryLittleEndian)
        };
        let trees = dir.path().join("trees.ply");
        std::fs::write(&trees, instances(0.0)).expect("instance file");
        let path = dir.path().join("scene.ron");
        let text = r#"Scene(
    camera: (look_from: (64.0, 40.0, -30.0), look_at: (64.0, 0.0, 64.0), vfov_deg: 40.0),
    settings: (width: 16, height: 8, spp: 1, max_depth: 4, seed: 0),
    materials: { "grey": Lambert(albedo: (0.5, 0.5, 0.5)) },
    boxes: [(min: (-1.0, -1.0, -1.0), max: (129.0, 1.0, 129.0), material: "grey")],
    meshes: [(file: "ico.ply", material: "grey", instance_file: "trees.ply")],
)"#;
        std::fs::write(&path, text).expect("scene");
        let options = CompileOptions::default();
        let mut compiled = CompiledScene::from_scene(load_file(&path).expect("scene"), &options);
        assert!(compiled.move_index_early.is_none(), "not started by the compile itself");
        compiled.start_move_index();
        assert!(compiled.move_index_early.is_some(), "started");
        let previous = CompiledScene::from_scene(load_file(&path).expect("scene"), &options);

        std::fs::write(&trees, instances(0.1)).expect("instance file");
        let moved = load_file(&path).expect("moved scene");
        compiled.move_instances(moved.clone()).expect("a move in place");
        assert!(compiled.move_index_early.is_none() && compiled.move_index.is_some());
        let refit = CompiledScene::recompile(moved, &options, Some(&previous));
        assert!(refit.times.bvh_refitted, "{:?}", refit.times);
        assert!(*compiled.blob == *refit.blob, "the move rewrites the blob as the refit compile writes it");
    }
}
