//! Writes `kernels/blob_layout.cuh` and the field table of `docs/blob-format.md`
//! from the Rust blob records (scene-compiler/src/blob/layout.rs), the single
//! source of truth. `cargo test` fails when either checked-in file is stale.

use std::path::Path;

use anyhow::Context;

fn main() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let header = root.join("kernels/blob_layout.cuh");
    std::fs::write(&header, scene_compiler::blob::cuda_header())
        .with_context(|| format!("writing {}", header.display()))?;
    let doc = root.join("docs/blob-format.md");
    let text = std::fs::read_to_string(&doc).with_context(|| format!("reading {}", doc.display()))?;
    let updated = scene_compiler::blob::with_field_tables(&text)
        .with_context(|| format!("{} has no generated-table markers", doc.display()))?;
    std::fs::write(&doc, updated).with_context(|| format!("writing {}", doc.display()))?;
    println!("wrote {} and {}", header.display(), doc.display());
    Ok(())
}
