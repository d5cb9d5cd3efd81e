//! Writes the list of embedded kernel sources (`$OUT_DIR/kernels.rs`, included by
//! `src/backend/cuda/sources.rs`) from the `kernels/` folder, so that a new kernel
//! header is embedded without a Rust edit.
//!
//! The folder is read from the workspace root, outside this crate: the kernels are
//! shared with the tools (`layout-header` writes two of them, the GPU bundle and
//! `kernel-sass.sh` read them) and are edited in place with `renderer --kernels`.
//! So `cargo package -p renderer` cannot build this crate on its own; it cannot
//! anyway, as its `scene-compiler` dependency is a path without a version.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The translation unit NVRTC compiles (`sources::ENTRY`): listed first.
const ENTRY: &str = "render.cu";

fn main() {
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dir = manifest.join("../kernels");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
        .map(|item| item.unwrap_or_else(|e| panic!("listing {}: {e}", dir.display())).path())
        .filter(|path| is_kernel_source(path))
        .map(|path| {
            let name = path.file_name().and_then(|n| n.to_str());
            name.unwrap_or_else(|| panic!("{}: a kernel file name must be UTF-8", path.display())).to_owned()
        })
        .collect();
    // The entry first, then by name: the order `KernelSources::from_dir` gives.
    names.sort_by(|a, b| (a != ENTRY, a).cmp(&(b != ENTRY, b)));
    assert!(names.first().is_some_and(|n| n == ENTRY), "{} has no {ENTRY}", dir.display());

    let mut list = String::from("&[\n");
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let path = path.to_str().unwrap_or_else(|| panic!("{}: the path must be UTF-8", path.display()));
        writeln!(list, "    ({name:?}, include_str!({path:?})),").expect("writing to a String");
    }
    list.push_str("]\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("kernels.rs");
    std::fs::write(&out, list).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

/// The rule of `sources::is_kernel_source` (a build script cannot call the crate).
fn is_kernel_source(path: &Path) -> bool {
    path.is_file() && path.extension().is_some_and(|e| e == "cu" || e == "cuh")
}
