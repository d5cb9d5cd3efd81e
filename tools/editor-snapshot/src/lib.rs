//! The live editor as pictures: `renderer view` in a headless egui_kittest harness,
//! drawn by wgpu (Mesa's software Vulkan where there is no GPU), rendering on the CPU
//! backend until a fixed sample count so the image is the same on every run.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use eframe::egui;
use egui_kittest::Harness;
use renderer::backend::select::BackendChoice;
use renderer::session::{Session, SessionOptions};
use renderer::view::{ViewApp, ViewOptions};

/// What the picture shows.
#[derive(Clone, Debug)]
pub struct Shot {
    /// Window size in points (one point is one pixel).
    pub size: (f32, f32),
    /// Render resolution as a fraction of the viewport.
    pub scale: f32,
    /// Samples per pixel the render stops at (all in one batch).
    pub spp: u32,
    /// The sphere shown selected (outlined, its panel open).
    pub selected: Option<usize>,
}

/// The editor on `scene`, its render finished at `shot.spp`, ready for `render()` or a
/// snapshot.
pub fn settled_editor(scene: &Path, shot: &Shot) -> anyhow::Result<Harness<'static, ViewApp>> {
    let options = ViewOptions {
        scene: scene.to_owned(),
        backend: BackendChoice::Cpu,
        kernels: None,
        spp_per_frame: shot.spp,
        scale: shot.scale,
        screenshot_dir: None,
        exposure: None,
        view: None,
        sampler: None,
    };
    let session = Session::open(scene, None, SessionOptions::default())
        .with_context(|| format!("cannot open `{}`", scene.display()))?;
    let mut app = ViewApp::new(session, &options);
    app.controls.max_spp = shot.spp;
    app.editor.selected = shot.selected.map(renderer::view::selected::Selected::Sphere);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(shot.size.0, shot.size.1))
        .wgpu()
        .build_ui_state(|ui, app: &mut ViewApp| app.show(ui), app);
    let deadline = Instant::now() + Duration::from_secs(600);
    while !harness.state().finished() {
        if Instant::now() > deadline {
            bail!("the render did not reach {} spp in 10 minutes", shot.spp);
        }
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    harness.remove_cursor();
    harness.run_steps(4);
    Ok(harness)
}
