//! Scene generators: the RTIOW benchmark scene from the reference CSV, and large
//! random sphere fields for scale tests. Output is RON written by
//! `scene_compiler::scene::to_ron`, so it parses back exactly.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use glam::Vec3;
use scene_compiler::scene::{Camera, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere, to_ron};
use tools::Pcg32;

#[derive(Parser)]
#[command(about = "Generate scenes for scene-compiler and the renderer")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The "Ray Tracing in One Weekend" final scene (488 spheres) from the reference CSV.
    Rtiow {
        /// The sphere-by-sphere dump (see assets/data/README.md).
        #[arg(long, default_value = "assets/data/rtiow_final_488.csv")]
        csv: PathBuf,
        #[arg(short, long, default_value = "assets/scenes/rtiow_final.ron")]
        output: PathBuf,
    },
    /// `count` random spheres on a jittered grid, for scale tests (1M+).
    Grid {
        #[arg(long)]
        count: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(short, long)]
        output: PathBuf,
    },
}

fn main() -> anyhow::Result<()> {
    let (scene, output) = match Cli::parse().command {
        Command::Rtiow { csv, output } => (rtiow(&csv)?, output),
        Command::Grid { count, seed, output } => (grid(count, seed)?, output),
    };
    std::fs::write(&output, to_ron(&scene)).with_context(|| format!("writing {}", output.display()))?;
    println!(
        "wrote {} ({} spheres, {} materials)",
        output.display(),
        scene.spheres.len(),
        scene.materials.len()
    );
    Ok(())
}

/// The camera, sky and settings that go with the reference dump (its README).
fn rtiow_camera() -> Camera {
    let look_from = Vec3::new(13.0, 2.0, 3.0);
    Camera {
        look_from,
        look_at: Vec3::ZERO,
        up: Vec3::Y,
        vfov_deg: 20.0,
        aperture: 0.0,
        focus_dist: look_from.length(),
    }
}

fn rtiow(csv: &Path) -> anyhow::Result<Scene> {
    let text = std::fs::read_to_string(csv).with_context(|| format!("reading {}", csv.display()))?;
    let mut lines = text.lines().enumerate();
    const HEADER: &str = "idx,center_x,center_y,center_z,radius,material,albedo_r,albedo_g,albedo_b,fuzz,ior";
    match lines.next() {
        Some((_, h)) if h.trim() == HEADER => {}
        _ => bail!("{}: first line is not the expected header `{HEADER}`", csv.display()),
    }
    let mut materials: Vec<Material> = Vec::new();
    let mut spheres = Vec::new();
    for (n, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let at = || format!("{}:{}", csv.display(), n + 1);
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols.len() != 11 {
            bail!("{}: expected 11 columns, found {}", at(), cols.len());
        }
        let num = |i: usize| -> anyhow::Result<f32> {
            cols[i]
                .parse()
                .with_context(|| format!("{}: column {} `{}` is not a number", at(), i + 1, cols[i]))
        };
        let idx = cols[0];
        let albedo = Vec3::new(num(6)?, num(7)?, num(8)?);
        let (name, kind) = match cols[5] {
            "lambertian" => (format!("diffuse_{idx}"), MaterialKind::Lambert { albedo }),
            "metal" => (format!("metal_{idx}"), MaterialKind::Metal { albedo, fuzz: num(9)? }),
            // All glass in the scene is the same; one material serves every glass sphere.
            "dielectric" => (format!("glass_{}", cols[10]), MaterialKind::Dielectric { ior: num(10)? }),
            other => bail!("{}: unknown material `{other}`", at()),
        };
        let name = if idx == "0" { "ground".to_string() } else { name };
        let material = match materials.iter().position(|m| m.name == name) {
            Some(i) => i,
            None => {
                materials.push(Material { name, kind });
                materials.len() - 1
            }
        };
        spheres.push(Sphere {
            center: Vec3::new(num(1)?, num(2)?, num(3)?),
            radius: num(4)?,
            material: material as u32,
        });
    }
    Ok(Scene {
        camera: rtiow_camera(),
        settings: RenderSettings { width: 1280, height: 720, spp: 30, max_depth: 50, seed: 0 },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        materials,
        spheres,
        boxes: Vec::new(),
        terrains: Vec::new(),
        lights: Vec::new(),
    })
}

fn grid(count: usize, seed: u64) -> anyhow::Result<Scene> {
    if count == 0 {
        bail!("--count must be at least 1");
    }
    let mut rng = Pcg32::new(seed);
    let palette = [
        ("matte_red", MaterialKind::Lambert { albedo: Vec3::new(0.7, 0.2, 0.2) }),
        ("matte_white", MaterialKind::Lambert { albedo: Vec3::splat(0.73) }),
        ("gold", MaterialKind::Metal { albedo: Vec3::new(0.9, 0.7, 0.3), fuzz: 0.2 }),
        ("mirror", MaterialKind::Metal { albedo: Vec3::splat(0.95), fuzz: 0.0 }),
        ("glass", MaterialKind::Dielectric { ior: 1.5 }),
    ];
    let materials = palette.iter().map(|(n, k)| Material { name: (*n).into(), kind: *k }).collect();
    // One sphere per unit cell, jittered inside it, so spheres never overlap.
    let side = (count as f64).cbrt().ceil() as usize;
    let spheres = (0..count)
        .map(|i| {
            let cell = Vec3::new((i % side) as f32, ((i / side) % side) as f32, (i / (side * side)) as f32);
            let radius = rng.range(0.1, 0.45);
            let jitter = Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32()) * (1.0 - 2.0 * radius);
            Sphere {
                center: cell + Vec3::splat(radius) + jitter,
                radius,
                material: rng.next_u32() % palette.len() as u32,
            }
        })
        .collect();
    let extent = side as f32;
    let look_at = Vec3::splat(extent * 0.5);
    let look_from = look_at + Vec3::new(1.2, 0.8, 1.5) * extent;
    Ok(Scene {
        camera: Camera {
            look_from,
            look_at,
            up: Vec3::Y,
            vfov_deg: 40.0,
            aperture: 0.0,
            focus_dist: (look_from - look_at).length(),
        },
        settings: RenderSettings { width: 1280, height: 720, spp: 16, max_depth: 16, seed: seed as u32 },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        materials,
        spheres,
        boxes: Vec::new(),
        terrains: Vec::new(),
        lights: Vec::new(),
    })
}
