//! The pipeline from a validated [`Scene`] to blob bytes: build the BVH, optionally
//! reorder it, encode. Parsing is the caller's (it owns the file and its errors).

use std::time::{Duration, Instant};

use crate::blob::{self, AlignedBytes, NodeLayout, layout::FLAG_LAYOUT_VEB};
use crate::bvh::{self, BuildOptions, BvhStats};
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
    pub bvh_stats: BvhStats,
    /// Turning terrains into boxes (zero without terrains).
    pub terrain_time: Duration,
    pub bvh_time: Duration,
    pub encode_time: Duration,
}

/// Turns terrains into boxes, builds the BVH over every primitive of the scene and
/// encodes the blob. Deterministic.
pub fn compile_scene(scene: &Scene, options: &CompileOptions) -> Compiled {
    let start = Instant::now();
    let scene = &*terrain::with_columns(scene);
    let terrain_time = start.elapsed();
    let start = Instant::now();
    let mut tree = bvh::build_kinds(&shapes::bounds(scene), &shapes::kind_starts(scene), &options.bvh);
    let flags = match options.layout {
        NodeLayout::DepthFirst => 0,
        NodeLayout::VanEmdeBoas => {
            tree = bvh::veb::reorder(&tree);
            FLAG_LAYOUT_VEB
        }
    };
    let bvh_stats = bvh::stats(&tree);
    let bvh_time = start.elapsed();
    let start = Instant::now();
    let blob = blob::write(scene, &tree, flags);
    Compiled { blob, bvh_stats, terrain_time, bvh_time, encode_time: start.elapsed() }
}
