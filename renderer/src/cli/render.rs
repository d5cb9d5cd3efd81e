//! `renderer render`: one scene to one image file, with a timing summary on stdout.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::{Failure, OrFail, SceneArgs, load_scene, open_backend, progressive, view_scene};
use crate::job::RenderJob;
use crate::output;
use crate::timing::{Stages, mega_per_second, ms};

/// Flags of `renderer render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Output image: `.png` (8-bit, gamma 2) or `.exr` (linear float)
    /// [default: <scene name>.png in the current folder].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Loads, renders and writes the image; prints the summary.
pub fn run(args: &RenderArgs) -> Result<(), Failure> {
    let total_start = Instant::now();
    let output_path = match &args.output {
        Some(path) => path.clone(),
        None => default_output(&args.scene.scene),
    };
    // Checked before any work: a typo in `-o` should not cost a render.
    let format = output::check_output(&output_path).or_usage()?;

    let scene = load_scene(&args.scene.scene)?;
    let (view, settings, load_parse) = view_scene(&scene, &args.scene.overrides());
    let (mut backend, backend_times) = open_backend(&args.scene, &view)?;
    let job = RenderJob::full_frame(&settings, &view.camera()).with_nee(!args.scene.no_nee);
    let start = Instant::now();
    let stats = progressive::render_all(backend.as_mut(), job, settings.spp).or_device()?;
    let render = start.elapsed();

    let start = Instant::now();
    let pixels = output::read_back(backend.as_mut(), format).or_device()?;
    let readback = start.elapsed();
    let start = Instant::now();
    output::write(&output_path, settings.width, settings.height, pixels).or_usage()?;
    let encode = start.elapsed();

    let stages = Stages {
        load_parse,
        compile: scene.times.compile,
        bvh_build: scene.times.bvh_build,
        backend_init: backend_times.init,
        upload: backend_times.upload,
        kernel_compile: backend.kernel_compile(),
        render,
        render_device: Duration::from_secs_f64(stats.render_ms / 1e3),
        readback,
        encode,
        total: total_start.elapsed(),
    };
    println!("rendered {} -> {}", args.scene.scene.display(), output_path.display());
    println!("  device     {}", backend.device_name());
    println!(
        "  image      {}x{}, {} spp, max depth {}, seed {}",
        settings.width, settings.height, settings.spp, settings.max_depth, settings.seed
    );
    println!(
        "  total      {} ({:.2} Msamples/s, {:.2} Mrays/s over the render; {} rays)",
        ms(stages.total),
        mega_per_second(stats.samples, stats.render_ms),
        mega_per_second(stats.rays, stats.render_ms),
        stats.rays
    );
    print!("{stages}");
    Ok(())
}

/// `<scene stem>.png` in the current folder.
fn default_output(scene: &std::path::Path) -> PathBuf {
    let stem = scene.file_stem().map_or_else(|| "render".into(), |s| s.to_os_string());
    PathBuf::from(stem).with_extension("png")
}
