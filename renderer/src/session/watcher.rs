//! The file watcher: a `notify` watcher on the scene's folder (and the kernels
//! folder, and the folders of the files the scene reads, such as terrain images),
//! reduced to "the scene may have changed" and "a kernel may have changed".
//! A change to a file the scene reads is a scene change (it reloads the same way),
//! naming the files, so the session knows the scene text alone does not tell (and can
//! tell its own writes of them from other programs').
//!
//! Folders, not files, are watched, non-recursively: a watch on the file itself dies
//! after the first save that renames a new file over it. Events are filtered by path.
//! Create, Modify (renames included) count as changes; Access (which reading the file
//! causes) and Remove do not: a deleted scene keeps the last good one until the file
//! comes back. Whether a change is real is decided by content hashes, not here.
//!
//! When a change is reported (events time-stamped as they arrive, `debounce` the quiet
//! spell that ends a burst):
//! - The scene, after a quiet spell: at once, with no debounce (the leading edge). The
//!   read that follows covers every event that arrived before it. The report says
//!   whether the file is *settled*: when the last event renamed a file over the scene
//!   (an editor's save: write a temp file, rename it), the file is complete; after an
//!   in-place write it may still be half-written, and the session then reads it anyway
//!   but holds back an error until the debounce has passed (`super::Session`).
//! - The scene, during a burst (events less than `debounce` apart): once, when the burst
//!   has been quiet for `debounce` (the trailing edge), settled. So a storm of saves
//!   reloads twice, not once per save.
//! - Kernels: only once quiet for `debounce` (a half-written kernel would cost a failed
//!   NVRTC compile, and nothing there is latency-critical).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::Context;
use notify::event::{ModifyKind, RenameMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::backend::cuda::is_kernel_source;

/// What to handle now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    pub scene: bool,
    /// The scene file is a whole save (see the module docs); meaningful with `scene`.
    pub scene_settled: bool,
    /// The files the scene reads (see [`Watcher::watch_inputs`]) that the scene's change
    /// was to, as [`canonical_file`] names them; empty when it was to the scene file alone.
    pub inputs: BTreeSet<PathBuf>,
    pub kernels: bool,
}

impl Touched {
    fn any(&self) -> bool {
        self.scene || self.kernels
    }
}

/// One event as it arrived.
type Arrival = (Instant, notify::Result<Event>);

/// A watch on the scene file's folder and, optionally, a kernels folder.
pub struct Watcher {
    /// Kept alive: dropping it stops the watch.
    _watcher: RecommendedWatcher,
    events: Receiver<Arrival>,
    /// The scene file as event paths name it (canonical folder + file name).
    scene_file: PathBuf,
    /// Files the scene reads, named the same way.
    inputs: Vec<PathBuf>,
    /// Folders watched so far (a watch is never dropped: a folder is cheap to keep).
    folders: Vec<PathBuf>,
    kernels_dir: Option<PathBuf>,
    debounce: Duration,
    scene: Burst,
    kernels: Burst,
}

/// The recent events of one kind (scene or kernels).
#[derive(Clone, Debug, Default)]
struct Burst {
    /// When the last one arrived.
    last: Option<Instant>,
    /// Whether some arrived since the last report; reported once quiet.
    held: bool,
    /// The scene's inputs those changed.
    inputs: BTreeSet<PathBuf>,
}

impl Burst {
    /// When the held events are due (quiet for `debounce`), if any are held.
    fn due(&self, debounce: Duration) -> Option<Instant> {
        self.last.filter(|_| self.held).map(|last| last + debounce)
    }
}

/// What one event is about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Hit {
    /// `Some(renamed_onto)` when it concerns the scene file or one of its inputs.
    scene: Option<bool>,
    /// The scene's inputs it concerns.
    inputs: BTreeSet<PathBuf>,
    kernels: bool,
}

impl Watcher {
    /// Starts watching; `debounce` is the quiet spell that ends a burst of events.
    pub fn start(
        scene_path: &Path,
        kernels_dir: Option<&Path>,
        debounce: Duration,
    ) -> anyhow::Result<Watcher> {
        let scene_file = canonical_file(scene_path)?;
        let kernels_dir = kernels_dir
            .map(|dir| dir.canonicalize().with_context(|| format!("cannot watch `{}`", dir.display())))
            .transpose()?;
        let (sender, events) = mpsc::channel();
        // Time-stamped on notify's thread, so bursts are measured as they happened,
        // however rarely the session polls.
        let handler = move |event: notify::Result<Event>| {
            let _ = sender.send((Instant::now(), event));
        };
        let watcher = notify::recommended_watcher(handler).context("cannot start the file watcher")?;
        let (scene, kernels) = (Burst::default(), Burst::default());
        let mut watcher = Watcher {
            _watcher: watcher,
            events,
            inputs: Vec::new(),
            folders: Vec::new(),
            scene_file,
            kernels_dir,
            debounce,
            scene,
            kernels,
        };
        let folders: Vec<PathBuf> = watcher
            .scene_file
            .parent()
            .into_iter()
            .chain(watcher.kernels_dir.as_deref())
            .map(Path::to_owned)
            .collect();
        for folder in folders {
            watcher.watch_folder(folder)?;
        }
        Ok(watcher)
    }

    /// Also watches `files`, which the scene reads (terrain images): their changes are
    /// scene changes from now on, in place of the previous inputs'.
    pub fn watch_inputs(&mut self, files: &[&Path]) -> anyhow::Result<()> {
        let mut inputs = Vec::with_capacity(files.len());
        for file in files {
            let file = canonical_file(file)?;
            if let Some(folder) = file.parent() {
                self.watch_folder(folder.to_owned())?;
            }
            inputs.push(file);
        }
        self.inputs = inputs;
        Ok(())
    }

    fn watch_folder(&mut self, folder: PathBuf) -> anyhow::Result<()> {
        if !self.folders.contains(&folder) {
            self._watcher
                .watch(&folder, RecursiveMode::NonRecursive)
                .with_context(|| format!("cannot watch `{}`", folder.display()))?;
            self.folders.push(folder);
        }
        Ok(())
    }

    /// What to handle now, without blocking.
    pub fn drain(&mut self) -> Touched {
        let arrivals: Vec<Arrival> = self.events.try_iter().collect();
        self.take(arrivals, Instant::now())
    }

    /// Blocks until there is something to handle, or `deadline` passes.
    pub fn wait(&mut self, deadline: Instant) -> Touched {
        loop {
            let due = [self.scene.due(self.debounce), self.kernels.due(self.debounce)];
            let until = due.into_iter().flatten().fold(deadline, Instant::min);
            let mut arrivals = Vec::new();
            let left = until.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(arrival) => arrivals.push(arrival),
                Err(RecvTimeoutError::Timeout) => {}
                // notify's thread is gone (it lives as long as the watcher, so this is
                // not expected): nothing more will come, only what is due.
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(left),
            }
            // One save is several events: take those already here in the same batch.
            arrivals.extend(self.events.try_iter());
            let touched = self.take(arrivals, Instant::now());
            if touched.any() || Instant::now() >= deadline {
                return touched;
            }
        }
    }

    /// Feeds events (in arrival order) and reports what is due at `now`.
    fn take(&mut self, arrivals: Vec<Arrival>, now: Instant) -> Touched {
        let mut touched = Touched::default();
        for (at, event) in arrivals {
            let hit = self.classify(&event);
            if let Some(renamed_onto) = hit.scene {
                let quiet = self.scene.last.is_none_or(|last| at >= last + self.debounce);
                if quiet {
                    // The leading edge: read now (anything held is covered by that read).
                    (touched.scene, self.scene.held) = (true, false);
                } else if !touched.scene {
                    self.scene.held = true;
                }
                // Covered by this batch's read, or held: the latest event says how settled.
                touched.scene_settled = renamed_onto;
                self.scene.last = Some(at);
                if touched.scene {
                    touched.inputs.extend(hit.inputs);
                    touched.inputs.append(&mut self.scene.inputs);
                } else {
                    self.scene.inputs.extend(hit.inputs);
                }
            }
            if hit.kernels {
                (self.kernels.held, self.kernels.last) = (true, Some(at));
            }
        }
        if !touched.scene && self.scene.due(self.debounce).is_some_and(|due| now >= due) {
            // The trailing edge: quiet for the debounce, so the last save is complete.
            (touched.scene, touched.scene_settled, self.scene.held) = (true, true, false);
            touched.inputs = std::mem::take(&mut self.scene.inputs);
        }
        if self.kernels.due(self.debounce).is_some_and(|due| now >= due) {
            (touched.kernels, self.kernels.held) = (true, false);
        }
        touched
    }

    fn classify(&self, event: &notify::Result<Event>) -> Hit {
        match event {
            // The watcher lost track (queue overflow, a folder that went away): check
            // everything; the content hashes keep that from reloading what did not change.
            Ok(event) if event.need_rescan() => self.everything(),
            Ok(event) if counts(event) => {
                let mut hit = Hit::default();
                for path in &event.paths {
                    let input = self.inputs.contains(path);
                    if *path == self.scene_file || input {
                        hit.scene = Some(renamed_onto(event, path));
                    }
                    if input {
                        hit.inputs.insert(path.clone());
                    }
                    hit.kernels |= self.is_kernel(path);
                }
                hit
            }
            Ok(_) => Hit::default(),
            Err(_) => self.everything(),
        }
    }

    fn everything(&self) -> Hit {
        Hit {
            scene: Some(false),
            inputs: self.inputs.iter().cloned().collect(),
            kernels: self.kernels_dir.is_some(),
        }
    }

    fn is_kernel(&self, path: &Path) -> bool {
        self.kernels_dir.as_deref().is_some_and(|dir| path.parent() == Some(dir)) && is_kernel_source(path)
    }
}

/// Whether an event can mean new content: creates and modifications (renames included).
fn counts(event: &Event) -> bool {
    matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_) | EventKind::Any)
}

/// Whether `event` renamed a file onto `path`, so that `path` now holds a complete file.
/// inotify reports a rename over the scene as `Name(To)` with the scene's path and
/// `Name(Both)` with `[from, to]`; other platforms may not say which end a path is.
fn renamed_onto(event: &Event, path: &Path) -> bool {
    match event.kind {
        EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Any | RenameMode::Other)) => true,
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
            event.paths.last().map(PathBuf::as_path) == Some(path)
        }
        _ => false,
    }
}

/// `path` with its folder made canonical, as the watcher's event paths spell it.
pub fn canonical_file(path: &Path) -> anyhow::Result<PathBuf> {
    let name = path.file_name().with_context(|| format!("`{}` does not name a file", path.display()))?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let folder = folder.canonicalize().with_context(|| format!("cannot watch `{}`", folder.display()))?;
    Ok(folder.join(name))
}

#[cfg(test)]
mod tests {
    use notify::event::{CreateKind, DataChange};

    use super::*;

    const DEBOUNCE: Duration = Duration::from_millis(20);

    /// A watcher on a scene in a fresh folder; its events are fed by hand to `take`,
    /// with made-up arrival times, so nothing depends on how fast this machine is.
    fn watcher() -> (tempfile::TempDir, Watcher) {
        let dir = tempfile::tempdir().expect("temp dir");
        let scene = dir.path().join("scene.ron");
        std::fs::write(&scene, "").expect("write scene");
        let watcher = Watcher::start(&scene, None, DEBOUNCE).expect("start watcher");
        (dir, watcher)
    }

    /// An in-place write (`renamed: false`) or a rename over the scene at `at`.
    fn save(watcher: &Watcher, at: Instant, renamed: bool) -> Arrival {
        let kind = if renamed {
            EventKind::Modify(ModifyKind::Name(RenameMode::To))
        } else {
            EventKind::Modify(ModifyKind::Data(DataChange::Content))
        };
        (at, Ok(Event::new(kind).add_path(watcher.scene_file.clone())))
    }

    #[test]
    fn a_save_after_a_quiet_spell_is_reported_at_once_settled_only_if_renamed_over() {
        let (_dir, mut watcher) = watcher();
        let start = Instant::now();
        let first = watcher.take(vec![save(&watcher, start, false)], start);
        assert_eq!((first.scene, first.scene_settled), (true, false));
        let later = start + 2 * DEBOUNCE;
        let second = watcher.take(vec![save(&watcher, later, true)], later);
        assert_eq!((second.scene, second.scene_settled), (true, true));
        assert_eq!(watcher.take(Vec::new(), later + 2 * DEBOUNCE), Touched::default(), "nothing held");
    }

    #[test]
    fn a_hundred_saves_10_ms_apart_are_reported_twice() {
        let (_dir, mut watcher) = watcher();
        let start = Instant::now();
        let step = DEBOUNCE / 2;
        let mut reports = Vec::new();
        // Taken one at a time, as a viewer polling every frame would.
        for i in 0..100u32 {
            let at = start + step * i;
            let touched = watcher.take(vec![save(&watcher, at, i % 2 == 1)], at);
            if touched.any() {
                reports.push((i, touched));
            }
        }
        let last = start + step * 99;
        assert_eq!(watcher.take(Vec::new(), last + DEBOUNCE / 2), Touched::default(), "still in the burst");
        let trailing = watcher.take(Vec::new(), last + DEBOUNCE);
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert_eq!((reports[0].0, reports[0].1.scene), (0, true), "the leading edge");
        assert_eq!((trailing.scene, trailing.scene_settled), (true, true), "the trailing edge");
        assert_eq!(watcher.take(Vec::new(), last + 3 * DEBOUNCE), Touched::default(), "nothing held");
    }

    /// A change to a file the scene reads is a scene change naming that file, at once
    /// or, within a burst, at its trailing edge; the scene file's own names none.
    #[test]
    fn a_change_to_an_input_is_a_scene_change_naming_it() {
        let (dir, mut watcher) = watcher();
        let input = dir.path().join("forest.ply");
        std::fs::write(&input, "").expect("write input");
        watcher.watch_inputs(&[&input]).expect("watch input");
        let named = canonical_file(&input).expect("canonical");
        let renamed = |at: Instant| {
            let kind = EventKind::Modify(ModifyKind::Name(RenameMode::To));
            (at, Ok(Event::new(kind).add_path(named.clone())))
        };
        let start = Instant::now();
        let touched = watcher.take(vec![renamed(start)], start);
        assert_eq!((touched.scene, touched.inputs), (true, BTreeSet::from([named.clone()])));
        let later = start + 2 * DEBOUNCE;
        let scene = watcher.take(vec![save(&watcher, later, true)], later);
        assert!(scene.scene && scene.inputs.is_empty(), "{scene:?}");
        // Within the burst the scene file's save began: held, then named at its end.
        let held = later + DEBOUNCE / 2;
        assert!(!watcher.take(vec![renamed(held)], held).scene, "held");
        let trailing = watcher.take(Vec::new(), held + DEBOUNCE);
        assert_eq!((trailing.scene, trailing.inputs), (true, BTreeSet::from([named])));
    }

    #[test]
    fn events_on_other_files_are_not_scene_changes() {
        let (dir, mut watcher) = watcher();
        let now = Instant::now();
        let other = Event::new(EventKind::Create(CreateKind::File)).add_path(dir.path().join("scene.swp"));
        assert_eq!(watcher.take(vec![(now, Ok(other))], now), Touched::default());
    }
}
