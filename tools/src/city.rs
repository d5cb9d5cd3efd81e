//! A procedural city for `scene-gen terrain`: a heightmap of blocks of buildings
//! separated by streets, and the scene that renders it.
//!
//! Along each axis the map alternates streets (4–6 px) and blocks (24–40 px), a
//! Manhattan grid. A block is a park, or is cut (recursive splits along its longer
//! side) into lots 6–16 px across; a lot is a parking lot or a garden, or a building of
//! one height: mostly low-rise, mid-rise and towers more common towards a downtown near
//! the middle, towers with a narrower crown on top. Values: [`STREET`] (the pavement,
//! so the ground is closed), [`PARK`] (parks and gardens, [`TREE`] their trees) and
//! [`LOWEST_BUILDING`]`..=`[`TALLEST`]. Everything comes from one [`Pcg32`] stream, so a
//! map depends only on its size and seed.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use glam::Vec3;
use scene_compiler::limits;
use scene_compiler::scene::{
    Band, Camera, Cuboid, Heightmap, Light, Material, MaterialKind, RenderSettings, Scene, Sky, Terrain,
    TerrainSurface,
};

use crate::Pcg32;

/// Streets, squares and parking lots.
pub const STREET: u8 = 1;
/// Parks and gardens.
pub const PARK: u8 = 2;
/// Trees in parks.
pub const TREE: u8 = 3;
/// The lowest building.
pub const LOWEST_BUILDING: u8 = 4;
/// The lowest mid-rise building.
pub const MID_RISE: u8 = 15;
/// The lowest tower.
pub const TOWER: u8 = 45;
/// The tallest building (a tower's crown).
pub const TALLEST: u8 = 125;

const STREET_WIDTH: (u32, u32) = (4, 6);
const BLOCK_WIDTH: (u32, u32) = (24, 40);
/// A block cut short by the map's edge narrower than this is street instead.
const MIN_BLOCK: u32 = 8;
const MIN_LOT: u32 = 6;
const MAX_LOT: u32 = 16;

/// The largest map: a terrain image holds at most `limits::MAX_BOXES` pixels.
pub fn max_size() -> u32 {
    (limits::MAX_BOXES as f64).sqrt() as u32
}

/// A `size` x `size` city heightmap for `seed`, row by row (x along a row, z down the
/// rows). An error when `size` is 0 or above [`max_size`].
pub fn heightmap(size: u32, seed: u64) -> anyhow::Result<Vec<u8>> {
    if size == 0 {
        bail!("the size must be at least 1 pixel");
    }
    if size > max_size() {
        bail!(
            "a {size} x {size} map is too large: a terrain image holds at most {} pixels, {} x {} at most",
            limits::MAX_BOXES,
            max_size(),
            max_size()
        );
    }
    let mut rng = Pcg32::new(seed);
    let n = size as usize;
    let mut map = Map { size: n, values: vec![STREET; n * n] };
    let columns = blocks_along(size, &mut rng);
    let rows = blocks_along(size, &mut rng);
    // The downtown: near the middle, where the towers gather.
    let centre = [size as f32 * (0.5 + rng.range(-0.1, 0.1)), size as f32 * (0.5 + rng.range(-0.1, 0.1))];
    let spread = 0.28 * size as f32;
    let downtown = |r: &Rect| {
        let dx = (r.x0 + r.x1) as f32 * 0.5 - centre[0];
        let dz = (r.z0 + r.z1) as f32 * 0.5 - centre[1];
        (-(dx * dx + dz * dz) / (spread * spread)).exp()
    };
    for &(z0, z1) in &rows {
        for &(x0, x1) in &columns {
            let block = Rect { x0, x1, z0, z1 };
            if rng.next_f32() < 0.06 {
                park(&mut map, &block, &mut rng);
                continue;
            }
            let mut lots = Vec::new();
            split(block, &mut rng, &mut lots);
            for lot in lots {
                building(&mut map, &lot, downtown(&lot), &mut rng);
            }
        }
    }
    Ok(map.values)
}

/// Pixels above zero (every pixel of a city: the streets are raised too).
pub fn raised(values: &[u8]) -> usize {
    values.iter().filter(|&&v| v > 0).count()
}

struct Map {
    size: usize,
    values: Vec<u8>,
}

impl Map {
    fn fill(&mut self, r: &Rect, value: u8) {
        for z in r.z0..r.z1 {
            let row = z as usize * self.size;
            self.values[row + r.x0 as usize..row + r.x1 as usize].fill(value);
        }
    }
}

/// Pixels `[x0, x1) x [z0, z1)`.
#[derive(Clone, Copy)]
struct Rect {
    x0: u32,
    x1: u32,
    z0: u32,
    z1: u32,
}

impl Rect {
    fn width(&self) -> u32 {
        self.x1 - self.x0
    }
    fn depth(&self) -> u32 {
        self.z1 - self.z0
    }
    /// This rectangle less `by` on every side.
    fn inset(&self, by: u32) -> Rect {
        Rect { x0: self.x0 + by, x1: self.x1 - by, z0: self.z0 + by, z1: self.z1 - by }
    }
}

/// The blocks along one axis, `[start, end)` each; the gaps between them (and the
/// map's edges) are streets.
fn blocks_along(size: u32, rng: &mut Pcg32) -> Vec<(u32, u32)> {
    let mut blocks = Vec::new();
    let mut at = 0;
    loop {
        at += rng.between(STREET_WIDTH.0, STREET_WIDTH.1);
        if at >= size {
            return blocks;
        }
        let end = (at + rng.between(BLOCK_WIDTH.0, BLOCK_WIDTH.1)).min(size);
        if end - at >= MIN_BLOCK {
            blocks.push((at, end));
        }
        at = end;
    }
}

/// Cuts `r` into lots: along its longer side while that is too long for one lot, and
/// now and then when it could hold two.
fn split(r: Rect, rng: &mut Pcg32, lots: &mut Vec<Rect>) {
    let long = r.width().max(r.depth());
    if long < 2 * MIN_LOT || (long <= MAX_LOT && rng.next_f32() < 0.7) {
        lots.push(r);
        return;
    }
    let at = rng.between(MIN_LOT, long - MIN_LOT);
    let (a, b) = if r.width() >= r.depth() {
        (Rect { x1: r.x0 + at, ..r }, Rect { x0: r.x0 + at, ..r })
    } else {
        (Rect { z1: r.z0 + at, ..r }, Rect { z0: r.z0 + at, ..r })
    };
    split(a, rng, lots);
    split(b, rng, lots);
}

/// A park: lawn with trees scattered on it.
fn park(map: &mut Map, r: &Rect, rng: &mut Pcg32) {
    map.fill(r, PARK);
    let trees = r.width() * r.depth() / 40;
    for _ in 0..trees {
        let x = r.x0 + 1 + rng.between(0, r.width().saturating_sub(4));
        let z = r.z0 + 1 + rng.between(0, r.depth().saturating_sub(4));
        let tree = Rect { x0: x, x1: (x + 2).min(r.x1), z0: z, z1: (z + 2).min(r.z1) };
        map.fill(&tree, TREE);
    }
}

/// What stands on lot `r`, `downtown` (0..=1) near the city's centre: now and then
/// an open lot; else mostly low-rise, with mid-rise and towers (on lots wide enough)
/// more common downtown. Tall towers are rarer than short ones.
fn building(map: &mut Map, r: &Rect, downtown: f32, rng: &mut Pcg32) {
    if rng.next_f32() < 0.07 {
        let open = if rng.next_f32() < 0.5 { STREET } else { PARK };
        map.fill(r, open);
        return;
    }
    let kind = rng.next_f32();
    let narrow = r.width().min(r.depth());
    if narrow >= 8 && kind < 0.01 + 0.25 * downtown {
        // A tower with a narrower crown on top.
        let u = rng.next_f32();
        let height = TOWER + (u * u * 55.0) as u8;
        map.fill(r, height);
        let crown = (u32::from(height) + rng.between(6, 20)).min(u32::from(TALLEST)) as u8;
        map.fill(&r.inset((narrow / 4).max(2)), crown);
    } else if kind < 0.15 + 0.45 * downtown {
        map.fill(r, rng.between(u32::from(MID_RISE), u32::from(TOWER) - 1) as u8);
    } else {
        map.fill(r, rng.between(u32::from(LOWEST_BUILDING), u32::from(MID_RISE) - 1) as u8);
    }
}

/// The scene of a city heightmap: `image` is the name the RON gives the PNG (next to
/// it), `path` where it lies now. Centred on the origin, a palette by height, an
/// aerial camera that frames all of it at 1280 x 720, a gradient sky and a low sun.
pub fn scene(size: u32, values: &[u8], image: &str, path: PathBuf) -> Scene {
    let lambert = |r, g, b| MaterialKind::Lambert { albedo: Vec3::new(r, g, b) };
    let palette = [
        (0.0, "asphalt", lambert(0.22, 0.22, 0.23)),
        (f32::from(PARK), "park", lambert(0.25, 0.45, 0.18)),
        (f32::from(LOWEST_BUILDING), "brick", lambert(0.56, 0.38, 0.3)),
        (f32::from(MID_RISE), "concrete", lambert(0.72, 0.70, 0.66)),
        (f32::from(TOWER), "glass", MaterialKind::Metal { albedo: Vec3::new(0.55, 0.65, 0.75), fuzz: 0.05 }),
    ];
    let mut materials: Vec<Material> =
        palette.iter().map(|(_, name, kind)| Material::new(*name, *kind)).collect();
    const GROUND: u32 = 5;
    materials.push(Material::new("ground", lambert(0.36, 0.38, 0.3)));
    let bands = palette
        .iter()
        .enumerate()
        .map(|(i, (from, _, _))| Band { from: *from, material: i as u32 })
        .collect();
    let half = size as f32 * 0.5;
    let settings = RenderSettings {
        width: 1280,
        height: 720,
        spp: 30,
        max_depth: 50,
        seed: 0,
        ..RenderSettings::DEFAULT
    };
    Scene {
        camera: aerial_camera(size, values, &settings),
        settings,
        sky: Sky::Gradient { bottom: Vec3::new(0.62, 0.68, 0.75), top: Vec3::new(0.25, 0.4, 0.72) },
        materials,
        // Open country around the city, below its streets, out past the frame.
        boxes: vec![Cuboid {
            min: Vec3::new(-12.0 * half, -1.0, -12.0 * half),
            max: Vec3::new(12.0 * half, 0.0, 12.0 * half),
            material: GROUND,
        }],
        terrains: vec![Terrain {
            image: image.to_string(),
            heights: Arc::new(Heightmap {
                path,
                width: size,
                depth: size,
                values: values.iter().map(|&v| u16::from(v)).collect(),
            }),
            origin: Vec3::new(-half, 0.0, -half),
            cell: 1.0,
            height_scale: 1.0,
            surface: TerrainSurface::Palette(bands),
        }],
        lights: vec![Light::Directional {
            // The way the light travels: down, from 40 degrees above the horizon.
            direction: -sun_towards(),
            color: Vec3::new(1.0, 0.93, 0.82),
            intensity: 2.8,
            angular_radius_deg: 0.75,
        }],
        ..Scene::default()
    }
}

/// Unit vector towards the sun: 40 degrees up, over the camera's left shoulder (80
/// degrees left of it, seen from the city), so shadows fall away and to the right.
fn sun_towards() -> Vec3 {
    from_angles(-40.0, 40.0)
}

/// The unit vector at `azimuth_deg` (from +z towards +x) and `elevation_deg`.
fn from_angles(azimuth_deg: f32, elevation_deg: f32) -> Vec3 {
    let (a, e) = (azimuth_deg.to_radians(), elevation_deg.to_radians());
    Vec3::new(a.sin() * e.cos(), e.sin(), a.cos() * e.cos())
}

/// Looking at the centre from 40 degrees up, as close as frames every column of the
/// city (`values`, `size` x `size` pixels of one unit centred on the origin) with a
/// margin.
fn aerial_camera(size: u32, values: &[u8], settings: &RenderSettings) -> Camera {
    const VFOV_DEG: f32 = 40.0;
    const MARGIN: f32 = 0.95;
    let look_at = Vec3::ZERO;
    let back = from_angles(40.0, 35.0);
    let right = Vec3::Y.cross(back).normalize();
    let up = back.cross(right);
    let tan_v = (VFOV_DEG.to_radians() * 0.5).tan() * MARGIN;
    let tan_h = tan_v * settings.width as f32 / settings.height as f32;
    let half = size as f32 * 0.5;
    // The camera must stand this far back to see `p`.
    let distance_for = |p: Vec3| {
        let q = p - look_at;
        let ahead = q.dot(back);
        (ahead + q.dot(right).abs() / tan_h).max(ahead + q.dot(up).abs() / tan_v)
    };
    let mut distance: f32 = 1.0;
    for (i, &v) in values.iter().enumerate() {
        let (x, z) = ((i % size as usize) as f32 - half, (i / size as usize) as f32 - half);
        for corner in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
            let foot = Vec3::new(x + corner.0, 0.0, z + corner.1);
            distance = distance.max(distance_for(foot)).max(distance_for(foot + Vec3::Y * f32::from(v)));
        }
    }
    // Whole hundredths, so the RON reads well and the numbers do not hang on the last
    // bit of `sin` and `cos`.
    let round = |v: Vec3| (v * 100.0).round() / 100.0;
    let look_from = round(look_at + back * distance);
    Camera {
        look_from,
        look_at,
        up: Vec3::Y,
        vfov_deg: VFOV_DEG,
        aperture: 0.0,
        focus_dist: (look_from - look_at).length(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_from_one_pixel_up() {
        for size in [1, 2, 5, 9, 17, 64, 100] {
            let values = heightmap(size, 7).unwrap();
            assert_eq!(values.len(), (size * size) as usize);
            assert!(values.iter().all(|&v| (STREET..=TALLEST).contains(&v)), "size {size}");
        }
        assert_eq!(heightmap(1, 1).unwrap(), vec![STREET]);
    }

    #[test]
    fn sizes_out_of_range_are_errors() {
        assert!(heightmap(0, 1).unwrap_err().to_string().contains("at least 1"));
        let err = heightmap(max_size() + 1, 1).unwrap_err().to_string();
        assert!(err.contains("too large"), "{err}");
    }

    #[test]
    fn the_camera_sees_the_whole_city() {
        let values = heightmap(256, 1).unwrap();
        let scene = scene(256, &values, "c.png", PathBuf::from("c.png"));
        let c = scene.camera;
        let back = (c.look_from - c.look_at).normalize();
        let right = Vec3::Y.cross(back).normalize();
        let up = back.cross(right);
        let tan_v = (c.vfov_deg.to_radians() * 0.5).tan();
        let tan_h = tan_v * 1280.0 / 720.0;
        for x in [-128.0, 128.0] {
            for y in [0.0, f32::from(*values.iter().max().unwrap())] {
                for z in [-128.0, 128.0] {
                    let q = Vec3::new(x, y, z) - c.look_from;
                    let ahead = -q.dot(back);
                    assert!(ahead > 0.0);
                    assert!(q.dot(right).abs() / ahead < tan_h && q.dot(up).abs() / ahead < tan_v);
                }
            }
        }
    }
}
