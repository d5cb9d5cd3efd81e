//! Writes every file generated from Rust records, the single sources of truth:
//! `kernels/blob_layout.cuh` (the blob records, scene-compiler/src/records/layout.rs),
//! `kernels/launch_params.cuh` (the render kernel's parameters,
//! renderer/src/backend/cuda/params.rs), `kernels/wide_node.cuh` (the compressed 8-wide
//! BVH node, scene-compiler/src/bvh/wide.rs) and the field tables of `docs/blob-format.md`.
//! `cargo test` fails when a checked-in file is stale.

use std::path::Path;

use anyhow::Context;
use renderer::backend::cuda::KernelSources;

fn main() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut written = Vec::new();
    for header in KernelSources::generated_headers() {
        let path = root.join("kernels").join(&header.name);
        std::fs::write(&path, header.text).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    let doc = root.join("docs/blob-format.md");
    let text = std::fs::read_to_string(&doc).with_context(|| format!("reading {}", doc.display()))?;
    let updated = scene_compiler::blob::with_field_tables(&text)
        .with_context(|| format!("{} has no generated-table markers", doc.display()))?;
    std::fs::write(&doc, updated).with_context(|| format!("writing {}", doc.display()))?;
    written.push(doc);
    for path in written {
        println!("wrote {}", path.display());
    }
    Ok(())
}
