//! The file watcher: a debounced `notify` watcher on the scene's folder (and the
//! kernels folder), reduced to "the scene may have changed" and "a kernel may have
//! changed".
//!
//! Folders, not files, are watched, non-recursively: a watch on the file itself dies
//! after the first save that renames a new file over it. Events are filtered by path.
//! Create, Modify (renames included) count as changes; Access (which reading the file
//! causes) and Remove do not: a deleted scene keeps the last good one until the file
//! comes back. Whether a change is real is decided by content hashes, not here.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::Context;
use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache, new_debouncer,
};

/// What a batch of events touched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    pub scene: bool,
    pub kernels: bool,
}

impl Touched {
    fn any(self) -> bool {
        self.scene || self.kernels
    }

    fn merge(&mut self, other: Touched) {
        self.scene |= other.scene;
        self.kernels |= other.kernels;
    }
}

/// A debounced watch on the scene file's folder and, optionally, a kernels folder.
pub struct Watcher {
    /// Kept alive: dropping it stops the watch.
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
    events: Receiver<DebounceEventResult>,
    /// The scene file as event paths name it (canonical folder + file name).
    scene_file: PathBuf,
    kernels_dir: Option<PathBuf>,
}

impl Watcher {
    /// Starts watching; `debounce` is how long a file must be quiet before its events arrive.
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
        let mut debouncer = new_debouncer(debounce, None, sender).context("cannot start the file watcher")?;
        let folders = scene_file.parent().into_iter().chain(kernels_dir.as_deref());
        for folder in folders {
            debouncer
                .watch(folder, RecursiveMode::NonRecursive)
                .with_context(|| format!("cannot watch `{}`", folder.display()))?;
        }
        Ok(Watcher { _debouncer: debouncer, events, scene_file, kernels_dir })
    }

    /// What arrived so far, without blocking.
    pub fn drain(&self) -> Touched {
        let mut touched = Touched::default();
        while let Ok(result) = self.events.try_recv() {
            touched.merge(self.classify(&result));
        }
        touched
    }

    /// Blocks until a batch touches the scene or kernels, or `deadline` passes; then drains.
    pub fn wait(&self, deadline: Instant) -> Touched {
        let mut touched = Touched::default();
        while !touched.any() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(result) => touched.merge(self.classify(&result)),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return touched,
            }
        }
        touched.merge(self.drain());
        touched
    }

    fn classify(&self, result: &DebounceEventResult) -> Touched {
        match result {
            Ok(events) => {
                let mut touched = Touched::default();
                for event in events.iter().filter(|e| counts(e)) {
                    for path in &event.paths {
                        touched.scene |= *path == self.scene_file;
                        touched.kernels |= self.is_kernel(path);
                    }
                }
                touched
            }
            // The watcher lost track (queue overflow, a folder that went away): check
            // everything; the content hashes keep that from reloading what did not change.
            Err(_) => Touched { scene: true, kernels: self.kernels_dir.is_some() },
        }
    }

    fn is_kernel(&self, path: &Path) -> bool {
        self.kernels_dir.as_deref().is_some_and(|dir| path.parent() == Some(dir)) && is_kernel_source(path)
    }
}

/// Whether an event can mean new content: creates and modifications (renames included).
fn counts(event: &DebouncedEvent) -> bool {
    matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_) | EventKind::Any)
}

/// A `.cu` or `.cuh` file.
pub fn is_kernel_source(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "cu" || e == "cuh")
}

/// `path` with its folder made canonical, as the watcher's event paths spell it.
fn canonical_file(path: &Path) -> anyhow::Result<PathBuf> {
    let name = path.file_name().with_context(|| format!("`{}` does not name a file", path.display()))?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let folder = folder.canonicalize().with_context(|| format!("cannot watch `{}`", folder.display()))?;
    Ok(folder.join(name))
}
