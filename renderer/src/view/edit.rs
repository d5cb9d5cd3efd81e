//! Editing the scene in memory: the selection, edits that go through
//! [`Session::apply`] (so they are validated exactly like a saved file), and undo/redo
//! as stacks of whole-scene snapshots.
//!
//! A slider drag sends one edit per frame; edits of the same field that follow each
//! other within [`COALESCE`] share one undo step, so Ctrl+Z undoes the drag, not a pixel.

use std::time::{Duration, Instant};

use glam::Vec3;
use scene_compiler::scene::{Scene, Sphere};

use super::selected::Selected;
use crate::load::SceneError;
use crate::session::Session;

/// Edits of one field closer together than this are one undo step.
const COALESCE: Duration = Duration::from_millis(600);
/// Undo steps kept; older ones are dropped.
const MAX_UNDO: usize = 200;

/// What an edit changed, for coalescing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKey {
    /// One field of one thing, named as the selection editor labels it.
    Field(Selected, &'static str),
    Material(usize),
    /// A field of the scene's `settings` (the display's exposure and view).
    Settings(&'static str),
    /// Adding or deleting: never coalesced.
    Structure,
}

/// Selection and history of the in-memory edits.
#[derive(Debug, Default)]
pub struct Editor {
    pub selected: Option<Selected>,
    undo: Vec<Scene>,
    redo: Vec<Scene>,
    last_edit: Option<(EditKey, Instant)>,
}

impl Editor {
    /// Makes `scene` current through the session, recording the scene it replaces.
    pub fn apply(&mut self, session: &mut Session, scene: Scene, key: EditKey) -> Result<(), SceneError> {
        let Some(before) = session.current().map(|c| c.scene.clone()) else {
            return session.apply(scene).map(drop);
        };
        session.apply(scene)?;
        let now = Instant::now();
        let coalesce = key != EditKey::Structure
            && self.last_edit.is_some_and(|(last, at)| last == key && now.duration_since(at) < COALESCE);
        if !coalesce {
            self.undo.push(before);
            if self.undo.len() > MAX_UNDO {
                self.undo.remove(0);
            }
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
        !self.undo.is_empty()
    }

    /// See [`Editor::can_undo`].
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    fn step(&mut self, session: &mut Session, backwards: bool) -> Result<bool, SceneError> {
        let (from, to) =
            if backwards { (&mut self.undo, &mut self.redo) } else { (&mut self.redo, &mut self.undo) };
        let (Some(target), Some(current)) = (from.pop(), session.current().map(|c| c.scene.clone())) else {
            return Ok(false);
        };
        if let Err(e) = session.apply(target.clone()) {
            from.push(target);
            return Err(e);
        }
        to.push(current);
        self.last_edit = None;
        if self.selected.is_some_and(|s| !s.exists_in(&target)) {
            self.selected = None;
        }
        Ok(true)
    }

    /// Adds a sphere at `at` with the selection's material (or the first one) and selects it.
    pub fn add_sphere(&mut self, session: &mut Session, at: Vec3, radius: f32) -> Result<(), SceneError> {
        let Some(mut scene) = session.current().map(|c| c.scene.clone()) else { return Ok(()) };
        let material = self.selected.and_then(|s| s.material(&scene)).unwrap_or(0);
        scene.spheres.push(Sphere { center: at, radius, material });
        let index = scene.spheres.len() - 1;
        self.apply(session, scene, EditKey::Structure)?;
        self.selected = Some(Selected::Sphere(index));
        Ok(())
    }

    /// Whether the selection can be deleted: it exists, and is not the scene's last
    /// thing (a scene without any does not validate).
    pub fn can_delete(&self, scene: &Scene) -> bool {
        let things = scene.spheres.len()
            + scene.boxes.len()
            + scene.terrains.len()
            + scene.meshes.len()
            + scene.sphere_files.len();
        self.selected.is_some_and(|s| s.exists_in(scene)) && things > 1
    }

    /// Deletes the selection (see [`Editor::can_delete`]).
    pub fn delete_selected(&mut self, session: &mut Session) -> Result<(), SceneError> {
        let (Some(selected), Some(mut scene)) = (self.selected, session.current().map(|c| c.scene.clone()))
        else {
            return Ok(());
        };
        if !self.can_delete(&scene) || !selected.remove_from(&mut scene) {
            return Ok(());
        }
        self.apply(session, scene, EditKey::Structure)?;
        self.selected = None;
        Ok(())
    }
}
