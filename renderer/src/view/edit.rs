//! Editing the scene in memory: the selection, edits as [`Change`]s that go through
//! [`Session::apply`] (so they are validated exactly like a saved file), and undo/redo
//! as stacks of the changes that unmake them.
//!
//! A change holds only what it replaces (one sphere, one material, the camera), never
//! the scene, and the history is bounded in bytes ([`MAX_HISTORY_BYTES`]), so a
//! million-sphere scene keeps as much history as a small one. Model data (meshes,
//! heightmaps, sphere files, texture images) is shared between a scene and its copies
//! (`Arc`), so a change that holds a mesh holds its placement, not its triangles.
//!
//! A slider drag sends one edit per frame; edits of the same field that follow each
//! other within [`COALESCE`] share one undo step, so Ctrl+Z undoes the drag, not a pixel.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use glam::Vec3;
use scene_compiler::scene::{PlacedInstance, Scene, Sphere};

use super::selected::{Selected, Thing, with_thing};
use crate::load::SceneError;
use crate::session::Session;

/// Edits of one field closer together than this are one undo step.
const COALESCE: Duration = Duration::from_millis(600);
/// The undo (and redo) history's bound: the oldest steps are dropped beyond it.
pub const MAX_HISTORY_BYTES: usize = 64 << 20;

/// A change to a scene that can be made and unmade.
pub trait Change: Send {
    /// Makes the change in `scene`; returns the change that unmakes it.
    fn make(&self, scene: &mut Scene) -> Box<dyn Change>;
    /// The bytes it holds: what the history counts.
    fn bytes(&self) -> usize;
}

/// Items `at..at + remove` of a list of the scene replaced by `insert`: an edit of one
/// thing (one by one), an added thing (none by one), a deleted one (one by none).
pub struct Splice<T> {
    list: fn(&mut Scene) -> &mut Vec<T>,
    at: usize,
    remove: usize,
    insert: Vec<T>,
}

impl<T: Clone + Send + 'static> Splice<T> {
    pub fn new(
        list: fn(&mut Scene) -> &mut Vec<T>,
        at: usize,
        remove: usize,
        insert: Vec<T>,
    ) -> Box<Splice<T>> {
        Box::new(Splice { list, at, remove, insert })
    }
}

impl<T: Clone + Send + 'static> Change for Splice<T> {
    fn make(&self, scene: &mut Scene) -> Box<dyn Change> {
        let (at, removed) = splice_list((self.list)(scene), self.at, self.remove, &self.insert);
        Splice::new(self.list, at, self.insert.len(), removed)
    }

    fn bytes(&self) -> usize {
        size_of::<Self>() + self.insert.len() * size_of::<T>()
    }
}

/// Replaces items `at..at + remove` of `list` (clamped to its length) by `insert`;
/// returns where they went and the items they replaced, what the inverse change puts
/// back.
fn splice_list<T: Clone>(list: &mut Vec<T>, at: usize, remove: usize, insert: &[T]) -> (usize, Vec<T>) {
    let end = (at + remove).min(list.len());
    let at = at.min(end);
    (at, list.splice(at..end, insert.iter().cloned()).collect())
}

/// Items `at..at + remove` of mesh `mesh`'s `instances` replaced by `insert`: an
/// instance edited (one by one) or deleted (one by none). A plain [`Splice`] of the
/// meshes would hold the mesh's every instance.
pub struct InstanceSplice {
    mesh: usize,
    at: usize,
    remove: usize,
    insert: Vec<PlacedInstance>,
}

impl InstanceSplice {
    pub fn new(mesh: usize, at: usize, remove: usize, insert: Vec<PlacedInstance>) -> Box<InstanceSplice> {
        Box::new(InstanceSplice { mesh, at, remove, insert })
    }
}

impl Change for InstanceSplice {
    fn make(&self, scene: &mut Scene) -> Box<dyn Change> {
        let Some(mesh) = scene.meshes.get_mut(self.mesh) else {
            return InstanceSplice::new(self.mesh, self.at, 0, Vec::new());
        };
        let (at, removed) = splice_list(&mut mesh.instances, self.at, self.remove, &self.insert);
        InstanceSplice::new(self.mesh, at, self.insert.len(), removed)
    }

    fn bytes(&self) -> usize {
        size_of::<Self>() + self.insert.len() * size_of::<PlacedInstance>()
    }
}

/// Vertex `v` of mesh `mesh`'s instance file set to `value` (the file's instances are
/// one shared list: the first edit copies it, the scene's copies keep theirs). Saving
/// writes the file (`Session::save`).
pub struct FilePlacement {
    mesh: usize,
    v: usize,
    value: PlacedInstance,
}

impl FilePlacement {
    pub fn new(mesh: usize, v: usize, value: PlacedInstance) -> Box<FilePlacement> {
        Box::new(FilePlacement { mesh, v, value })
    }
}

impl Change for FilePlacement {
    fn make(&self, scene: &mut Scene) -> Box<dyn Change> {
        let slot = scene
            .meshes
            .get_mut(self.mesh)
            .and_then(|m| std::sync::Arc::make_mut(&mut m.placements).instances.get_mut(self.v));
        match slot {
            Some(slot) => FilePlacement::new(self.mesh, self.v, std::mem::replace(slot, self.value)),
            None => FilePlacement::new(self.mesh, self.v, self.value),
        }
    }

    fn bytes(&self) -> usize {
        size_of::<Self>()
    }
}

/// One field of the scene (the camera, the settings) set to `value`.
pub struct Set<T> {
    field: fn(&mut Scene) -> &mut T,
    value: T,
}

impl<T: Clone + Send + 'static> Set<T> {
    pub fn new(field: fn(&mut Scene) -> &mut T, value: T) -> Box<Set<T>> {
        Box::new(Set { field, value })
    }
}

impl<T: Clone + Send + 'static> Change for Set<T> {
    fn make(&self, scene: &mut Scene) -> Box<dyn Change> {
        let before = std::mem::replace((self.field)(scene), self.value.clone());
        Set::new(self.field, before)
    }

    fn bytes(&self) -> usize {
        size_of::<Self>()
    }
}

/// `thing` put in place of the scene's `index`th of its kind.
pub fn replace<T: Thing>(index: usize, thing: T) -> Box<dyn Change> {
    Splice::new(T::list_mut, index, 1, vec![thing])
}

/// What an edit changed, for coalescing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKey {
    /// One field of one thing, named as the selection editor labels it.
    Field(Selected, &'static str),
    Material(usize),
    /// A field of the scene's `settings` (the display's exposure and view).
    Settings(&'static str),
    /// Adding or deleting, a new kind, the camera: never coalesced.
    Structure,
}

/// A message for the tool bar: the outcome of the last action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub is_error: bool,
}

/// What an editing panel may touch: the session (the scene, its edits and saves), the
/// editor (selection, history) and the tool bar's status, which a rejected edit sets.
pub struct Edits<'a> {
    pub session: &'a mut Session,
    pub editor: &'a mut Editor,
    pub status: &'a mut Option<Status>,
}

impl Edits<'_> {
    /// Makes `change` through the editor; false (and the status says so) when the
    /// session rejected it.
    pub fn apply(&mut self, change: Box<dyn Change>, key: EditKey) -> bool {
        let result = self.editor.apply(self.session, change, key);
        self.report(result)
    }

    /// Shows a rejected edit in the tool bar (the error panel shows its diagnostics);
    /// true when `result` is not one.
    pub fn report(&mut self, result: Result<(), SceneError>) -> bool {
        if result.is_err() {
            *self.status =
                Some(Status { text: "edit rejected: see the error panel".to_owned(), is_error: true });
        }
        result.is_ok()
    }
}

/// Changes that unmake edits, newest last, with their bytes counted.
#[derive(Default)]
struct History {
    steps: VecDeque<Box<dyn Change>>,
    bytes: usize,
}

impl History {
    fn push(&mut self, step: Box<dyn Change>) {
        self.bytes += step.bytes();
        self.steps.push_back(step);
        // The newest step stays whatever its size: an edit can always be undone once.
        while self.bytes > MAX_HISTORY_BYTES && self.steps.len() > 1 {
            let oldest = self.steps.pop_front().expect("more than one step");
            self.bytes -= oldest.bytes();
        }
    }

    fn pop(&mut self) -> Option<Box<dyn Change>> {
        let step = self.steps.pop_back()?;
        self.bytes -= step.bytes();
        Some(step)
    }

    fn clear(&mut self) {
        (self.steps, self.bytes) = (VecDeque::new(), 0);
    }
}

/// Selection and history of the in-memory edits.
#[derive(Default)]
pub struct Editor {
    pub selected: Option<Selected>,
    undo: History,
    redo: History,
    last_edit: Option<(EditKey, Instant)>,
}

impl Editor {
    /// Makes `change` in the current scene through the session, recording the change
    /// that unmakes it. Nothing happens without a current scene.
    pub fn apply(
        &mut self,
        session: &mut Session,
        change: Box<dyn Change>,
        key: EditKey,
    ) -> Result<(), SceneError> {
        let Some(mut scene) = session.current().map(|c| c.scene.clone()) else { return Ok(()) };
        let unmake = change.make(&mut scene);
        session.apply(scene)?;
        let now = Instant::now();
        // A coalesced edit changes what the step's first edit changed, so that step's
        // unmaking change still restores the state before the drag.
        let coalesce = key != EditKey::Structure
            && self.last_edit.is_some_and(|(last, at)| last == key && now.duration_since(at) < COALESCE);
        if !coalesce {
            self.undo.push(unmake);
        }
        self.redo.clear();
        self.last_edit = Some((key, now));
        Ok(())
    }

    /// Steps back one edit; false when there is nothing to undo.
    pub fn undo(&mut self, session: &mut Session) -> Result<bool, SceneError> {
        self.step(session, true)
    }

    /// Steps forward one undone edit; false when there is nothing to redo.
    pub fn redo(&mut self, session: &mut Session) -> Result<bool, SceneError> {
        self.step(session, false)
    }

    /// Whether undo and redo have anything to do.
    pub fn can_undo(&self) -> bool {
        !self.undo.steps.is_empty()
    }

    /// See [`Editor::can_undo`].
    pub fn can_redo(&self) -> bool {
        !self.redo.steps.is_empty()
    }

    /// The bytes the undo and redo histories hold.
    pub fn history_bytes(&self) -> usize {
        self.undo.bytes + self.redo.bytes
    }

    fn step(&mut self, session: &mut Session, backwards: bool) -> Result<bool, SceneError> {
        let (from, to) =
            if backwards { (&mut self.undo, &mut self.redo) } else { (&mut self.redo, &mut self.undo) };
        let Some(mut scene) = session.current().map(|c| c.scene.clone()) else { return Ok(false) };
        let Some(step) = from.pop() else { return Ok(false) };
        let inverse = step.make(&mut scene);
        let exists = self.selected.is_none_or(|s| s.exists_in(&scene));
        if let Err(e) = session.apply(scene) {
            from.push(step);
            return Err(e);
        }
        to.push(inverse);
        self.last_edit = None;
        if !exists {
            self.selected = None;
        }
        Ok(true)
    }

    /// Adds a sphere at `at` with the selection's material (or the first one) and selects it.
    pub fn add_sphere(&mut self, session: &mut Session, at: Vec3, radius: f32) -> Result<(), SceneError> {
        let Some(scene) = session.current().map(|c| &c.scene) else { return Ok(()) };
        let material = self.selected.and_then(|s| s.material(scene)).unwrap_or(0);
        let index = scene.spheres.len();
        let sphere = Sphere { center: at, radius, material };
        self.apply(session, Splice::new(Sphere::list_mut, index, 0, vec![sphere]), EditKey::Structure)?;
        self.selected = Some(Selected::Sphere(index));
        Ok(())
    }

    /// Whether the selection can be deleted: it exists, and is not the scene's last
    /// thing (a scene without any does not validate); an instance, when it is one of
    /// its mesh's `instances` (an instance file's are the file's) and not the mesh's last.
    pub fn can_delete(&self, scene: &Scene) -> bool {
        if let Some(Selected::Instance { mesh, k }) = self.selected {
            return scene.meshes.get(mesh).is_some_and(|m| k < m.instances.len() && m.instance_count() > 1);
        }
        let things: usize =
            Selected::KINDS.iter().map(|kind| with_thing!(kind(0), T, _i => T::list(scene).len())).sum();
        self.selected.is_some_and(|s| s.exists_in(scene)) && things + scene.sphere_files.len() > 1
    }

    /// Deletes the selection (see [`Editor::can_delete`]).
    pub fn delete_selected(&mut self, session: &mut Session) -> Result<(), SceneError> {
        let (Some(selected), Some(scene)) = (self.selected, session.current().map(|c| &c.scene)) else {
            return Ok(());
        };
        if !self.can_delete(scene) {
            return Ok(());
        }
        let change: Box<dyn Change> = match selected {
            Selected::Instance { mesh, k } => InstanceSplice::new(mesh, k, 1, Vec::new()),
            _ => with_thing!(selected, T, i => Splice::new(T::list_mut, i, 1, Vec::<T>::new())),
        };
        self.apply(session, change, EditKey::Structure)?;
        self.selected = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spheres(n: usize) -> Scene {
        let spheres = (0..n).map(|i| Sphere { center: Vec3::X * i as f32, radius: 1.0, material: 0 });
        Scene { spheres: spheres.collect(), ..Scene::default() }
    }

    #[test]
    fn a_splice_and_its_inverse_restore_the_list() {
        let before = spheres(5);
        let mut scene = before.clone();
        let edited = Sphere { radius: 2.0, ..scene.spheres[3] };
        let undo = replace(3, edited).make(&mut scene);
        assert_eq!(scene.spheres[3], edited);
        let redo = undo.make(&mut scene);
        assert_eq!(scene, before);
        redo.make(&mut scene);
        assert_eq!(scene.spheres[3], edited);

        let mut scene = before.clone();
        let undo_delete = Splice::new(Sphere::list_mut, 1, 1, Vec::new()).make(&mut scene);
        assert_eq!(scene.spheres.len(), 4);
        undo_delete.make(&mut scene);
        assert_eq!(scene, before, "a delete's inverse puts the sphere back where it was");

        let undo_camera = Set::new(|s| &mut s.camera.vfov_deg, 10.0).make(&mut scene);
        assert_eq!(scene.camera.vfov_deg, 10.0);
        undo_camera.make(&mut scene);
        assert_eq!(scene, before);
    }

    #[test]
    fn the_history_is_bounded_in_bytes_and_keeps_the_newest_steps() {
        let mut history = History::default();
        let step = || replace(0, Sphere { center: Vec3::ZERO, radius: 1.0, material: 0 });
        let each = step().bytes();
        for _ in 0..MAX_HISTORY_BYTES / each + 10 {
            history.push(step());
        }
        assert!(history.bytes <= MAX_HISTORY_BYTES, "{} bytes", history.bytes);
        assert_eq!(history.bytes, history.steps.len() * each);
        // A step larger than the bound is kept alone: an edit can always be undone once.
        let huge = Splice::new(
            Sphere::list_mut,
            0,
            0,
            vec![spheres(1).spheres[0]; MAX_HISTORY_BYTES / size_of::<Sphere>() + 1],
        );
        history.push(huge);
        assert_eq!(history.steps.len(), 1);
        assert!(history.pop().is_some() && history.bytes == 0);
    }
}
