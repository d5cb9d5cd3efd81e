//! Scene input for the CLI: a `.ron` scene compiled in memory, or a precompiled
//! `.blob`, both ending as validated blob bytes (DESIGN.md, "The data path").
//!
//! Not here: anything about RON syntax or blob layout (scene-compiler owns both);
//! this module only picks the path by extension, times it and words the errors.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use scene_compiler::scene::{self, LoadError};
use scene_compiler::{AlignedBytes, BlobError, BlobView, CompileOptions, compile_scene};

/// Why a scene file could not be used; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The compiler's diagnostics, already rendered with file:line:col.
    #[error("{0}")]
    Scene(#[from] LoadError),
    // The causes are in the messages, not `#[source]`s, so `{:#}` does not print them twice.
    #[error("cannot read `{path}`: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("`{path}` is not a valid scene blob: {error}")]
    Blob { path: String, error: BlobError },
    #[error("`{path}`: unknown scene file type; expected a `.ron` scene or a compiled `.blob`")]
    UnknownKind { path: String },
}

/// How long each input stage took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InputTimes {
    /// Reading and parsing the file (RON: with its validation; blob: see [`SceneInput::view`]).
    pub load_parse: Duration,
    /// For a `.ron`: the whole in-memory compile (BVH build and blob encode).
    pub compile: Option<Duration>,
    /// For a `.ron`: the BVH build alone (part of `compile`).
    pub bvh_build: Option<Duration>,
}

/// A scene as blob bytes, validated when viewed.
#[derive(Debug)]
pub struct SceneInput {
    pub path: PathBuf,
    pub blob: AlignedBytes,
    pub times: InputTimes,
}

impl SceneInput {
    /// Reads `path`: a `.ron` is parsed and compiled, a `.blob` read as is.
    pub fn load(path: &Path) -> Result<SceneInput, InputError> {
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let start = Instant::now();
        let (blob, times) = match extension.as_deref() {
            Some("ron") => {
                let scene = scene::load_file(path)?;
                let load_parse = start.elapsed();
                let start = Instant::now();
                let compiled = compile_scene(&scene, &CompileOptions::default());
                let times = InputTimes {
                    load_parse,
                    compile: Some(start.elapsed()),
                    bvh_build: Some(compiled.bvh_time),
                };
                (compiled.blob, times)
            }
            Some("blob") => {
                let blob = AlignedBytes::read_file(path)
                    .map_err(|error| InputError::Read { path: path.display().to_string(), error })?;
                (blob, InputTimes { load_parse: start.elapsed(), ..InputTimes::default() })
            }
            _ => return Err(InputError::UnknownKind { path: path.display().to_string() }),
        };
        Ok(SceneInput { path: path.to_owned(), blob, times })
    }

    /// Validates the blob and views it (the caller times this as part of load/parse).
    pub fn view(&self) -> Result<BlobView<'_>, InputError> {
        BlobView::parse(&self.blob)
            .map_err(|error| InputError::Blob { path: self.path.display().to_string(), error })
    }
}
