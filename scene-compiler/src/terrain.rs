//! Terrains to boxes: the compile step that turns each heightmap into columns.
//!
//! Equal neighbouring columns merge into one box, greedily: from each uncovered pixel
//! (row by row) the run of equal values along +x, then as many following rows as hold
//! the same run. A merged box is exactly the union of its columns (same height, same
//! material, no empty space), so it never raises the SAH cost and always cuts the
//! primitive count; a voxel is never a box of its own. Height-0 pixels are empty.
//!
//! Box corners are computed from integer pixel indices (`origin + i * cell`), so two
//! columns that touch share the same float coordinate, and a one-column heightmap is
//! the box a user would write for it, bit for bit.

use std::borrow::Cow;

use glam::Vec3;
use rayon::prelude::*;

use crate::scene::{Cuboid, Heightmap, Scene, Terrain, TerrainSurface};

/// Rows of a heightmap merged by one task: merging never crosses a strip's edge, so
/// strips run on all cores. Tall enough that the seams cost a fraction of a percent.
const STRIP_ROWS: usize = 256;

/// `scene` with its terrains' columns appended to its boxes (the scene itself when it
/// has no terrains); the terrains stay, for what reads the scene back. Also, per
/// terrain, the index of its first column among those boxes.
pub fn with_columns(scene: &Scene) -> (Cow<'_, Scene>, Vec<u32>) {
    if scene.terrains.is_empty() {
        return (Cow::Borrowed(scene), Vec::new());
    }
    let mut expanded = scene.clone();
    let mut starts = Vec::with_capacity(scene.terrains.len());
    for terrain in &scene.terrains {
        // The format's limits keep a scene's boxes far below u32::MAX.
        starts.push(expanded.boxes.len() as u32);
        expanded.boxes.extend(columns(terrain));
    }
    (Cow::Owned(expanded), starts)
}

/// A terrain's boxes, merged (see the module docs), in row-major order of their first pixel.
pub fn columns(terrain: &Terrain) -> Vec<Cuboid> {
    let map = &*terrain.heights;
    let strips: Vec<usize> = (0..map.depth as usize).step_by(STRIP_ROWS).collect();
    let parts: Vec<Vec<Cuboid>> = strips
        .par_iter()
        .map(|&z0| {
            let z1 = (z0 + STRIP_ROWS).min(map.depth as usize);
            merge_strip(map, z0..z1, &|x0, x1, z0, z1, value| column(terrain, [x0, x1, z0, z1], value))
        })
        .collect();
    parts.concat()
}

/// The greedy merge of rows `rows` of `map`: `emit(x0, x1, z0, z1, value)` makes the box
/// of pixels `[x0, x1) x [z0, z1)`, all of `value`.
fn merge_strip(
    map: &Heightmap,
    rows: std::ops::Range<usize>,
    emit: &dyn Fn(usize, usize, usize, usize, u16) -> Cuboid,
) -> Vec<Cuboid> {
    let width = map.width as usize;
    let first = rows.start;
    let at = |x: usize, z: usize| map.values[z * width + x];
    // Pixels of later rows already inside a box.
    let mut covered = vec![false; width * rows.len()];
    let mut out = Vec::new();
    for z in rows.clone() {
        let mut x = 0;
        while x < width {
            let value = at(x, z);
            if value == 0 || covered[(z - first) * width + x] {
                x += 1;
                continue;
            }
            let mut x1 = x + 1;
            while x1 < width && at(x1, z) == value && !covered[(z - first) * width + x1] {
                x1 += 1;
            }
            let mut z1 = z + 1;
            while z1 < rows.end
                && (x..x1).all(|xx| at(xx, z1) == value && !covered[(z1 - first) * width + xx])
            {
                covered[(z1 - first) * width + x..(z1 - first) * width + x1].fill(true);
                z1 += 1;
            }
            out.push(emit(x, x1, z, z1, value));
            x = x1;
        }
    }
    out
}

/// The box over pixels `[x0, x1) x [z0, z1)` of height `value`.
fn column(terrain: &Terrain, [x0, x1, z0, z1]: [usize; 4], value: u16) -> Cuboid {
    let o = terrain.origin;
    let along = |i: usize| i as f32 * terrain.cell;
    let height = f32::from(value) * terrain.height_scale;
    Cuboid {
        min: Vec3::new(o.x + along(x0), o.y, o.z + along(z0)),
        max: Vec3::new(o.x + along(x1), o.y + height, o.z + along(z1)),
        material: material_at(&terrain.surface, height),
    }
}

/// The material of a column `height` tall.
pub fn material_at(surface: &TerrainSurface, height: f32) -> u32 {
    match surface {
        TerrainSurface::Material(m) => *m,
        TerrainSurface::Palette(bands) => {
            let above = bands.partition_point(|band| band.from <= height);
            bands[above.saturating_sub(1)].material
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::scene::Band;

    fn terrain(width: u32, depth: u32, values: Vec<u16>, surface: TerrainSurface) -> Terrain {
        let heights = Arc::new(Heightmap { path: PathBuf::from("t.png"), width, depth, values });
        Terrain { image: "t.png".into(), heights, origin: Vec3::ZERO, cell: 1.0, height_scale: 1.0, surface }
    }

    /// Every pixel is inside exactly one box of its own height, and no box covers a 0.
    fn assert_exact_cover(t: &Terrain, boxes: &[Cuboid]) {
        let map = &t.heights;
        for z in 0..map.depth {
            for x in 0..map.width {
                let centre = Vec3::new(x as f32 + 0.5, 0.0, z as f32 + 0.5);
                let holding: Vec<&Cuboid> = boxes
                    .iter()
                    .filter(|b| {
                        b.min.x <= centre.x && centre.x < b.max.x && b.min.z <= centre.z && centre.z < b.max.z
                    })
                    .collect();
                let value = map.value(x, z);
                if value == 0 {
                    assert!(holding.is_empty(), "pixel ({x}, {z}) is empty but covered");
                } else {
                    assert_eq!(holding.len(), 1, "pixel ({x}, {z})");
                    assert_eq!(holding[0].max.y, f32::from(value), "pixel ({x}, {z})");
                }
            }
        }
    }

    #[test]
    fn a_flat_block_is_one_box_and_distinct_columns_stay_apart() {
        let flat = terrain(4, 3, vec![7; 12], TerrainSurface::Material(0));
        let boxes = columns(&flat);
        assert_eq!(boxes.len(), 1);
        assert_eq!((boxes[0].min, boxes[0].max), (Vec3::ZERO, Vec3::new(4.0, 7.0, 3.0)));
        let stairs = terrain(3, 1, vec![1, 2, 3], TerrainSurface::Material(0));
        assert_eq!(columns(&stairs).len(), 3);
    }

    #[test]
    fn merging_covers_every_pixel_exactly_once() {
        // An L of 5s around a 2, a hole, and a run that breaks a rectangle.
        #[rustfmt::skip]
        let values = vec![
            5, 5, 5, 0,
            5, 2, 5, 5,
            5, 5, 5, 5,
            0, 3, 3, 5,
        ];
        let t = terrain(4, 4, values, TerrainSurface::Material(0));
        let boxes = columns(&t);
        assert_exact_cover(&t, &boxes);
        assert!(boxes.len() < 14, "{} boxes for 14 raised pixels", boxes.len());
    }

    #[test]
    fn strips_split_merges_but_keep_the_cover() {
        let depth = STRIP_ROWS as u32 + 3;
        let t = terrain(2, depth, vec![4; 2 * depth as usize], TerrainSurface::Material(0));
        let boxes = columns(&t);
        assert_eq!(boxes.len(), 2, "one box per strip");
        assert_exact_cover(&t, &boxes);
    }

    #[test]
    fn palette_bands_pick_by_height() {
        let bands = vec![Band { from: 2.0, material: 1 }, Band { from: 5.0, material: 2 }];
        let palette = TerrainSurface::Palette(bands);
        assert_eq!([1.0, 2.0, 4.9, 5.0, 99.0].map(|h| material_at(&palette, h)), [1, 1, 1, 2, 2]);
    }
}
