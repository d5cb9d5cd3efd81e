//! The pipeline from a validated [`Scene`] to blob bytes: build the BVH, optionally
//! reorder it, encode. Parsing is the caller's (it owns the file and its errors).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::blob::{self, AlignedBytes, NodeLayout, layout::FLAG_LAYOUT_VEB};
use crate::bvh::{self, BuildOptions, Bvh, BvhStats};
use crate::scene::Scene;
use crate::shapes;
use crate::terrain;

/// How to compile; the defaults match `scene-compiler build` without flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    pub layout: NodeLayout,
    pub bvh: BuildOptions,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { layout: NodeLayout::DepthFirst, bvh: BuildOptions::default() }
    }
}

/// A compiled scene and what it took.
#[derive(Debug)]
pub struct Compiled {
    pub blob: AlignedBytes,
    /// The BVH the blob was encoded from (node order as in the blob): what
    /// [`compile_scene_reusing`] takes back for the next compile of an edited scene.
    pub bvh: Arc<Bvh>,
    /// True when `bvh` came from the previous compile rather than a build.
    pub bvh_reused: bool,
    pub bvh_stats: BvhStats,
    /// Turning terrains into boxes (zero without terrains).
    pub terrain_time: Duration,
    /// Building the BVH (or checking that the previous one still fits).
    pub bvh_time: Duration,
    pub encode_time: Duration,
}

/// Turns terrains into boxes, builds the BVH over every primitive of the scene and
/// encodes the blob. Deterministic.
pub fn compile_scene(scene: &Scene, options: &CompileOptions) -> Compiled {
    compile_scene_reusing(scene, options, None)
}

/// An earlier compile, as [`compile_scene_reusing`] takes it back.
#[derive(Clone, Copy, Debug)]
pub struct Previous<'a> {
    pub scene: &'a Scene,
    pub bvh: &'a Arc<Bvh>,
    pub bvh_stats: &'a BvhStats,
}

/// [`compile_scene`], reusing `previous` (an earlier compile, made with the same
/// `options`) when this scene's primitives are the same: an edit of the camera,
/// the settings, the sky, lights or material parameters needs no new BVH, and the blob
/// comes out byte for byte as a fresh compile's (the build is deterministic).
pub fn compile_scene_reusing(
    scene: &Scene,
    options: &CompileOptions,
    previous: Option<Previous<'_>>,
) -> Compiled {
    let start = Instant::now();
    let expanded = terrain::with_columns(scene);
    let terrain_time = if scene.terrains.is_empty() { Duration::ZERO } else { start.elapsed() };
    let start = Instant::now();
    let reusable = previous.filter(|p| same_primitives(p.scene, scene));
    let scene = &*expanded;
    let flags = match options.layout {
        NodeLayout::DepthFirst => 0,
        NodeLayout::VanEmdeBoas => FLAG_LAYOUT_VEB,
    };
    let bvh_reused = reusable.is_some();
    let (tree, bvh_stats) = match reusable {
        Some(p) => (Arc::clone(p.bvh), p.bvh_stats.clone()),
        None => {
            let tree = bvh::build_kinds(&shapes::bounds(scene), &shapes::kind_starts(scene), &options.bvh);
            let tree = match options.layout {
                NodeLayout::DepthFirst => tree,
                NodeLayout::VanEmdeBoas => bvh::veb::reorder(&tree),
            };
            let stats = bvh::stats(&tree);
            (Arc::new(tree), stats)
        }
    };
    let bvh_time = start.elapsed();
    let start = Instant::now();
    let blob = blob::write(scene, &tree, flags);
    Compiled { blob, bvh: tree, bvh_reused, bvh_stats, terrain_time, bvh_time, encode_time: start.elapsed() }
}

/// Whether two scenes have the same primitives, in the same order, with the same
/// material indices: all a BVH depends on.
fn same_primitives(a: &Scene, b: &Scene) -> bool {
    a.spheres == b.spheres && a.boxes == b.boxes && a.terrains == b.terrains
}
