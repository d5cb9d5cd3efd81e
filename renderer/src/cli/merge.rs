//! `renderer merge`: the partial films of a sharded render (`render --shard i/N`) into
//! one image, written exactly as `render` writes an unsharded one (docs/shards.md).
//!
//! Every part's header is read and checked first (same render, every shard once), so
//! a wrong set fails before any pixels are read; then the sums are added in f64, in
//! shard order, divided by the render's spp and written as PNG (the host tonemap
//! every host-made image uses, through the exposure and view the first part was
//! rendered with unless `--exposure` or `--view` say otherwise) or EXR (the linear
//! average).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use scene_compiler::scene::ViewTransform;

use super::{Failure, OrFail, part_failure};
use crate::backend::Tonemap;
use crate::output::{self, ImageFormat, Pixels};
use crate::shard::merge::{self, Part};
use crate::shard::partial;
use crate::timing::ms;

/// Flags of `renderer merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Partial films from `renderer render --shard i/N`: every shard of one render,
    /// each once, in any order (e.g. `parts/part-*.exr`).
    #[arg(required = true, value_name = "PART.exr")]
    parts: Vec<PathBuf>,
    /// Output image: `.png` (8-bit, gamma 2) or `.exr` (linear float), the same as an
    /// unsharded `renderer render` writes.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Exposure in stops for a PNG (see `renderer render --help`) [default: the one
    /// the first part was rendered with].
    #[arg(long, value_name = "STOPS", allow_negative_numbers = true, value_parser = super::image_args::exposure)]
    exposure: Option<f32>,
    /// View transform for a PNG (see `renderer render --help`) [default: the one the
    /// first part was rendered with].
    #[arg(long, value_enum)]
    view: Option<super::image_args::ViewArg>,
}

/// Checks the parts, adds them and writes the image; prints a summary.
pub fn run(args: &MergeArgs) -> Result<(), Failure> {
    let total = Instant::now();
    let format = output::check_output(&args.output).or_usage()?;
    let start = Instant::now();
    let mut parts = Vec::with_capacity(args.parts.len());
    for path in &args.parts {
        let info = partial::read_info(path).map_err(part_failure)?;
        parts.push(Part { path: path.clone(), info });
    }
    let parts = merge::check(parts).map_err(|e| Failure::Invalid(e.into()))?;
    let check = start.elapsed();

    let start = Instant::now();
    let film = merge::sum(&parts).map_err(part_failure)?;
    let sum = start.elapsed();
    let start = Instant::now();
    let pixels = match format {
        ImageFormat::Png => {
            let rendered = parts[0].info.display;
            let tonemap = Tonemap {
                exposure: args.exposure.unwrap_or(rendered.exposure),
                view: args.view.map_or(rendered.view, ViewTransform::from),
            };
            Pixels::Rgba8(film.rgba8(tonemap))
        }
        ImageFormat::Exr => Pixels::Linear(film.linear()),
    };
    output::write(&args.output, film.width, film.height, pixels).or_usage()?;
    let encode = start.elapsed();

    let render = &parts[0].info.render;
    println!("merged {} parts -> {}", parts.len(), args.output.display());
    println!(
        "  image      {}x{}, {} spp in {} shards, max depth {}, seed {}, next-event estimation {}, \
         {} sampler",
        render.width,
        render.height,
        render.spp,
        render.shard_count,
        render.max_depth,
        render.seed,
        if render.nee { "on" } else { "off" },
        render.sampler.name()
    );
    println!("  scene      {}", render.blob_hash);
    let mut devices: Vec<&str> = parts.iter().map(|p| p.info.backend.as_str()).collect();
    devices.sort_unstable();
    devices.dedup();
    println!("  rendered   on {}", devices.join("; "));
    println!(
        "  time       {} (headers {}, sums {}, encode {})",
        ms(total.elapsed()),
        ms(check),
        ms(sum),
        ms(encode)
    );
    Ok(())
}
