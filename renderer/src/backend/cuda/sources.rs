//! The kernel sources: embedded in the binary (the default), or read from a folder
//! (`--kernels <dir>`, for editing kernels without rebuilding the renderer).
//!
//! NVRTC gets every file by name: the entry `render.cu` as the program and every other
//! `.cu` or `.cuh` as a named header, so `#include "rng.cuh"` needs no file system and errors
//! name the file. This module does not compile anything (that is `nvrtc.rs`).
//! Seven headers are generated from Rust ([`KernelSources::generated_headers`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The translation unit NVRTC compiles; every other file is a header it includes.
pub const ENTRY: &str = "render.cu";

/// `kernels/` as compiled into this binary, entry first: every `.cu` and `.cuh` file
/// there, listed by `build.rs` (so a new header needs no edit here).
const EMBEDDED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/kernels.rs"));

/// A `.cu` or `.cuh` file: what the kernels folder contributes (`build.rs` applies the
/// same rule, and the session's watcher reloads on changes to these).
pub fn is_kernel_source(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "cu" || e == "cuh")
}

/// One source file, by its name inside the kernels folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSource {
    pub name: String,
    pub text: String,
}

/// A complete set of kernel sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSources {
    /// Where they came from, prefixed to file names in messages (`kernels` when embedded).
    pub origin: PathBuf,
    /// The entry file first, then the headers sorted by name.
    pub files: Vec<KernelSource>,
}

impl KernelSources {
    /// The sources compiled into this binary.
    pub fn embedded() -> KernelSources {
        let files = EMBEDDED
            .iter()
            .map(|(name, text)| KernelSource { name: (*name).to_owned(), text: (*text).to_owned() })
            .collect();
        KernelSources { origin: PathBuf::from("kernels"), files }
    }

    /// The headers generated from Rust records, as their sources make them now: what
    /// `cargo run -p tools --bin layout-header` writes into `kernels/` (tests check that
    /// the checked-in files equal these).
    pub fn generated_headers() -> Vec<KernelSource> {
        [
            ("blob_layout.cuh", scene_compiler::blob::cuda_header()),
            ("constants.cuh", crate::backend::constants::cuda_header()),
            ("denoise_params.cuh", crate::denoise::constants::cuda_header()),
            ("features.cuh", crate::backend::features::cuda_header()),
            ("launch_params.cuh", super::params::cuda_header()),
            ("specular_albedo.cuh", crate::backend::specular_albedo::cuda_header()),
            ("wide_node.cuh", scene_compiler::bvh::wide::cuda_header()),
        ]
        .into_iter()
        .map(|(name, text)| KernelSource { name: name.to_owned(), text })
        .collect()
    }

    /// `dir/render.cu` and every other kernel source in `dir` (what `build.rs` embeds).
    pub fn from_dir(dir: &Path) -> anyhow::Result<KernelSources> {
        let read = |path: &Path| {
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
        };
        let entry = dir.join(ENTRY);
        if !entry.is_file() {
            bail!("{} is not a kernels folder: it has no {ENTRY}", dir.display());
        }
        let mut files = vec![KernelSource { name: ENTRY.to_owned(), text: read(&entry)? }];
        let listing = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
        let mut headers = Vec::new();
        for item in listing {
            let path = item.with_context(|| format!("listing {}", dir.display()))?.path();
            if path != entry
                && is_kernel_source(&path)
                && let Some(name) = path.file_name().and_then(|n| n.to_str())
            {
                headers.push(KernelSource { name: name.to_owned(), text: read(&path)? });
            }
        }
        headers.sort_by(|a, b| a.name.cmp(&b.name));
        files.extend(headers);
        Ok(KernelSources { origin: dir.to_path_buf(), files })
    }

    /// Rewrites NVRTC's `name(line): ` locations to `origin/name:line: ` (the form
    /// editors and terminals link), for lines that name one of these files.
    pub fn rewrite_locations(&self, log: &str) -> String {
        let mut out = String::with_capacity(log.len() + 64);
        for line in log.split_inclusive('\n') {
            out.push_str(&self.rewrite_line(line).unwrap_or_else(|| line.to_owned()));
        }
        out
    }

    fn rewrite_line(&self, line: &str) -> Option<String> {
        let (name, rest) = line.split_once('(')?;
        let (number, rest) = rest.split_once("): ")?;
        let known = self.files.iter().any(|f| f.name == name);
        if !known || number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(format!("{}:{number}: {rest}", self.origin.join(name).display()))
    }
}
