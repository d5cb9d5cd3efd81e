//! A live editing session (docs/architecture.md, "The watch/edit loop"): the watched
//! scene file (and kernels folder), the last scene that compiled, and the last error.
//! The egui viewer (`renderer view`) and the headless `renderer watch` both drive it;
//! loading itself is the one loader's (`crate::load`).
//!
//! A broken save never loses anything: the last good scene stays current and the
//! error, with its location, is kept until the next success. Reloads are decided by
//! content hashes, so saves with no change, the watcher's echo of [`Session::save`]
//! (of the scene file and of the instance files it wrote) and the events that reading
//! the file causes never reload.
//!
//! Behaviour a caller can rely on:
//! - [`SPP_PER_FRAME`] is the samples per pixel of one interactive frame.
//! - [`Session::wait`] blocks until something reloads or the timeout passes (not just
//!   until the first event: events that change nothing are skipped).
//! - [`Session::apply`] validates the edited model by the rules a file obeys
//!   (`scene::check`), without writing it out; its errors name the value's path.
//! - [`Session::save`] refuses (Err, nothing written) a scene that does not validate,
//!   and any session on a `.blob`; it writes the instance files whose instances the
//!   scene moved before the scene file. Neither write comes back as a reload (nor
//!   compiles the scene again), while the files hold what it wrote: an edit applied
//!   after the save stays current; another program's later change of either reloads.
//! - A `.blob` session's [`CompiledScene::scene`] is decoded from the blob (material
//!   names become `material0`…).
//! - The initial load counts as generation 1; a scene that fails at open leaves 0.
//! - Kernel reloads bump the generation too; their `content_changed` is false.
//! - A reload, edit or save whose primitives did not change (camera, settings, sky,
//!   lights, material parameters) reuses the current scene's BVH.
//! - A reload or edit that only moves instances, while no one else holds the current
//!   scene (`renderer watch` between frames; the viewer once its render thread has
//!   uploaded it), changes the current scene in place ([`CompiledScene::move_instances`])
//!   and sets its `edit`, for `Backend::update`; anything else makes a new scene.
//! - A reload reads again only the input files that may have changed: one the watcher
//!   named, or whose size or modification time differs from when the current scene read
//!   it, or that was written less than a second before that read (`STAMP_MARGIN`); `.obj` and
//!   `.gltf` models (which name other files) always.
//! - The files a scene reads (terrain images, model files, instance and sphere files,
//!   texture and environment images) are watched like the scene: saving one reloads the
//!   scene. Which files those are is learnt from each scene that loads, so
//!   an image that is missing when the scene first fails to load is not watched until
//!   the scene text changes.

mod watcher;

use std::collections::{BTreeSet, HashMap};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use scene_compiler::CompileOptions;
use scene_compiler::scene::{self, Reuse, Scene};

use self::watcher::{Touched, Watcher, canonical_file};
use crate::backend::cuda::is_kernel_source;
use crate::load::{self, CompiledScene, SceneError, SceneKind, content_hash};

/// Samples per pixel of one interactive frame (the viewer's default, `renderer watch`'s `--spp`).
pub const SPP_PER_FRAME: u32 = 4;

/// How a session watches and compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionOptions {
    /// The quiet spell that ends a burst of saves. A save after a quiet spell is read at
    /// once, with no wait; saves less than this apart are read once, when they stop (a
    /// storm of saves reloads about twice). An in-place write that was read before it was
    /// complete and does not parse is retried after this long (or at its next event)
    /// before its error is reported; a save that renamed a file over the scene is complete
    /// and reported at once. 20 ms: short next to the save-to-frame budget (50 ms on the
    /// GPU), long next to an editor's write (see `watcher.rs`).
    pub debounce: Duration,
    pub compile: CompileOptions,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions { debounce: Duration::from_millis(20), compile: CompileOptions::default() }
    }
}

/// What a reload was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    Scene,
    Kernels,
}

/// One handled change.
#[derive(Clone, Debug, PartialEq)]
pub struct Reload {
    /// The session's generation after this reload (unchanged when it failed).
    pub generation: u64,
    pub changed: Changed,
    /// From the moment the file's save completed (its status-change time: a rename-save's
    /// rename; `saved_at`) to the moment the event was handled: after a quiet spell only
    /// the event's delivery; within a burst of saves, the debounce too.
    pub detect: Duration,
    /// Reading, parsing, validating and compiling (zero for kernels: the backend compiles them).
    pub compile: Duration,
    /// Ok: a new current scene (or, for Changed::Kernels, the kernels folder changed and the owner of the backend
    /// must call Backend::reload_kernels). Err: the scene failed; the last good one stays.
    pub outcome: Result<(), SceneError>,
    /// False when the content hash equals the current scene's (a save with no change): no re-upload needed.
    pub content_changed: bool,
}

/// A watched scene and the last good compile of it.
pub struct Session {
    scene_path: PathBuf,
    kernels_dir: Option<PathBuf>,
    kind: SceneKind,
    options: SessionOptions,
    watcher: Watcher,
    current: Option<Arc<CompiledScene>>,
    last_error: Option<SceneError>,
    generation: u64,
    /// Hash of the file content last handled (good or bad), or written by `save`; `None`
    /// after the file went missing, so that its return reloads even with equal content.
    file_hash: Option<u64>,
    /// The instance files `save` wrote, as the watcher names them, each with the hash of
    /// what it wrote: a change of one that still holds that is `save`'s own echo, which
    /// would compile the whole scene again (1.1 s at 10^6 instances) and undo an edit
    /// applied since. Emptied whenever the scene's files are read again, so that what a
    /// file holds is never taken for what the current scene was made of.
    own_writes: HashMap<PathBuf, u64>,
    /// Hash of the kernels folder's sources last reported.
    kernels_hash: Option<u64>,
    /// When an in-place write that was read unsettled and did not compile is read again
    /// (and its error reported), unless an event comes first.
    retry_at: Option<Instant>,
    /// The current scene's input files as they were when it read them (size and
    /// modification time), for those last modified well before that read: a reload
    /// takes a file from the current scene instead of reading it again while it still
    /// has this stamp and the watcher has not named it (`Session::unchanged`).
    stamps: HashMap<PathBuf, Stamp>,
}

/// A file's size and modification time.
type Stamp = (u64, SystemTime);

/// How long before a load its input files must have last been modified for their stamps
/// to be kept: a file written around the time it was read (the clock that stamps files
/// runs a few milliseconds behind) is read again at the next reload.
const STAMP_MARGIN: Duration = Duration::from_secs(1);

/// A compile of a change: a new scene, or the current one with instances moved in place.
enum Compiled {
    New(Box<CompiledScene>),
    /// With the current scene's content hash before the move.
    Moved(u64),
}

impl Session {
    /// Watches `scene_path` (a .ron; .blob also accepted: reloaded when it changes) and, when given, the kernels folder.
    /// Err only when the file cannot be read at all or the watcher cannot start; a scene with errors opens with
    /// `current() == None` and `last_error()` set.
    pub fn open(
        scene_path: &Path,
        kernels_dir: Option<&Path>,
        options: SessionOptions,
    ) -> anyhow::Result<Session> {
        let kind = SceneKind::of(scene_path)?;
        // Watch first, so a save between the read below and the watch is not lost.
        let watcher = Watcher::start(scene_path, kernels_dir, options.debounce)?;
        let bytes = load::read(scene_path)?;
        let kernels_hash = kernels_dir.map(kernels_hash).transpose()?;
        let mut session = Session {
            scene_path: scene_path.to_owned(),
            kernels_dir: kernels_dir.map(Path::to_owned),
            kind,
            options,
            watcher,
            current: None,
            last_error: None,
            generation: 0,
            file_hash: None,
            own_writes: HashMap::new(),
            kernels_hash,
            retry_at: None,
            stamps: HashMap::new(),
        };
        session.take_content(&bytes, Duration::ZERO);
        Ok(session)
    }

    /// Non-blocking: drains watcher events; on a change recompiles and returns what happened.
    pub fn poll(&mut self) -> Vec<Reload> {
        let touched = self.watcher.drain();
        self.handle(touched)
    }

    /// Like poll but blocks until something reloads or `timeout` passes.
    pub fn wait(&mut self, timeout: Duration) -> Vec<Reload> {
        let deadline = Instant::now() + timeout;
        loop {
            let wake = self.retry_at.map_or(deadline, |retry| retry.min(deadline));
            let touched = self.watcher.wait(wake);
            let reloads = self.handle(touched);
            if !reloads.is_empty() || Instant::now() >= deadline {
                return reloads;
            }
        }
    }

    /// The last scene that compiled (None until one does).
    pub fn current(&self) -> Option<&Arc<CompiledScene>> {
        self.current.as_ref()
    }

    /// The last compile error, cleared by the next success.
    pub fn last_error(&self) -> Option<&SceneError> {
        self.last_error.as_ref()
    }

    /// Bumped by every successful reload, apply or save.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The scene file, as given to [`Session::open`].
    pub fn scene_path(&self) -> &Path {
        &self.scene_path
    }

    /// The watched kernels folder, as given to [`Session::open`].
    pub fn kernels_dir(&self) -> Option<&Path> {
        self.kernels_dir.as_deref()
    }

    /// Compiles an in-memory edit (the editor's), making it current without writing the file.
    /// A texture image the edit names but did not read ([`scene::Texture::image_to_read`])
    /// is read here from the scene file's folder, as a file's is; one that cannot be used
    /// is an error like any invalid edit.
    pub fn apply(&mut self, mut scene: Scene) -> Result<Reload, SceneError> {
        let start = Instant::now();
        let folder = self.scene_path.parent().unwrap_or(Path::new(""));
        let read = scene::read_inputs(&mut scene, folder, &self.edited_origin());
        // An edited Scene never went through validation: check it by the rules a file obeys.
        if let Err(error) =
            read.map_err(|e| SceneError::from_diagnostics(&e)).and_then(|()| self.check(&scene))
        {
            self.last_error = Some(error.clone());
            return Err(error);
        }
        let reload = match self.compile(scene, Duration::ZERO) {
            Compiled::New(compiled) => {
                self.make_current(*compiled, Changed::Scene, Duration::ZERO, start.elapsed())
            }
            Compiled::Moved(before) => self.moved(before, Duration::ZERO, start.elapsed()),
        };
        Ok(reload)
    }

    /// Writes `scene` to the scene file with scene_compiler::scene::to_ron (atomically: temp file in the same
    /// folder + rename), after the instance files whose instances it moved, makes it current, and makes sure
    /// the watcher's events for these writes do NOT cause a second reload (or compile). A scene that does not
    /// validate is not written (Err); nor is anything for a `.blob` session.
    pub fn save(&mut self, scene: &Scene) -> anyhow::Result<()> {
        if self.kind == SceneKind::Blob {
            anyhow::bail!(
                "`{}` is a compiled blob: save the scene as a `.ron` and open that to edit it",
                self.scene_path.display()
            );
        }
        self.check(scene).map_err(|e| anyhow::anyhow!("not saved: the scene does not validate\n{e}"))?;
        let instance_files = write_instance_files(scene)?;
        let text = scene::to_ron(scene);
        let compiled =
            CompiledScene::recompile(scene.clone(), &self.options.compile, self.current.as_deref());
        write_atomically(&self.scene_path, text.as_bytes())?;
        // The watcher will report these writes; their content hashes now match, so they
        // are skipped. (Had the scene file's write failed, the instance files' events
        // would reload: the current scene is not made of them.)
        self.file_hash = Some(content_hash(text.as_bytes()));
        for (path, hash) in instance_files {
            // A file the watcher cannot name is not watched either: no echo to skip.
            if let Ok(path) = canonical_file(&path) {
                self.own_writes.insert(path, hash);
            }
        }
        self.make_current(compiled, Changed::Scene, Duration::ZERO, Duration::ZERO);
        Ok(())
    }

    /// Checks an in-memory scene by the rules a file obeys.
    /// What is as it was in the current scene (which passed them) is not checked again.
    fn check(&self, scene: &Scene) -> Result<(), SceneError> {
        let origin = self.edited_origin();
        match &self.current {
            Some(current) => scene::check_edit(scene, &current.scene, &origin),
            None => scene::check(scene, &origin),
        }
        .map_err(|e| SceneError::from_diagnostics(&e))
    }

    /// How messages about an in-memory edit name the scene.
    fn edited_origin(&self) -> String {
        format!("{} (edited)", self.scene_path.display())
    }

    /// Handles what the watcher reported, and a due retry; the scene first, then the kernels.
    fn handle(&mut self, touched: Touched) -> Vec<Reload> {
        let mut reloads = Vec::new();
        let retry = self.retry_at.is_some_and(|at| Instant::now() >= at);
        // A due retry reads what the file settled on; a new event decides for itself.
        let settled = if touched.scene { touched.scene_settled } else { retry };
        if (touched.scene || retry)
            && let Some(reload) = self.reload_scene(settled, &touched.inputs)
        {
            reloads.push(reload);
        }
        if touched.kernels
            && let Some(reload) = self.reload_kernels()
        {
            reloads.push(reload);
        }
        reloads
    }

    /// Re-reads the scene file; `None` when its content is what was last handled (and no
    /// input of it changed: `inputs`, but for `save`'s own writes, or when the compiled
    /// scene came out the same) or it is gone, or when it is not `settled` (maybe
    /// half-written) and does not compile: then it is read again at its next event or
    /// after the debounce, and only then reported.
    fn reload_scene(&mut self, settled: bool, touched: &BTreeSet<PathBuf>) -> Option<Reload> {
        let start = Instant::now();
        self.retry_at = None;
        let detect = age(self.newest_change());
        let bytes = match std::fs::read(&self.scene_path) {
            Ok(bytes) => bytes,
            // Deleted (or mid-rename): keep the last good scene; its return reloads.
            Err(e) if e.kind() == ErrorKind::NotFound => {
                self.file_hash = None;
                return None;
            }
            Err(e) => {
                let error = SceneError::read(&self.scene_path, &e);
                self.file_hash = None;
                self.last_error = Some(error.clone());
                return Some(self.failed(error, detect, start.elapsed()));
            }
        };
        let hash = content_hash(&bytes);
        let same_text = self.file_hash == Some(hash);
        let inputs = touched.iter().any(|input| !self.holds_own_write(input));
        if same_text && !inputs {
            return None;
        }
        // The compile reads every file that may have changed again.
        self.own_writes.clear();
        match self.compile_file(&bytes, touched) {
            Ok(Compiled::Moved(before)) => {
                self.file_hash = Some(hash);
                Some(self.moved(before, detect, start.elapsed()))
            }
            // An input's event that changed nothing (its file rewritten as it was).
            Ok(Compiled::New(compiled))
                if same_text
                    && self.last_error.is_none()
                    && self.current.as_ref().is_some_and(|c| c.content_hash == compiled.content_hash) =>
            {
                None
            }
            Ok(Compiled::New(compiled)) => {
                self.file_hash = Some(hash);
                Some(self.make_current(*compiled, Changed::Scene, detect, start.elapsed()))
            }
            Err(_) if !settled => {
                // Not handled yet: `file_hash` stays, so the retry reads and reports it.
                self.retry_at = Some(Instant::now() + self.options.debounce);
                None
            }
            Err(error) => {
                self.file_hash = Some(hash);
                self.last_error = Some(error.clone());
                Some(self.failed(error, detect, start.elapsed()))
            }
        }
    }

    /// Reads, parses and compiles the scene file's `bytes`: a `.ron` taking from the
    /// current scene the files that have not changed (`touched`: the inputs the watcher
    /// named), and moving its instances in place when that is all the change is.
    fn compile_file(&mut self, bytes: &[u8], touched: &BTreeSet<PathBuf>) -> Result<Compiled, SceneError> {
        let (path, options) = (&self.scene_path, &self.options.compile);
        if self.kind == SceneKind::Blob {
            let compiled = CompiledScene::from_bytes(self.kind, bytes, path, options, None)?;
            return Ok(Compiled::New(Box::new(compiled)));
        }
        let text = load::text_of(bytes, path)?;
        let started = SystemTime::now();
        let unchanged = |file: &Path| self.unchanged(file, touched);
        let reuse = self.current.as_deref().map(|c| Reuse { previous: &c.scene, unchanged: &unchanged });
        let (scene, parse) = load::parse_ron(text, &path.display().to_string(), reuse)?;
        self.stamps = stamps(&scene, started);
        Ok(self.compile(scene, parse))
    }

    /// Compiles a valid scene: in place when the current scene is this session's alone
    /// and the change moves instances only, else anew (reusing what it can of the
    /// current compile). `parse`: the time it took to read.
    fn compile(&mut self, scene: Scene, parse: Duration) -> Compiled {
        let scene = match self.current.as_mut().and_then(Arc::get_mut) {
            Some(current) => {
                let before = current.content_hash;
                match current.move_instances(scene) {
                    Ok(()) => {
                        current.times.load_parse = parse;
                        return Compiled::Moved(before);
                    }
                    Err(scene) => *scene,
                }
            }
            None => scene,
        };
        let mut compiled = CompiledScene::recompile(scene, &self.options.compile, self.current.as_deref());
        compiled.times.load_parse = parse;
        Compiled::New(Box::new(compiled))
    }

    /// Whether `file`, an input of the current scene, is as that scene read it: the
    /// watcher did not name it in this change (`touched`) and it has the stamp it had.
    fn unchanged(&self, file: &Path, touched: &BTreeSet<PathBuf>) -> bool {
        let named = canonical_file(file).map_or(true, |canonical| touched.contains(&canonical));
        !named && self.stamps.get(file).is_some_and(|&stamp| stamp_of(file) == Some(stamp))
    }

    /// Whether `input` (as the watcher names it) is an instance file `save` wrote and
    /// still holds what it wrote.
    fn holds_own_write(&self, input: &Path) -> bool {
        self.own_writes
            .get(input)
            .is_some_and(|&hash| std::fs::read(input).is_ok_and(|b| content_hash(&b) == hash))
    }

    /// When the newest save of the scene file and the inputs of the current scene
    /// completed ([`saved_at`]): a reload that an image or model file caused is timed
    /// from its save.
    fn newest_change(&self) -> std::io::Result<SystemTime> {
        let saved = |path: &Path| std::fs::metadata(path).and_then(|m| saved_at(&m));
        let mut newest = saved(&self.scene_path)?;
        if let Some(current) = &self.current {
            for input in current.scene.input_files() {
                newest = newest.max(saved(input).unwrap_or(SystemTime::UNIX_EPOCH));
            }
        }
        Ok(newest)
    }

    /// Compiles file content and makes it current, or records the error.
    fn take_content(&mut self, bytes: &[u8], detect: Duration) -> Reload {
        let start = Instant::now();
        self.file_hash = Some(content_hash(bytes));
        match self.compile_file(bytes, &BTreeSet::new()) {
            Ok(Compiled::New(compiled)) => {
                self.make_current(*compiled, Changed::Scene, detect, start.elapsed())
            }
            Ok(Compiled::Moved(before)) => self.moved(before, detect, start.elapsed()),
            Err(error) => {
                self.last_error = Some(error.clone());
                self.failed(error, detect, start.elapsed())
            }
        }
    }

    /// Reports a kernels change when the sources' content differs from the last one reported.
    fn reload_kernels(&mut self) -> Option<Reload> {
        let dir = self.kernels_dir.as_deref()?;
        let detect = age(newest_kernel_save(dir));
        // A folder that cannot be read now is reported, so the backend's reload says why.
        let hash = kernels_hash(dir).ok();
        if hash.is_some() && hash == self.kernels_hash {
            return None;
        }
        self.kernels_hash = hash;
        self.generation += 1;
        Some(Reload {
            generation: self.generation,
            changed: Changed::Kernels,
            detect,
            compile: Duration::ZERO,
            outcome: Ok(()),
            content_changed: false,
        })
    }

    /// Bookkeeping after [`CompiledScene::move_instances`] changed the current scene in
    /// place; `before`: its content hash until then.
    fn moved(&mut self, before: u64, detect: Duration, compile: Duration) -> Reload {
        self.last_error = None;
        self.generation += 1;
        let content_changed = self.current.as_ref().is_none_or(|c| c.content_hash != before);
        Reload {
            generation: self.generation,
            changed: Changed::Scene,
            detect,
            compile,
            outcome: Ok(()),
            content_changed,
        }
    }

    fn make_current(
        &mut self,
        mut compiled: CompiledScene,
        changed: Changed,
        detect: Duration,
        compile: Duration,
    ) -> Reload {
        // A big instanced scene's first move need not wait for its index.
        compiled.start_move_index();
        let content_changed = self.current.as_ref().is_none_or(|c| c.content_hash != compiled.content_hash);
        let scene = &compiled.scene;
        let inputs = scene.input_files();
        // The image was just read, so its folder exists: a failure here is the system's
        // watch limit, and costs only the automatic reload on the image's next save.
        let _ = self.watcher.watch_inputs(&inputs);
        self.current = Some(Arc::new(compiled));
        self.last_error = None;
        self.generation += 1;
        Reload { generation: self.generation, changed, detect, compile, outcome: Ok(()), content_changed }
    }

    fn failed(&self, error: SceneError, detect: Duration, compile: Duration) -> Reload {
        Reload {
            generation: self.generation,
            changed: Changed::Scene,
            detect,
            compile,
            outcome: Err(error),
            content_changed: false,
        }
    }
}

/// Writes back each instance file whose instances `scene` changed (the editor moves a
/// file's instances in memory): the file is read again and, where it differs, replaced
/// atomically in its own encoding. A file that cannot be written back without loss
/// (`InstanceFileData::rewrite`) is never edited, so never written. Returns the files
/// written, each with the [`content_hash`] of what was written (its watcher event is
/// the session's own echo while the file holds that).
fn write_instance_files(scene: &Scene) -> anyhow::Result<Vec<(PathBuf, u64)>> {
    let mut written = Vec::new();
    for mesh in scene.meshes.iter().filter(|m| m.instance_file.is_some()) {
        let data = &mesh.placements;
        let Ok(encoding) = data.rewrite else { continue };
        let on_disk = scene::read_instance_file(&data.path).map_err(|e| {
            anyhow::anyhow!("not saved: cannot read instance file `{}` again: {e}", data.path.display())
        })?;
        if on_disk.instances != data.instances {
            let bytes = scene::write_instance_file(&data.instances, encoding);
            write_atomically(&data.path, &bytes)?;
            written.push((data.path.clone(), content_hash(&bytes)));
        }
    }
    Ok(written)
}

/// The stamps of `scene`'s input files last modified at least [`STAMP_MARGIN`] before
/// `read` (when its files were read).
fn stamps(scene: &Scene, read: SystemTime) -> HashMap<PathBuf, Stamp> {
    let settled = |stamp: &Stamp| stamp.1 + STAMP_MARGIN < read;
    let stamp = |file: &Path| Some((file.to_owned(), stamp_of(file).filter(settled)?));
    scene.input_files().into_iter().filter_map(stamp).collect()
}

fn stamp_of(file: &Path) -> Option<Stamp> {
    let metadata = std::fs::metadata(file).ok()?;
    Some((metadata.len(), metadata.modified().ok()?))
}

/// When a file's last save completed: its status-change time where the system keeps
/// one (Unix), else its modification time. A save by rename (write a temporary file,
/// rename it over) changes the status at the rename, when the new content appears under
/// the name; the modification time is stamped when a write starts, so for a large file
/// written in one call it is the start of the saving program's write (8-90 ms before
/// the rename for a 29 MB instance file on the dev machine). An in-place write has both
/// at its last write.
fn saved_at(metadata: &std::fs::Metadata) -> std::io::Result<SystemTime> {
    let modified = metadata.modified()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let changed = u64::try_from(metadata.ctime())
            .ok()
            .and_then(|secs| {
                SystemTime::UNIX_EPOCH.checked_add(Duration::new(secs, metadata.ctime_nsec() as u32))
            })
            .unwrap_or(modified);
        Ok(modified.max(changed))
    }
    #[cfg(not(unix))]
    Ok(modified)
}

/// Time since `modified` (zero when unknown or in the future).
fn age(modified: std::io::Result<SystemTime>) -> Duration {
    modified.ok().and_then(|t| SystemTime::now().duration_since(t).ok()).unwrap_or_default()
}

/// When the newest save of the folder's kernel sources completed ([`saved_at`]).
fn newest_kernel_save(dir: &Path) -> std::io::Result<SystemTime> {
    let mut newest = SystemTime::UNIX_EPOCH;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if is_kernel_source(&path) {
            newest = newest.max(saved_at(&std::fs::metadata(&path)?)?);
        }
    }
    Ok(newest)
}

/// One hash over the names and contents of the folder's `.cu` and `.cuh` files.
fn kernels_hash(dir: &Path) -> anyhow::Result<u64> {
    let listing = std::fs::read_dir(dir).with_context(|| format!("cannot list `{}`", dir.display()))?;
    let mut files = Vec::new();
    for entry in listing {
        let path = entry.with_context(|| format!("cannot list `{}`", dir.display()))?.path();
        if is_kernel_source(&path) {
            let text = std::fs::read(&path).with_context(|| format!("cannot read `{}`", path.display()))?;
            files.push((path, text));
        }
    }
    files.sort();
    let mut all = Vec::new();
    for (path, text) in files {
        all.extend_from_slice(path.as_os_str().as_encoded_bytes());
        all.push(0);
        all.extend_from_slice(&(text.len() as u64).to_le_bytes());
        all.extend_from_slice(&text);
    }
    Ok(content_hash(&all))
}

/// Saves the user's file `path` (readers and the watcher see the old file or the new
/// one, never half of it).
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    scene_compiler::files::save_atomic(path, bytes)
        .with_context(|| format!("cannot save `{}`", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file whose content was written an hour before it was renamed into place counts
    /// as saved at the rename, not at the write.
    #[cfg(unix)]
    #[test]
    fn a_rename_save_is_timed_from_the_rename() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (temp, path) = (dir.path().join("scene.ron.tmp"), dir.path().join("scene.ron"));
        std::fs::write(&temp, "Scene()").expect("temp dir is writable");
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options().write(true).open(&temp).and_then(|f| f.set_modified(hour_ago)).expect("set");
        let before_rename = SystemTime::now() - Duration::from_secs(60);
        std::fs::rename(&temp, &path).expect("rename");
        let metadata = std::fs::metadata(&path).expect("renamed");
        assert!(metadata.modified().expect("mtime") < before_rename, "the write is an hour old");
        let saved = saved_at(&metadata).expect("a time");
        assert!(saved > before_rename, "timed from the write, {:?} before now", saved.elapsed());
    }
}
