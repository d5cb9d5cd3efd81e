//! Root-mean-square error of images against a reference, for convergence studies
//! (tools/gpu-lights.sh writes the EXRs):
//!
//!   cargo run --release -p tools --bin rmse -- reference.exr a.exr b.exr ...
//!
//! Prints one line per image: its RMSE over all pixels and the three colour channels,
//! in linear values (EXR) or the stored 8-bit values divided by 255 (PNG), then the
//! largest absolute difference of one channel (0 exactly when the pixels are equal:
//! the EXR bytes of equal images can differ, tiles are written in any order).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Parser;

#[derive(Parser)]
#[command(about = "RMSE of images against a reference (same size; EXR or PNG)")]
struct Args {
    /// The reference image.
    reference: PathBuf,
    /// The images to compare with it.
    #[arg(required = true)]
    images: Vec<PathBuf>,
}

fn load(path: &PathBuf) -> anyhow::Result<image::Rgb32FImage> {
    Ok(image::open(path).with_context(|| format!("reading {}", path.display()))?.into_rgb32f())
}

fn run(args: &Args) -> anyhow::Result<()> {
    let reference = load(&args.reference)?;
    for path in &args.images {
        let image = load(path)?;
        if image.dimensions() != reference.dimensions() {
            bail!(
                "{} is {:?}, the reference {:?}",
                path.display(),
                image.dimensions(),
                reference.dimensions()
            );
        }
        let (sum, max) =
            image.as_raw().iter().zip(reference.as_raw()).fold((0.0f64, 0.0f32), |(sum, max), (&a, &b)| {
                (sum + (f64::from(a) - f64::from(b)).powi(2), max.max((a - b).abs()))
            });
        println!("{}\t{:.6}\t{:e}", path.display(), (sum / reference.as_raw().len() as f64).sqrt(), max);
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
