//! Scene generators: the RTIOW benchmark scene from the reference CSV, large
//! random sphere fields for scale tests, and a procedural city heightmap
//! (`tools::city`), meshes, skies, and a forest of instances. Output is RON written by
//! `scene_compiler::scene::to_ron`, so it parses back exactly; `grid --ply` puts the
//! spheres in a PLY point list beside it, `forest` its model and instance file.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use glam::Vec3;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder};
use scene_compiler::procedural_sky;
use scene_compiler::scene::{Camera, Material, MaterialKind, RenderSettings, Scene, Sky, Sphere, to_ron};
use tools::{Pcg32, city};

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
    ///
    /// With `--ply` the spheres go to a binary little-endian PLY point list next to
    /// the scene, named after it (`-o grid.ron --ply` writes grid.ron and grid.ply),
    /// and the scene names it under `sphere_files`: the form docs/scene-format.md
    /// recommends for large scenes (a 1M-sphere scene is a 1 KB RON file and a 17 MB
    /// PLY instead of 92 MB of RON). Both forms compile to the same blob.
    #[command(verbatim_doc_comment)]
    Grid {
        #[arg(long)]
        count: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the spheres as a PLY point list beside the scene.
        #[arg(long)]
        ply: bool,
        /// The scene to write (`.ron`).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// A procedural city: an N x N heightmap PNG of blocks of buildings between
    /// streets, and a scene that renders it (a terrain with a palette by height, an
    /// aerial camera, a sky and a low sun).
    ///
    /// The PNG (8-bit grayscale) goes next to the scene, named after it (`-o
    /// city.ron` writes city.ron and city.png), and the scene names it without a
    /// folder, so the two can move together. Pixel values: 1 streets, 2-3 parks and
    /// trees, 4..=125 buildings (one height per lot, towers towards the middle). The
    /// same size and seed give the same files, byte for byte.
    #[command(verbatim_doc_comment)]
    Terrain {
        /// Side of the map in pixels (one pixel is one unit of the scene); at most
        /// 5792, the largest terrain image a scene takes.
        #[arg(long, default_value_t = 512)]
        size: u32,
        /// The same size and seed give the same city.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The scene to write (`.ron`); the PNG goes next to it.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// A texture test image (8-bit sRGB PNG): a grid of coloured cells, its columns
    /// running through the hues and its rows from dark to light, with black lines
    /// between them and a white marker in the top-left cell, so a render shows which way
    /// u and v run. The same size gives the same file, byte for byte.
    #[command(verbatim_doc_comment)]
    Texture {
        /// Width in pixels; the height is half of it (an equirectangular 2:1 image).
        #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(16..=16384))]
        width: u32,
        /// The PNG to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// A forest: N instances of one tree (an icosphere subdivided K times, 20 * 4^K
    /// triangles, stored once) on a ground, on a jittered grid with random turns,
    /// sizes and three leaf colours: the instancing test scene.
    ///
    /// The tree and the instances go next to the scene, named after it (`-o
    /// forest.ron` writes forest.ron, forest-tree.ply and forest-instances.ply: a
    /// binary PLY with `x y z`, `ry`, `scale` and `material` per instance), and the
    /// scene names them under `meshes: [(file, material, instance_file)]`. The same
    /// arguments give the same files, byte for byte.
    #[command(verbatim_doc_comment)]
    Forest {
        /// How many trees (at most 2^25).
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1 << 25))]
        instances: u64,
        /// The tree's subdivisions: 8 make 1.3M triangles per tree.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=10))]
        subdivisions: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write each tree as a mesh of its own, placed by its `transform`, instead of
        /// an instance file: the same image with every triangle flattened into the
        /// world, for comparisons (no instance file is written).
        #[arg(long)]
        flatten: bool,
        /// The scene to write (`.ron`); the tree and the instance file go next to it.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// A closed icosphere mesh (an icosahedron subdivided N times: 20 * 4^N
    /// triangles, its vertices on the sphere) written as a model file for `meshes`:
    /// the format follows the extension (.obj, .ply, .gltf, .glb). Subdivisions 8
    /// make 1.3M triangles, 10 make 21M.
    #[command(verbatim_doc_comment)]
    Mesh {
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=11))]
        subdivisions: u32,
        #[arg(long, default_value_t = 1.0)]
        radius: f32,
        /// PLY as text (the default PLY is binary little endian).
        #[arg(long)]
        ascii: bool,
        /// Without vertex normals (flat-shaded facets); by default each vertex has
        /// the sphere's normal, so the mesh shades like the sphere.
        #[arg(long)]
        flat: bool,
        /// The model file to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// A procedural HDR sky for `sky: Environment(image: ...)`: an equirectangular
    /// image (width x width/2) of a gradient from the horizon to the zenith, a darker
    /// ground and a sun disc; OpenEXR or Radiance HDR by the extension (.exr, .hdr).
    #[command(verbatim_doc_comment)]
    Sky {
        #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(2..=8192))]
        width: u32,
        /// The sun's elevation above the horizon, in degrees.
        #[arg(long, default_value_t = 20.0)]
        sun_elevation: f32,
        /// The sun's azimuth in degrees: 0 along +Z (the image's centre column), 90 along +X.
        #[arg(long, default_value_t = 60.0)]
        sun_azimuth: f32,
        /// The sun disc's angular radius in degrees.
        #[arg(long, default_value_t = 1.5)]
        sun_radius: f32,
        /// Multiplies the sun's radiance (900, 700, 450).
        #[arg(long, default_value_t = 1.0)]
        sun_strength: f32,
        /// The image to write (.exr or .hdr).
        #[arg(short, long)]
        output: PathBuf,
    },
}

fn main() -> anyhow::Result<()> {
    let (scene, output) = match Cli::parse().command {
        Command::Rtiow { csv, output } => (rtiow(&csv)?, output),
        Command::Grid { count, seed, ply: false, output } => (grid(count, seed)?, output),
        Command::Grid { count, seed, ply: true, output } => return grid_ply(count, seed, &output),
        Command::Terrain { size, seed, output } => return terrain(size, seed, &output),
        Command::Texture { width, output } => return texture(width, &output),
        Command::Forest { instances, subdivisions, seed, flatten, output } => {
            return forest(instances as usize, subdivisions, seed, flatten, &output);
        }
        Command::Mesh { subdivisions, radius, ascii, flat, output } => {
            return mesh(subdivisions, radius, ascii, flat, &output);
        }
        Command::Sky { width, sun_elevation, sun_azimuth, sun_radius, sun_strength, output } => {
            let defaults = procedural_sky::SkyParams::default();
            let params = procedural_sky::SkyParams {
                width,
                sun_elevation_deg: sun_elevation,
                sun_azimuth_deg: sun_azimuth,
                sun_radius_deg: sun_radius,
                sun_radiance: defaults.sun_radiance * sun_strength,
                ..defaults
            };
            let image = procedural_sky::sky(&params);
            procedural_sky::write(&image, &output).map_err(anyhow::Error::msg)?;
            println!("wrote {} ({} x {})", output.display(), image.width, image.height);
            return Ok(());
        }
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

/// Writes [`Command::Texture`]'s image: 8 x 4 cells.
fn texture(width: u32, output: &Path) -> anyhow::Result<()> {
    let height = width / 2;
    let (cell_w, cell_h) = (width / 8, height / 4);
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            let (cx, cy) = (x / cell_w, y / cell_h);
            let line = x % cell_w == 0 || y % cell_h == 0;
            let marker = cx == 0 && cy == 0 && (x % cell_w) < cell_w / 2 && (y % cell_h) < cell_h / 2;
            let colour = if line {
                [0, 0, 0]
            } else if marker {
                [255, 255, 255]
            } else {
                // Hue by column (six sectors over eight columns), brightness by row.
                let h = cx as f32 / 8.0 * 6.0;
                let f = h - h.floor();
                let (r, g, b) = match h as u32 {
                    0 => (1.0, f, 0.0),
                    1 => (1.0 - f, 1.0, 0.0),
                    2 => (0.0, 1.0, f),
                    3 => (0.0, 1.0 - f, 1.0),
                    4 => (f, 0.0, 1.0),
                    _ => (1.0, 0.0, 1.0 - f),
                };
                let level = 0.35 + 0.65 * (cy as f32 + 1.0) / 4.0;
                [r, g, b].map(|c| (255.0 * (0.15 + 0.85 * c) * level).round() as u8)
            };
            rgb.extend_from_slice(&colour);
        }
    }
    let mut bytes = Vec::new();
    PngEncoder::new_with_quality(&mut bytes, CompressionType::Best, FilterType::Adaptive)
        .write_image(&rgb, width, height, ExtendedColorType::Rgb8)
        .context("encoding the PNG")?;
    std::fs::write(output, &bytes).with_context(|| format!("writing {}", output.display()))?;
    println!("wrote {} ({width} x {height})", output.display());
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
                materials.push(Material::new(name, kind));
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
        settings: RenderSettings {
            width: 1280,
            height: 720,
            spp: 30,
            max_depth: 50,
            seed: 0,
            ..RenderSettings::DEFAULT
        },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        materials,
        spheres,
        ..Scene::default()
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
    let materials = palette.iter().map(|(n, k)| Material::new(*n, *k)).collect();
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
        settings: RenderSettings {
            width: 1280,
            height: 720,
            spp: 16,
            max_depth: 16,
            seed: seed as u32,
            ..RenderSettings::DEFAULT
        },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        materials,
        spheres,
        ..Scene::default()
    })
}

/// `scene-gen grid --ply`: the grid's spheres in a PLY point list next to `output`,
/// and a scene that names it with the grid's materials in their order (so each
/// sphere's `material` index is its material's index in the scene).
fn grid_ply(count: usize, seed: u64, output: &Path) -> anyhow::Result<()> {
    use scene_compiler::scene::{PlyEncoding, SphereList, SphereListData, write_sphere_file};
    let ply_path = beside(output, "ply")?;
    let mut scene = grid(count, seed)?;
    let spheres = std::mem::take(&mut scene.spheres);
    let bytes = write_sphere_file(&spheres, PlyEncoding::BinaryLittleEndian, true);
    std::fs::write(&ply_path, bytes).with_context(|| format!("writing {}", ply_path.display()))?;
    let file = ply_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    scene.sphere_files = vec![SphereList {
        file,
        materials: (0..scene.materials.len() as u32).collect(),
        transform: Default::default(),
        data: std::sync::Arc::new(SphereListData { path: ply_path.clone(), spheres, has_material: true }),
    }];
    std::fs::write(output, to_ron(&scene)).with_context(|| format!("writing {}", output.display()))?;
    println!(
        "wrote {} and {} ({count} spheres, {} materials)",
        output.display(),
        ply_path.display(),
        scene.materials.len()
    );
    Ok(())
}

/// `scene-gen forest`: the tree, the instance file and the scene that places one by
/// the other.
fn forest(count: usize, subdivisions: u32, seed: u64, flatten: bool, output: &Path) -> anyhow::Result<()> {
    use scene_compiler::procedural::{Format, icosphere, write};
    use scene_compiler::scene::{Mesh, PlacedInstance, PlyEncoding, Transform, write_instance_file};
    let tree_path = beside(output, "ply")?.with_file_name(format!("{}-tree.ply", stem(output)));
    let instances_path = tree_path.with_file_name(format!("{}-instances.ply", stem(output)));
    let tree = icosphere(subdivisions, 1.0);
    write(&tree, Format::PlyLittleEndian, &tree_path).map_err(anyhow::Error::msg)?;
    // One tree per 3x3 cell of a square grid, jittered inside it, standing on the ground.
    let side = (count as f64).sqrt().ceil() as usize;
    let extent = 3.0 * side as f32;
    let mut rng = Pcg32::new(seed);
    let placements: Vec<PlacedInstance> = (0..count)
        .map(|i| {
            let scale = rng.range(0.6, 1.3);
            let cell = Vec3::new((i % side) as f32, 0.0, (i / side) as f32) * 3.0;
            let jitter = Vec3::new(rng.range(-0.7, 0.7), 0.0, rng.range(-0.7, 0.7));
            PlacedInstance {
                transform: Transform {
                    translate: cell + jitter + Vec3::new(1.5 - 0.5 * extent, scale, 1.5 - 0.5 * extent),
                    rotate_deg: Vec3::new(0.0, rng.range(0.0, 360.0), 0.0),
                    scale: Vec3::splat(scale),
                },
                material: Some(1 + rng.next_u32() % 3),
            }
        })
        .collect();
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let meshes = if flatten {
        let placed = |p: &PlacedInstance| Mesh {
            file: name(&tree_path),
            material: p.material,
            transform: p.transform,
            ..Mesh::default()
        };
        placements.iter().map(placed).collect()
    } else {
        let bytes = write_instance_file(&placements, PlyEncoding::BinaryLittleEndian);
        std::fs::write(&instances_path, bytes)
            .with_context(|| format!("writing {}", instances_path.display()))?;
        vec![Mesh {
            file: name(&tree_path),
            material: Some(1),
            instance_file: Some(name(&instances_path)),
            ..Mesh::default()
        }]
    };
    let materials = vec![
        Material::new("ground", MaterialKind::Lambert { albedo: Vec3::new(0.45, 0.4, 0.3) }),
        Material::new("leaves", MaterialKind::Lambert { albedo: Vec3::new(0.2, 0.45, 0.15) }),
        Material::new("autumn", MaterialKind::Lambert { albedo: Vec3::new(0.7, 0.4, 0.1) }),
        Material::new("pine", MaterialKind::Lambert { albedo: Vec3::new(0.1, 0.3, 0.2) }),
    ];
    let half = 0.5 * extent + 2.0;
    // Above the trees at a corner of the forest, looking across it and a little down:
    // near trees large, the far ones down to the horizon.
    let look_from = Vec3::new(-0.5 * extent, 4.0, -0.5 * extent);
    let look_at = look_from + Vec3::new(1.0, -0.3, 1.0);
    let scene = Scene {
        camera: Camera {
            look_from,
            look_at,
            up: Vec3::Y,
            vfov_deg: 50.0,
            aperture: 0.0,
            focus_dist: (look_from - look_at).length(),
        },
        settings: RenderSettings {
            width: 1280,
            height: 720,
            spp: 30,
            max_depth: 16,
            seed: seed as u32,
            ..RenderSettings::DEFAULT
        },
        sky: Sky::Gradient { bottom: Vec3::ONE, top: Vec3::new(0.5, 0.7, 1.0) },
        materials,
        boxes: vec![scene_compiler::scene::Cuboid {
            min: Vec3::new(-half, -1.0, -half),
            max: Vec3::new(half, 0.0, half),
            material: 0,
        }],
        meshes,
        lights: vec![scene_compiler::scene::Light::Directional {
            direction: Vec3::new(-0.4, -1.0, -0.3),
            color: Vec3::new(1.0, 0.95, 0.85),
            intensity: 2.5,
            angular_radius_deg: 0.5,
        }],
        ..Scene::default()
    };
    let text = format!(
        "// A forest: `scene-gen forest --instances {count} --subdivisions {subdivisions} --seed {seed}` wrote\n\
         // this scene, its tree ({} triangles, stored once) and its {count} instances{}.\n{}",
        tree.triangles.len(),
        if flatten { ", each a mesh of its own (--flatten)" } else { "" },
        to_ron(&scene)
    );
    std::fs::write(output, text).with_context(|| format!("writing {}", output.display()))?;
    let written = if flatten { String::new() } else { format!(" and {}", instances_path.display()) };
    println!(
        "wrote {}, {}{written} ({count} trees of {} triangles: {} triangles placed)",
        output.display(),
        tree_path.display(),
        tree.triangles.len(),
        count as u64 * tree.triangles.len() as u64
    );
    Ok(())
}

/// The scene file's name without its extension.
fn stem(output: &Path) -> String {
    output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The file named after the scene `output` with `extension`, next to it; refuses an
/// output that is a folder or would be overwritten by that file.
fn beside(output: &Path, extension: &str) -> anyhow::Result<PathBuf> {
    if output.extension().is_some_and(|e| e.eq_ignore_ascii_case(extension)) {
        bail!(
            "{}: the output is the scene (`.ron`); its .{extension} is written next to it",
            output.display()
        );
    }
    if output.is_dir() {
        bail!(
            "{} is a folder; name the scene to write in it, e.g. {}",
            output.display(),
            output.join("scene.ron").display()
        );
    }
    if output.file_stem().is_none() {
        bail!("{}: name the scene file to write, e.g. scene.ron", output.display());
    }
    Ok(output.with_extension(extension))
}

/// Writes the city of `size` and `seed`: its PNG next to `output`, then the scene.
fn terrain(size: u32, seed: u64, output: &Path) -> anyhow::Result<()> {
    if output.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
        bail!("{}: the output is the scene (`.ron`); its PNG is written next to it", output.display());
    }
    if output.is_dir() {
        bail!(
            "{} is a folder; name the scene to write in it, e.g. {}",
            output.display(),
            output.join("city.ron").display()
        );
    }
    let Some(stem) = output.file_stem() else {
        bail!("{}: name the scene file to write, e.g. city.ron", output.display());
    };
    let image = format!("{}.png", stem.to_string_lossy());
    let png = output.with_file_name(&image);
    let values = city::heightmap(size, seed).map_err(|e| anyhow::anyhow!("--size {size}: {e}"))?;
    let mut bytes = Vec::new();
    PngEncoder::new_with_quality(&mut bytes, CompressionType::Best, FilterType::Adaptive)
        .write_image(&values, size, size, ExtendedColorType::L8)
        .context("encoding the heightmap")?;
    std::fs::write(&png, &bytes).with_context(|| format!("writing {}", png.display()))?;
    let scene = city::scene(size, &values, &image, png.clone());
    let text = format!(
        "// A procedural city: `scene-gen terrain --size {size} --seed {seed}` wrote this scene and\n\
         // its heightmap, {image} (1 streets, 2-3 parks, 4..=125 buildings).\n{}",
        to_ron(&scene)
    );
    std::fs::write(output, text).with_context(|| format!("writing {}", output.display()))?;
    let raised = city::raised(&values);
    let boxes = scene_compiler::terrain::columns(&scene.terrains[0]).len();
    println!("wrote {} and {} ({size} x {size}, seed {seed})", output.display(), png.display());
    println!("{raised} raised pixels, {boxes} boxes once merged");
    Ok(())
}

/// `scene-gen mesh`: an icosphere in the format the output's extension names.
fn mesh(subdivisions: u32, radius: f32, ascii: bool, flat: bool, output: &Path) -> anyhow::Result<()> {
    use scene_compiler::procedural::{Format, icosphere, write};
    anyhow::ensure!(radius.is_finite() && radius > 0.0, "--radius must be a positive number, not {radius}");
    let extension = output.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let format = match (extension.as_deref(), ascii) {
        (Some("obj"), _) => Format::Obj,
        (Some("ply"), true) => Format::PlyAscii,
        (Some("ply"), false) => Format::PlyLittleEndian,
        (Some("gltf"), _) => Format::Gltf,
        (Some("glb"), _) => Format::Glb,
        _ => anyhow::bail!(
            "{}: the model format follows the extension: .obj, .ply, .gltf or .glb",
            output.display()
        ),
    };
    let mut geometry = icosphere(subdivisions, radius);
    if flat {
        geometry.normals.clear();
    }
    write(&geometry, format, output).with_context(|| format!("writing {}", output.display()))?;
    println!(
        "wrote {} ({} triangles, {} vertices)",
        output.display(),
        geometry.triangles.len(),
        geometry.positions.len()
    );
    Ok(())
}
