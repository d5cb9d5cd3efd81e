//! The RON scene format: read a scene file into the model, load what it names, check
//! it, and write a scene back.
//!
//! The model ([`Scene`], `model/mod.rs`, and the material kinds, `material.rs`) is the
//! format's one declaration: its serde attributes say every name, default and
//! optional value, and `values.rs` and `model/text.rs` what serde's derive cannot (vectors as tuples,
//! material names, a material's textures inside its kind's parentheses). [`parse`]
//! runs in three stages: ron reads the text into the model (syntax and type errors: the
//! first one stops it, and `syntax` explains it); loading (`load.rs`) reads the files
//! the scene names (terrain images, models, instance files, sphere files, images); then
//! `validate` checks every value (all problems at once), and `spans` locates the values
//! it complains about. A failure is one [`LoadError`] whose diagnostics carry
//! `file:line:col`. [`to_ron`] writes the model back. Large scenes keep their spheres
//! in PLY sphere files (`sphere_file`), not in the text: docs/architecture.md says why;
//! a mesh's many instances are kept in PLY instance files (`instance_file`) the same
//! way. The format itself is documented in docs/scene-format.md.
//!
//! Not here: anything after a valid [`Scene`] exists (BVH, blob).

pub(crate) mod budget;
mod checker;
mod diagnostic;
mod environment;
mod gltf_buffers;
mod gltf_check;
mod gltf_draco;
mod gltf_instancing;
mod gltf_primitive;
mod heightmap;
pub mod image_file;
mod instance_bulk;
mod instance_file;
mod lex;
pub(crate) mod list;
mod load;
mod material;
mod mesh_file;
mod model;
mod model_materials;
mod obj_check;
mod ply_bulk;
mod ply_elements;
mod ply_points;
mod reflect;
mod spans;
mod sphere_file;
mod suggest;
mod syntax;
mod texture_file;
mod validate;
mod values;
mod write;

use std::path::Path;

use ron::{Options, extensions::Extensions};

pub use diagnostic::{Diagnostic, LoadError};
pub use image_file::srgb_to_linear;
pub use instance_file::{read as read_instance_file, write as write_instance_file};
#[cfg(test)]
pub(crate) use material::every_kind;
pub use material::{AlphaMode, MAP_COUNT, MAP_FIELDS, MaterialKind, Principled};
pub use model::*;
pub use ply_points::PlyEncoding;
pub use sphere_file::write as write_sphere_file;
pub use write::to_ron;

use checker::Issue;
use model::text::{self, Written};
use spans::{Located, SpanIndex};

/// Parses and validates scene text. `origin` is the file's path: it names the file in
/// messages, and terrain images, models and sphere files are read relative to its folder.
pub fn parse(source: &str, origin: &str) -> Result<Scene, LoadError> {
    parse_with(source, origin, None)
}

/// [`parse`] of a file that `reuse.previous` was parsed from earlier (a live session's
/// reload): the model, instance and sphere files it read that `reuse.unchanged` says
/// have not changed since are taken from it instead of read again (`load::reuse` says
/// which can be), and what is as it was is not checked again ([`check_edit`]). The
/// caller answers for `unchanged` (a file watcher that reported no change, and the
/// same size and modification time as before that read).
pub fn parse_reusing(source: &str, origin: &str, reuse: Reuse<'_>) -> Result<Scene, LoadError> {
    parse_with(source, origin, Some(reuse))
}

/// What [`parse_reusing`] takes from an earlier parse of the same file.
#[derive(Clone, Copy)]
pub struct Reuse<'a> {
    /// The scene that parse made.
    pub previous: &'a Scene,
    /// Whether a file it read (named as it opened it) has not changed since.
    pub unchanged: &'a dyn Fn(&Path) -> bool,
}

fn parse_with(source: &str, origin: &str, reuse: Option<Reuse<'_>>) -> Result<Scene, LoadError> {
    let (mut scene, written) = read_ron(source, origin)?;
    let folder = Path::new(origin).parent().unwrap_or(Path::new(""));
    if let Some(Reuse { previous, unchanged }) = reuse {
        load::reuse(&mut scene, folder, previous, unchanged);
    }
    let mut issues = load::read_inputs(&mut scene, folder);
    issues.extend(validate::check(&scene, Some(&written), reuse.map(|r| r.previous)));
    if !issues.is_empty() {
        return Err(LoadError::new(origin, source, locate(source, &issues)));
    }
    Ok(scene)
}

/// ron's reading of the text into the model, its material names resolved, with its
/// first syntax or type error diagnosed.
fn read_ron(source: &str, origin: &str) -> Result<(Scene, Written), LoadError> {
    // `implicit_some` lets a user write `focus_dist: 8.0` for an optional field.
    let options = Options::default().with_default_extension(Extensions::IMPLICIT_SOME);
    let (read, mut written) = text::reading(|| options.from_str::<Scene>(source));
    let mut scene =
        read.map_err(|err| LoadError::new(origin, source, vec![syntax::diagnose(source, &err)]))?;
    written.resolve(&mut scene, |scene, f| list::each_material_reference(scene, f));
    Ok((scene, written))
}

/// Checks a scene built in memory (an editor's edit) by the rules a file obeys, without
/// writing it out: the diagnostics name the offending value's path (`spheres[3].radius`)
/// since there is no text to point into; `origin` names the scene in messages.
pub fn check(scene: &Scene, origin: &str) -> Result<(), LoadError> {
    model_result(origin, &validate::check(scene, None, None))
}

/// [`check`] of an edit of `before`, a scene that passed the checks: what is as it was
/// in `before` (a mesh's model, the placements that did not move) is not checked again.
pub fn check_edit(scene: &Scene, before: &Scene, origin: &str) -> Result<(), LoadError> {
    model_result(origin, &validate::check(scene, None, Some(before)))
}

/// Reads the files an edit named and `scene` has not read (a material's image texture
/// whose image is [`TextureImage::unread`], made by [`Texture::image_to_read`]), relative
/// to `folder` (the scene file's, as [`parse`] reads them): loading, as a file's scene
/// is loaded. A file that cannot be used gives the message a scene file naming it gets,
/// at the value's path as [`check`] reports (`materials[2].texture.file`); `origin`
/// names the scene.
pub fn read_inputs(scene: &mut Scene, folder: &Path, origin: &str) -> Result<(), LoadError> {
    model_result(origin, &load::read_inputs(scene, folder))
}

/// The issues of an in-memory scene as an error, each message after its value's path.
fn model_result(origin: &str, issues: &[Issue]) -> Result<(), LoadError> {
    if issues.is_empty() {
        return Ok(());
    }
    let diagnostics = issues
        .iter()
        .map(|issue| {
            let d = Diagnostic::error(format!("{}: {}", issue.path, issue.message));
            match &issue.hint {
                Some(hint) => d.with_hint(hint),
                None => d,
            }
        })
        .collect();
    Err(LoadError::new(origin, "", diagnostics))
}

/// Reads and parses a scene file; the path is the origin in messages.
pub fn load_file(path: &Path) -> Result<Scene, LoadError> {
    let bytes = crate::files::read(path).map_err(|err| LoadError::io(path, &err))?;
    let source = crate::files::text(&bytes)
        .map_err(|err| LoadError::io(path, &std::io::Error::new(std::io::ErrorKind::InvalidData, err)))?;
    parse(source, &path.display().to_string())
}

/// Turns semantic issues into located diagnostics with one walk over the source.
fn locate(source: &str, issues: &[Issue]) -> Vec<Diagnostic> {
    let wanted = issues.iter().flat_map(|i| std::iter::once(&i.path).chain(i.also.as_ref().map(|(p, _)| p)));
    let index = SpanIndex::scan(source, wanted);
    issues
        .iter()
        .map(|issue| {
            let mut d = Diagnostic::error(&issue.message);
            match index.locate(&issue.path) {
                Some(Located::Exact(span)) => d = d.at(source, span, &issue.label),
                Some(Located::Ancestor(span)) => {
                    d = d.at(source, span, &issue.label);
                    if let Some(field) = issue.path.last_field() {
                        d = d.with_note(format!("`{field}` is not written here, so its default applies"));
                    }
                }
                // The root always exists in text ron accepted; stay located regardless.
                None => d = d.at(source, 0..0, &issue.label),
            }
            if let Some((path, label)) = &issue.also
                && let Some(Located::Exact(span) | Located::Ancestor(span)) = index.locate(path)
            {
                d = d.also(source, span, label);
            }
            match &issue.hint {
                Some(hint) => d.with_hint(hint),
                None => d,
            }
        })
        .collect()
}
