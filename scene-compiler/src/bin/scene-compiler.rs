//! `scene-compiler`: compile RON scenes to GPU-ready blobs, inspect and verify blobs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use scene_compiler::blob::layout::{LIGHT_AREA, PrimKind, SectionId, prim_parts};
use scene_compiler::blob::{AlignedBytes, BlobView, NodeLayout};
use scene_compiler::bvh::{BuildOptions, BvhStats, stats};
use scene_compiler::limits::MAX_LEAF_SIZE;
use scene_compiler::{CompileOptions, compile_scene_into, files, scene};

/// The exit codes, shared with the renderer (3 is its device failure, never used here).
const AFTER_HELP: &str = "\
Exit codes (the same scheme as the renderer's):
  0  success
  1  invalid input: a scene with errors (printed with file:line:col) or a blob that fails validation
  2  usage or I/O error: bad flags, a file that cannot be read or written
  3  device failure: the renderer's only; scene-compiler never exits with it";

#[derive(Parser)]
#[command(version, about = "Compile RON scenes into GPU-ready blobs (SoA sections, binned-SAH BVH)", after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a scene: parse, validate, build the BVH and write the blob.
    #[command(after_help = AFTER_HELP)]
    Build {
        /// The scene file (RON; see docs/scene-format.md).
        scene: PathBuf,
        /// Where to write the blob [default: the scene path with extension .blob].
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// BVH node order: depth-first (left child next to its parent) or van Emde Boas.
        #[arg(long, value_enum, default_value_t = Layout::DepthFirst)]
        layout: Layout,
        /// SAH bins per split (2..=256).
        #[arg(long, default_value_t = BuildOptions::default().bins, value_parser = clap::value_parser!(u32).range(2..=256))]
        bins: u32,
        /// Largest leaf, in primitives (1..=16, the most a blob leaf link holds).
        #[arg(long, default_value_t = BuildOptions::default().max_leaf_size, value_parser = clap::value_parser!(u32).range(1..=MAX_LEAF_SIZE as i64))]
        max_leaf: u32,
    },
    /// Print a blob's header, sections and BVH statistics.
    #[command(after_help = AFTER_HELP)]
    Inspect {
        /// A blob written by `scene-compiler build`.
        blob: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Validate a blob (everything a backend relies on); prints OK or the first problem.
    #[command(after_help = AFTER_HELP)]
    Verify {
        /// A blob written by `scene-compiler build`.
        blob: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Layout {
    DepthFirst,
    Veb,
}

/// A failure and the exit code it maps to.
struct Failure {
    code: u8,
    message: String,
}

fn invalid(message: impl ToString) -> Failure {
    Failure { code: 1, message: message.to_string() }
}

fn io(path: &Path, action: &str, e: std::io::Error) -> Failure {
    Failure { code: 2, message: format!("error: cannot {action} {}: {e}", path.display()) }
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Build { scene, output, layout, bins, max_leaf } => {
            build(&scene, output, layout, bins, max_leaf)
        }
        Command::Inspect { blob, json } => inspect(&blob, json),
        Command::Verify { blob } => verify(&blob),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("{}", f.message.trim_end());
            ExitCode::from(f.code)
        }
    }
}

fn build(
    path: &Path,
    output: Option<PathBuf>,
    layout: Layout,
    bins: u32,
    max_leaf: u32,
) -> Result<(), Failure> {
    let start = Instant::now();
    let bytes = files::read(path).map_err(|e| io(path, "read", e))?;
    let text = files::text(&bytes)
        .map_err(|e| invalid(format!("error: {} is not UTF-8 text: {e}", path.display())))?;
    let scene = scene::parse(text, &path.display().to_string()).map_err(invalid)?;
    let parse_time = start.elapsed();
    for warning in scene_compiler::meshes::warnings(&scene) {
        eprintln!("warning: {warning}");
    }
    let layout = match layout {
        Layout::DepthFirst => NodeLayout::DepthFirst,
        Layout::Veb => NodeLayout::VanEmdeBoas,
    };
    let options = CompileOptions { layout, bvh: BuildOptions { bins, max_leaf_size: max_leaf } };
    scene_compiler::memory::check(&scene, scene_compiler::memory::available())
        .map_err(|e| invalid(format!("error: {}: {e}", path.display())))?;
    let output = output.unwrap_or_else(|| path.with_extension("blob"));
    // A large blob is encoded straight into a temporary file beside the output (a
    // mapping of it), renamed over the output once checked; a small one in memory.
    let mut pending: Option<files::PendingFile> = None;
    let compiled = compile_scene_into(&scene, &options, &mut |len| {
        #[cfg(unix)]
        if len >= files::MAPPED_MIN_BYTES {
            let (file, bytes) = files::pending_mapped(&output, len)?;
            pending = Some(file);
            return Ok(bytes);
        }
        Ok::<_, std::io::Error>(AlignedBytes::zeroed(len))
    })
    .map_err(|e| io(&output, "write", e))?;
    let (boxes, materials, terrains) = (scene.boxes.len(), scene.materials.len(), scene.terrains.len());
    let (blob, bvh_stats) = (compiled.blob, compiled.bvh_stats);
    let (terrain_time, bvh_time, encode_time) =
        (compiled.terrain_time, compiled.bvh_time, compiled.encode_time);
    let start = Instant::now();
    // Freed beside the write and the check, the scene and the tree (about as large as
    // the blob; 0.05-0.15 s to unmap at 21M triangles) give the page cache pages
    // this process already touched: on the dev machine's VM a page touched for the
    // first time costs about 0.6 s per GB.
    let freed = (scene, compiled.bvh, compiled.bottom_trees);
    // The full check (while a blob compiled in memory is written): validation keeps
    // every value in the ranges whose products stay finite (docs/scene-format.md), so
    // this never fails on a scene that parsed; if it does, the temporary file is
    // removed, never renamed, and no invalid blob is left behind (issue 37).
    let (checked, written) = std::thread::scope(|threads| {
        threads.spawn(move || drop(freed));
        // (A blob encoded into its file is written already.)
        let writing = pending.is_none().then(|| threads.spawn(|| files::write_pending(&output, &blob)));
        let checked = BlobView::parse(&blob);
        (checked, writing.map(|w| w.join()))
    });
    let view = checked.map_err(|e| {
        invalid(format!("internal error: the compiled blob is invalid, nothing written: {e}"))
    })?;
    let written = match written {
        Some(joined) => joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        None => Ok(pending.expect("a blob not written beside the check was encoded into its file")),
    };
    written.and_then(files::PendingFile::commit).map_err(|e| io(&output, "write", e))?;
    let write_time = start.elapsed();

    println!("compiled {} -> {}", path.display(), output.display());
    let columns = view.header.prim_count(PrimKind::Box) as usize - boxes;
    let terrains = match terrains {
        0 => String::new(),
        n => format!(" ({columns} of them columns of {n} terrain{})", if n == 1 { "" } else { "s" }),
    };
    println!("  {}{terrains}, {} materials, {}", prim_summary(&view), materials, light_summary(&view));
    print_bvh(&bvh_stats, view.node_layout());
    print_sections(&view);
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!(
        "  time: parse {:.2} ms (terrain images and models included), terrains and meshes to primitives {:.2} ms, BVH {:.2} ms, encode {:.2} ms, check and write {:.2} ms",
        ms(parse_time),
        ms(terrain_time),
        ms(bvh_time),
        ms(encode_time),
        ms(write_time)
    );
    Ok(())
}

/// "3 lights (1 emissive sphere, 2 emissive boxes)": the light table's records, of
/// which area lights, by kind.
fn light_summary(view: &BlobView<'_>) -> String {
    let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { plural_suffix(one) });
    let total = plural(view.lights.len(), "light");
    let areas: Vec<String> = PrimKind::ALL
        .into_iter()
        .filter_map(|kind| {
            let n = view
                .lights
                .iter()
                .filter(|l| l.kind == LIGHT_AREA && prim_parts(l.prim).0 == kind as u32)
                .count();
            (n > 0).then(|| plural(n, &format!("emissive {}", kind.name())))
        })
        .collect();
    if areas.is_empty() { total } else { format!("{total} ({})", areas.join(", ")) }
}

/// "es" after a word ending in x or s ("boxes"), else "s".
fn plural_suffix(word: &str) -> &'static str {
    if word.ends_with('x') || word.ends_with('s') { "es" } else { "s" }
}

fn load(path: &Path) -> Result<AlignedBytes, Failure> {
    AlignedBytes::read_file(path).map_err(|e| io(path, "read", e))
}

fn parse<'a>(path: &Path, bytes: &'a AlignedBytes) -> Result<BlobView<'a>, Failure> {
    BlobView::parse(bytes).map_err(|e| invalid(format!("error: {} is not a valid blob: {e}", path.display())))
}

fn inspect(path: &Path, json: bool) -> Result<(), Failure> {
    let bytes = load(path)?;
    let view = parse(path, &bytes)?;
    let h = view.header;
    let bvh = stats(&view.tree());
    if json {
        let sections: Vec<_> = SectionId::ALL
            .iter()
            .map(|&id| {
                let e = h.sections[id as usize];
                serde_json::json!({ "name": id.name(), "offset": e.offset, "bytes": e.len })
            })
            .collect();
        let mut value = serde_json::json!({
            "file": path.display().to_string(),
            "version": h.version,
            "bytes": h.total_len,
            "layout": layout_name(view.node_layout()),
            "materials": h.material_count,
            "lights": h.light_count,
            "nodes": bvh.node_count,
            "inner_nodes": h.node_count,
            "bvh": { "depth": bvh.depth, "leaves": bvh.leaf_count, "sah_cost": bvh.sah_cost,
                     "leaf_size_histogram": bvh.leaf_size_histogram },
            "settings": view.settings(),
            "crc32": format!("{:08x}", h.payload_crc32),
            "sections": sections,
        });
        // One count per kind, named as its section: "spheres", "boxes".
        for kind in PrimKind::ALL {
            value[kind.section().name()] = h.prim_count(kind).into();
        }
        println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
        return Ok(());
    }
    println!(
        "{}: scene blob v{}, {} bytes, crc32 {:08x}",
        path.display(),
        h.version,
        h.total_len,
        h.payload_crc32
    );
    println!("  {}, {} materials, {}", prim_summary(&view), h.material_count, light_summary(&view));
    let s = view.settings();
    println!(
        "  settings: {}x{}, {} spp, max depth {}, seed {}",
        s.width, s.height, s.spp, s.max_depth, s.seed
    );
    print_bvh(&bvh, view.node_layout());
    print_sections(&view);
    Ok(())
}

fn verify(path: &Path) -> Result<(), Failure> {
    let bytes = load(path)?;
    let view = parse(path, &bytes)?;
    println!(
        "{}: OK ({}, {} inner BVH nodes, {} bytes)",
        path.display(),
        prim_summary(&view),
        view.node_links.len(),
        bytes.len()
    );
    Ok(())
}

/// "3 spheres, 2 boxes": every kind's count.
fn prim_summary(view: &BlobView<'_>) -> String {
    let counts =
        PrimKind::ALL.map(|kind| format!("{} {}", view.header.prim_count(kind), kind.section().name()));
    counts.join(", ")
}

fn layout_name(layout: NodeLayout) -> &'static str {
    match layout {
        NodeLayout::DepthFirst => "depth-first",
        NodeLayout::VanEmdeBoas => "veb",
    }
}

fn print_bvh(s: &BvhStats, layout: NodeLayout) {
    println!(
        "  BVH: {} nodes ({} leaves), depth {}, SAH cost {:.2}, {} layout",
        s.node_count,
        s.leaf_count,
        s.depth,
        s.sah_cost,
        layout_name(layout)
    );
    let histogram: Vec<String> = s
        .leaf_size_histogram
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(size, n)| format!("{size}:{n}"))
        .collect();
    println!("  leaf sizes (primitives:leaves): {}", histogram.join(" "));
}

fn print_sections(view: &BlobView<'_>) {
    let parts: Vec<String> = SectionId::ALL
        .iter()
        .map(|&id| format!("{} {}", id.name(), view.header.sections[id as usize].len))
        .collect();
    println!(
        "  bytes: header {}, {} = {} total",
        scene_compiler::blob::layout::HEADER_LEN,
        parts.join(", "),
        view.bytes.len()
    );
}
