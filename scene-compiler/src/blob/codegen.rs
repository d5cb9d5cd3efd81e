//! Text generated from the Rust records in `records/layout.rs`: the CUDA header
//! `kernels/blob_layout.cuh` (so the kernels can never disagree with the blob about
//! a byte) and the field tables of `docs/blob-format.md`. A single record's CUDA struct
//! and the banner are `records/codegen.rs`'s.
//! `cargo run -p tools --bin layout-header` writes every generated file; tests check they
//! are current.

use std::fmt::Write;

use crate::records::codegen::{generated_banner, record_struct};
use crate::records::layout::*;
use crate::shapes::Shape;
use crate::with_shape;

/// The full text of `kernels/blob_layout.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("scene-compiler/src/records/layout.rs");
    let _ = writeln!(out, "#define BLOB_FORMAT_VERSION {FORMAT_VERSION}u");
    let _ = writeln!(out, "#define BLOB_FLAG_SHADING_NORMALS {FLAG_SHADING_NORMALS}u");
    let _ = writeln!(out, "#define BLOB_LEAF_FLAG 0x{LEAF_FLAG:08x}u");
    let _ = writeln!(out, "#define BLOB_LEAF_COUNT_SHIFT {LEAF_COUNT_SHIFT}u");
    let _ = writeln!(out, "#define BLOB_LEAF_COUNT_MASK 0x{LEAF_COUNT_MASK:08x}u");
    let _ = writeln!(out, "#define BLOB_PRIM_KIND_SHIFT {PRIM_KIND_SHIFT}u");
    let _ = writeln!(out, "#define BLOB_PRIM_KIND_MASK 0x{PRIM_KIND_MASK:08x}u");
    let _ = writeln!(out, "#define BLOB_PRIM_INDEX_MASK 0x{PRIM_INDEX_MASK:08x}u");
    let _ = writeln!(out, "#define BLOB_PRIM_KINDS {}", PrimKind::SLOTS);
    let _ = writeln!(out, "#define BLOB_PRIM_KINDS_USED {}", PrimKind::USED);
    for kind in PrimKind::ALL {
        let _ = writeln!(out, "#define BLOB_PRIM_{} {}u", kind.name().to_uppercase(), kind as u32);
    }
    let _ = writeln!(out, "#define BLOB_MAX_BVH_DEPTH {}", crate::limits::MAX_BVH_DEPTH);
    let _ = writeln!(out, "#define BLOB_LIGHT_POINT {LIGHT_POINT}u");
    let _ = writeln!(out, "#define BLOB_LIGHT_DIRECTIONAL {LIGHT_DIRECTIONAL}u");
    let _ = writeln!(out, "#define BLOB_LIGHT_AREA {LIGHT_AREA}u");
    let _ = writeln!(out, "#define BLOB_LIGHT_ENVIRONMENT {LIGHT_ENVIRONMENT}u");
    let _ = writeln!(out, "#define BLOB_VIEW_STANDARD {VIEW_STANDARD}u");
    let _ = writeln!(out, "#define BLOB_VIEW_AGX {VIEW_AGX}u");
    let _ = writeln!(out, "#define BLOB_VIEW_FILMIC {VIEW_FILMIC}u");
    let _ = writeln!(out, "#define BLOB_SAMPLER_INDEPENDENT {SAMPLER_INDEPENDENT}u");
    let _ = writeln!(out, "#define BLOB_SAMPLER_SOBOL {SAMPLER_SOBOL}u");
    for (name, kind) in MATERIAL_KINDS {
        let _ = writeln!(out, "#define BLOB_MATERIAL_{name} {kind}u");
    }
    let _ = writeln!(out, "#define BLOB_NO_TEXTURE 0x{NO_TEXTURE:08x}u");
    let _ = writeln!(out, "#define BLOB_NO_MATERIAL 0x{NO_MATERIAL:08x}u");
    let _ = writeln!(out, "#define BLOB_NO_NORMAL 0x{NO_NORMAL:08x}u");
    let _ = writeln!(out, "#define BLOB_ALPHA_OPAQUE {ALPHA_OPAQUE}u");
    let _ = writeln!(out, "#define BLOB_ALPHA_MASK {ALPHA_MASK}u");
    let _ = writeln!(out, "#define BLOB_ALPHA_BLEND {ALPHA_BLEND}u");
    let _ = writeln!(out, "#define BLOB_TEXTURE_IMAGE {TEXTURE_IMAGE}u");
    let _ = writeln!(out, "#define BLOB_TEXTURE_CHECKER {TEXTURE_CHECKER}u");
    let _ = writeln!(out, "#define BLOB_TEXTURE_NOISE {TEXTURE_NOISE}u");
    let _ = writeln!(out, "#define BLOB_WRAP_REPEAT {WRAP_REPEAT}u");
    let _ = writeln!(out, "#define BLOB_WRAP_CLAMP {WRAP_CLAMP}u");
    let _ = writeln!(out, "#define BLOB_NOISE_POINTS {NOISE_POINTS}\n");
    for id in SectionId::ALL {
        let _ = writeln!(out, "#define BLOB_SECTION_{} {}", id.name().to_uppercase(), id as u32);
    }
    out.push('\n');
    for_each_record(&mut out, record_struct);
    out
}

/// Markers around the generated part of `docs/blob-format.md`.
pub const TABLES_BEGIN: &str =
    "<!-- BEGIN GENERATED FIELD TABLES (cargo run -p tools --bin layout-header) -->";
pub const TABLES_END: &str = "<!-- END GENERATED FIELD TABLES -->";

/// `doc` with the text between the table markers replaced by the current tables;
/// `None` when the markers are missing.
pub fn with_field_tables(doc: &str) -> Option<String> {
    let begin = doc.find(TABLES_BEGIN)? + TABLES_BEGIN.len();
    let end = begin + doc[begin..].find(TABLES_END)?;
    let mut tables = String::from("\n");
    for_each_record(&mut tables, record_table);
    Some(format!("{}{}{}", &doc[..begin], tables, &doc[end..]))
}

fn for_each_record(out: &mut String, emit: fn(&mut String, &str, usize, usize, &str, &[Field])) {
    fn one<R: Record>(out: &mut String, emit: fn(&mut String, &str, usize, usize, &str, &[Field])) {
        emit(out, R::C_NAME, core::mem::size_of::<R>(), core::mem::align_of::<R>(), R::DOC, R::FIELDS);
    }
    one::<GlobalsRecord>(out, emit);
    one::<MaterialRecord>(out, emit);
    one::<TextureRecord>(out, emit);
    one::<NoiseRecord>(out, emit);
    // Every shape's record, in kind order: a new shape needs no line here.
    for kind in PrimKind::ALL {
        with_shape!(kind, S => one::<<S as Shape>::Record>(out, emit));
    }
    one::<VertexRecord>(out, emit);
    one::<VertexUvRecord>(out, emit);
    one::<TriangleTangentsRecord>(out, emit);
    one::<NodeBoxesRecord>(out, emit);
    one::<NodeLinksRecord>(out, emit);
    one::<LightRecord>(out, emit);
    one::<EnvTexelRecord>(out, emit);
    one::<EnvAliasRecord>(out, emit);
}

fn record_table(out: &mut String, name: &str, size: usize, align: usize, doc: &str, fields: &[Field]) {
    let _ = writeln!(out, "### `{name}` ({size} bytes, aligned to {align})\n\n{}\n", doc.trim());
    let _ = writeln!(out, "| offset | field | type | meaning |\n| ---: | --- | --- | --- |");
    for f in fields {
        let _ = writeln!(out, "| {} | `{}` | `{}` | {} |", f.offset, f.name, f.ty.cuda_name(), f.doc.trim());
    }
    out.push('\n');
}
