//! Block means of linear images, as the reference numbers of other renderers are kept
//! (assets/references/README.md: `bx,by,r,g,b` lines, `by = 0` the top row): their
//! CSV reader, luminance, the reference scenes' loader, and CPU renders of a scene as
//! block means with their standard errors, of the whole image or of one block alone.
//!
//! Not here: the tolerances and which blocks to compare (`cpu/references.rs`,
//! `cpu/principled.rs`).

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use renderer::backend::{Backend, RenderJob};
use renderer::camera::CameraFrame;
use scene_compiler::scene::RenderSettings;
use scene_compiler::{AlignedBytes, BlobView, Scene};

use super::{compile, cpu_backend};

/// Means of linear radiance over equal rectangles of an image, `by = 0` the top row.
#[derive(Clone, Debug, PartialEq)]
pub struct Blocks {
    pub columns: usize,
    pub rows: usize,
    /// `by * columns + bx`.
    pub means: Vec<[f64; 3]>,
}

impl Blocks {
    /// The means of `image` (`width` x `height`, row 0 the top) over a grid of
    /// `columns` x `rows` blocks, which must divide it evenly.
    pub fn of_image(image: &[[f32; 4]], width: u32, height: u32, columns: usize, rows: usize) -> Blocks {
        let (width, height) = (width as usize, height as usize);
        assert_eq!(image.len(), width * height, "image size");
        assert!(
            width.is_multiple_of(columns) && height.is_multiple_of(rows),
            "{width}x{height} into {columns}x{rows} blocks"
        );
        let (bw, bh) = (width / columns, height / rows);
        let mut means = vec![[0.0; 3]; columns * rows];
        for (i, p) in image.iter().enumerate() {
            let block = &mut means[(i / width / bh) * columns + (i % width) / bw];
            for c in 0..3 {
                block[c] += f64::from(p[c]);
            }
        }
        let n = (bw * bh) as f64;
        for m in &mut means {
            *m = m.map(|v| v / n);
        }
        Blocks { columns, rows, means }
    }

    /// A reference CSV: a `#` comment line, the header `bx,by,r,g,b`, one line per block.
    pub fn read_csv(path: &Path) -> Blocks {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut lines = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
        assert_eq!(lines.next(), Some("bx,by,r,g,b"), "{}: header", path.display());
        let rows: Vec<(usize, usize, [f64; 3])> = lines
            .map(|line| {
                let parsed = || -> Option<(usize, usize, [f64; 3])> {
                    let f: Vec<&str> = line.split(',').map(str::trim).collect();
                    let value = |i: usize| f.get(i)?.parse::<f64>().ok();
                    if f.len() != 5 {
                        return None;
                    }
                    Some((f[0].parse().ok()?, f[1].parse().ok()?, [value(2)?, value(3)?, value(4)?]))
                };
                parsed().unwrap_or_else(|| panic!("{}: `{line}` is not `bx,by,r,g,b`", path.display()))
            })
            .collect();
        let columns = rows.iter().map(|r| r.0 + 1).max().expect("at least one block");
        let height = rows.iter().map(|r| r.1 + 1).max().expect("at least one block");
        assert_eq!(rows.len(), columns * height, "{}: every block once", path.display());
        let mut means = vec![[f64::NAN; 3]; columns * height];
        for (bx, by, rgb) in rows {
            means[by * columns + bx] = rgb;
        }
        assert!(means.iter().all(|m| !m[0].is_nan()), "{}: every block once", path.display());
        Blocks { columns, rows: height, means }
    }

    /// Block `(bx, by)`'s mean.
    pub fn at(&self, bx: usize, by: usize) -> [f64; 3] {
        assert!(bx < self.columns && by < self.rows, "block ({bx}, {by}) of {}x{}", self.columns, self.rows);
        self.means[by * self.columns + bx]
    }
}

/// Rec. 709 luminance of linear RGB (what `tools/references/blender_pbr.py --compare`
/// reports).
pub fn luminance([r, g, b]: [f64; 3]) -> f64 {
    0.2126 * r + 0.7152 * g + 0.0722 * b
}

/// A pixel's colour, without its alpha.
fn rgb(p: [f32; 4]) -> [f64; 3] {
    [p[0], p[1], p[2]].map(f64::from)
}

/// A path from the repository root.
pub fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
}

/// The scene file at `relative` (from the repository root), loaded as the CLI loads it.
pub fn load_scene(relative: &str) -> Scene {
    let path = repo_path(relative);
    scene_compiler::scene::load_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Renders of one scene on the CPU backend, at its own size and depth, as block means
/// with the standard errors of their luminance: each render is [`CHUNKS`] equal
/// chunks of consecutive samples, each on a fresh film, whose spread per pixel gives
/// the error.
pub struct BlockRenderer {
    blob: AlignedBytes,
    settings: RenderSettings,
    camera: CameraFrame,
    columns: usize,
    rows: usize,
}

/// What a render sees and how its image is cut into blocks.
#[derive(Clone, Copy)]
struct View {
    width: u32,
    height: u32,
    camera: CameraFrame,
    columns: usize,
    rows: usize,
}

/// Chunks per render, for the standard errors.
const CHUNKS: u32 = 8;

/// Block means and the standard error of each block's luminance.
#[derive(Clone, Debug)]
pub struct Estimate {
    pub blocks: Blocks,
    /// `by * columns + bx`.
    pub luminance_se: Vec<f64>,
}

impl Estimate {
    /// Block `(bx, by)`'s luminance and its standard error.
    pub fn luminance(&self, bx: usize, by: usize) -> (f64, f64) {
        (luminance(self.blocks.at(bx, by)), self.luminance_se[by * self.blocks.columns + bx])
    }

    /// The luminance of blocks `bx` x `by` together (blocks are the same size) and its
    /// standard error.
    pub fn region(&self, bx: RangeInclusive<usize>, by: RangeInclusive<usize>) -> (f64, f64) {
        let blocks: Vec<(f64, f64)> =
            by.flat_map(|y| bx.clone().map(move |x| (x, y))).map(|(x, y)| self.luminance(x, y)).collect();
        let n = blocks.len() as f64;
        let variance: f64 = blocks.iter().map(|b| b.1 * b.1).sum();
        (blocks.iter().map(|b| b.0).sum::<f64>() / n, variance.sqrt() / n)
    }
}

impl BlockRenderer {
    /// `scene` compiled, its image cut into `columns` x `rows` blocks.
    pub fn new(scene: &Scene, columns: usize, rows: usize) -> BlockRenderer {
        let blob = compile(scene);
        let (width, height) = (scene.settings.width, scene.settings.height);
        assert!(
            (width as usize).is_multiple_of(columns) && (height as usize).is_multiple_of(rows),
            "{width}x{height} into {columns}x{rows} blocks"
        );
        let camera = CameraFrame::new(&BlobView::parse(&blob).expect("valid blob").camera(), width, height);
        BlockRenderer { blob, settings: scene.settings, camera, columns, rows }
    }

    /// The whole image at `spp` samples per pixel.
    pub fn frame(&self, spp: u32, seed: u32) -> Estimate {
        let (width, height) = (self.settings.width, self.settings.height);
        let view = View { width, height, camera: self.camera, columns: self.columns, rows: self.rows };
        self.estimate(&view, spp, seed)
    }

    /// Block `(bx, by)` alone at `spp` samples per pixel (pixels as large as the
    /// frame's): a camera frame that spans that block only, so its mean estimates the
    /// same as the frame's block.
    pub fn block(&self, (bx, by): (usize, usize), spp: u32, seed: u32) -> Estimate {
        let (columns, rows) = (self.columns as f32, self.rows as f32);
        let c = self.camera;
        // Image point (s, t), s right and t up in [0, 1], is lower_left + s h + t v.
        let (s0, t0) = (bx as f32 / columns, 1.0 - (by + 1) as f32 / rows);
        let camera = CameraFrame {
            lower_left: c.lower_left + s0 * c.horizontal + t0 * c.vertical,
            horizontal: c.horizontal / columns,
            vertical: c.vertical / rows,
            ..c
        };
        let width = self.settings.width / self.columns as u32;
        let height = self.settings.height / self.rows as u32;
        self.estimate(&View { width, height, camera, columns: 1, rows: 1 }, spp, seed)
    }

    /// `view` at `spp` samples per pixel, in [`CHUNKS`] chunks.
    fn estimate(&self, view: &View, spp: u32, seed: u32) -> Estimate {
        let View { width, height, camera, columns, rows } = *view;
        assert!(spp.is_multiple_of(CHUNKS), "{spp} spp in {CHUNKS} equal chunks");
        let mut backend = cpu_backend(&self.blob);
        let per_chunk = spp / CHUNKS;
        let chunks: Vec<Vec<[f32; 4]>> = (0..CHUNKS)
            .map(|i| {
                let job = RenderJob {
                    width,
                    height,
                    max_depth: self.settings.max_depth,
                    seed,
                    first_sample: i * per_chunk,
                    samples: per_chunk,
                    fresh_film: true,
                    camera,
                    nee: true,
                    aovs: false,
                    sampler: self.settings.sampler,
                };
                backend.render(&job).expect("CPU render");
                backend.read_linear().expect("CPU readback")
            })
            .collect();
        let pixels = (width * height) as usize;
        let mut mean = vec![[0.0f32; 4]; pixels];
        // Per block, the sum over its pixels of the variance of their luminance's mean.
        let mut variance = vec![0.0; columns * rows];
        let (bw, bh) = (width as usize / columns, height as usize / rows);
        let k = f64::from(CHUNKS);
        for p in 0..pixels {
            let lum: Vec<f64> = chunks.iter().map(|c| luminance(rgb(c[p]))).collect();
            let m = lum.iter().sum::<f64>() / k;
            let block = (p / width as usize / bh) * columns + (p % width as usize) / bw;
            variance[block] += lum.iter().map(|l| (l - m).powi(2)).sum::<f64>() / (k - 1.0) / k;
            for c in 0..3 {
                mean[p][c] = (chunks.iter().map(|ch| f64::from(ch[p][c])).sum::<f64>() / k) as f32;
            }
        }
        let n = (bw * bh) as f64;
        Estimate {
            blocks: Blocks::of_image(&mean, width, height, columns, rows),
            luminance_se: variance.iter().map(|v| v.sqrt() / n).collect(),
        }
    }
}
