//! `renderer view`: opens the live editor window on a scene (see `crate::view`).

use std::path::PathBuf;

use clap::Args;

use super::{Failure, OrFail};
use crate::backend::select::BackendChoice;
use crate::session::SPP_PER_FRAME;
use crate::view::{self, ViewOptions};

/// Flags of `renderer view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Scene to edit: a `.ron` scene (hot-reloaded when it changes) or a `.blob` (view only; it cannot be saved).
    scene: PathBuf,
    /// Where to render; the GPU/CPU switch in the window changes it later.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Load and watch the CUDA kernel sources in this folder (hot-reloaded when they change).
    #[arg(long, value_name = "DIR")]
    kernels: Option<PathBuf>,
    /// Most samples per pixel added per displayed frame (fewer when a batch would take over 50 ms).
    #[arg(long, default_value_t = SPP_PER_FRAME, value_parser = clap::value_parser!(u32).range(1..=64))]
    spp_per_frame: u32,
    /// Render resolution as a fraction of the window's pixels, 0.1 to 1.
    #[arg(long, default_value_t = 0.5, value_parser = parse_scale)]
    scale: f32,
    /// Where the Screenshot button writes its PNGs (also editable in the window)
    /// [default: the scene's folder].
    #[arg(long, value_name = "DIR")]
    screenshot_dir: Option<PathBuf>,
    /// Exposure and view until the window's controls change them (which edits the
    /// scene's settings), and the sampler.
    #[command(flatten)]
    image: super::image_args::ImageArgs,
}

fn parse_scale(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(scale) if (0.1..=1.0).contains(&scale) => Ok(scale),
        _ => Err(format!("`{text}` is not a number from 0.1 to 1")),
    }
}

/// Opens the scene (an unreadable file is an input error) and runs the window.
pub fn run(args: &ViewArgs) -> Result<(), Failure> {
    if !args.scene.is_file() {
        return Err(Failure::Usage(anyhow::anyhow!("cannot read `{}`: no such file", args.scene.display())));
    }
    let options = ViewOptions {
        scene: args.scene.clone(),
        backend: args.backend,
        kernels: args.kernels.clone(),
        spp_per_frame: args.spp_per_frame,
        scale: args.scale,
        screenshot_dir: args.screenshot_dir.clone(),
        exposure: args.image.exposure,
        view: args.image.view(),
        sampler: args.image.sampler(),
    };
    view::run(&options).or_device()
}
