//! Writes a picture of the live editor (docs/editor.png in the README): run it through
//! tools/editor-snapshot.sh whenever the editor's look or the blob changes.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use editor_snapshot::{Shot, settled_editor};

/// Renders `renderer view` headless (wgpu; Mesa's software Vulkan works) and saves the window as a PNG.
#[derive(Parser)]
struct Args {
    /// The scene shown.
    #[arg(default_value = "assets/scenes/rtiow_final.ron")]
    scene: PathBuf,
    /// Where the PNG goes.
    #[arg(short, long, default_value = "docs/editor.png")]
    output: PathBuf,
    #[arg(long, default_value_t = 1200.0)]
    width: f32,
    #[arg(long, default_value_t = 760.0)]
    height: f32,
    /// Render resolution as a fraction of the viewport.
    #[arg(long, default_value_t = 0.5)]
    scale: f32,
    /// Samples per pixel of the render in the picture.
    #[arg(long, default_value_t = 256)]
    spp: u32,
    /// The sphere shown selected (its index in the scene).
    #[arg(long, default_value_t = 487)]
    select: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let shot = Shot {
        size: (args.width, args.height),
        scale: args.scale,
        spp: args.spp,
        selected: Some(args.select),
    };
    let mut harness = settled_editor(&args.scene, &shot)?;
    let image = harness.render().map_err(|e| anyhow::anyhow!("wgpu could not draw the window: {e}"))?;
    image.save(&args.output).with_context(|| format!("cannot write `{}`", args.output.display()))?;
    println!("wrote {}", args.output.display());
    Ok(())
}
