//! The pipeline from a validated [`Scene`] to blob bytes: build the BVH, optionally
//! reorder it, encode. Parsing is the caller's (it owns the file and its errors).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::blob::{self, AlignedBytes, BlobMemory, NodeLayout, layout::FLAG_LAYOUT_VEB};
use crate::bvh::{self, Aabb, BottomTree, BuildOptions, Bvh, BvhStats};
use crate::moves::{InPlace, MoveIndex};
use crate::scene::{BottomLevel, Material, Scene, Sky};
use crate::shapes::{self, Shape};
use crate::{meshes, sphere_files, terrain};

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
    /// One tree per bottom level (an instanced mesh), in the scene's order: what the
    /// next compile of an edited scene reuses for the meshes that came back unchanged.
    pub bottom_trees: Vec<Arc<BottomTree>>,
    /// How many of `bottom_trees` were built (the others came from the previous compile).
    pub bottom_built: usize,
    /// True when `bvh` came from the previous compile rather than a build.
    pub bvh_reused: bool,
    /// True when `bvh` is the previous compile's tree refitted to moved primitives.
    pub bvh_refitted: bool,
    /// The SAH cost of the last full build this tree comes from (itself, unless reused
    /// or refitted): what a refit's cost is held against.
    pub built_sah_cost: f32,
    pub bvh_stats: BvhStats,
    /// Per terrain, the index of its first column among the compiled boxes (the list
    /// the blob's `prim_sources` index): which terrain a box comes from.
    pub terrain_starts: Vec<u32>,
    /// Per bottom level, the reach its node boxes' margins were grown for: what a later
    /// edit that moves instances in place must keep (`crate::moves`).
    pub level_reach: Vec<f32>,
    /// Turning terrains into boxes, meshes into triangles and sphere files into spheres
    /// (zero without any).
    pub terrain_time: Duration,
    /// Building the BVH (or checking that the previous one still fits).
    pub bvh_time: Duration,
    /// Encoding the blob (a fresh tree's stats are measured alongside, on another core).
    pub encode_time: Duration,
}

impl Compiled {
    /// This compile of `scene`, as the next compile of an edit of it takes it back.
    pub fn previous<'a>(&'a self, scene: &'a Scene) -> Previous<'a> {
        Previous {
            scene,
            blob: &self.blob,
            bvh: &self.bvh,
            bottom_trees: &self.bottom_trees,
            bvh_stats: &self.bvh_stats,
            built_sah_cost: self.built_sah_cost,
            level_reach: &self.level_reach,
        }
    }
}

impl Compiled {
    /// This compile of `scene`, as [`crate::moves::move_instances`] rewrites it in place;
    /// `index`: kept by the caller from one move of this compile to the next.
    pub fn in_place<'a>(&'a mut self, scene: &'a Scene, index: &'a mut Option<MoveIndex>) -> InPlace<'a> {
        InPlace {
            scene,
            blob: &mut self.blob,
            bvh: &mut self.bvh,
            bottom_trees: &self.bottom_trees,
            bvh_stats: &mut self.bvh_stats,
            built_sah_cost: self.built_sah_cost,
            level_reach: &self.level_reach,
            index,
        }
    }
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
    /// Its blob ([`Compiled::blob`]).
    pub blob: &'a AlignedBytes,
    pub bvh: &'a Arc<Bvh>,
    /// Its [`Compiled::bottom_trees`].
    pub bottom_trees: &'a [Arc<BottomTree>],
    pub bvh_stats: &'a BvhStats,
    /// [`Compiled::built_sah_cost`] of that compile.
    pub built_sah_cost: f32,
    /// Its [`Compiled::level_reach`].
    pub level_reach: &'a [f32],
}

/// How much worse (SAH cost) a refitted tree may be than the build it comes from
/// before a full build replaces it. A refit keeps the tree's shape, so moves that
/// scatter primitives make it worse with every edit; 25 % is where a rebuild of a
/// 1M-sphere scene (about 0.4 s on 2 cores) starts to pay for itself in render time.
pub const REFIT_MAX_COST: f32 = 1.25;

/// [`compile_scene`], reusing `previous` (an earlier compile, made with the same
/// `options`) when it can:
/// - the same primitives (an edit of the camera, the settings, the sky, lights or
///   material parameters): the previous BVH as it is, and the blob comes out byte for
///   byte as a fresh compile's (the build is deterministic). When the lights and what
///   every material emits are also unchanged, only the globals and material records
///   differ from the previous blob, and they are rewritten in a copy of it instead of
///   encoding the whole blob again;
/// - as many primitives of each kind, some moved or resized (a drag in the editor):
///   the previous tree refitted ([`bvh::refit`]), kept while its SAH cost stays within
///   [`REFIT_MAX_COST`] of the last full build's. The blob then differs from a fresh
///   compile's in its tree, not in what any ray hits.
pub fn compile_scene_reusing(
    scene: &Scene,
    options: &CompileOptions,
    previous: Option<Previous<'_>>,
) -> Compiled {
    let Ok(compiled) = compile_into(scene, options, previous, &mut blob::in_memory);
    compiled
}

/// [`compile_scene`] with the blob encoded into the bytes `memory` gives for its length
/// (`scene-compiler build`: a mapping of its output file), or `memory`'s error.
pub fn compile_scene_into<E: Send>(
    scene: &Scene,
    options: &CompileOptions,
    memory: BlobMemory<'_, E>,
) -> Result<Compiled, E> {
    compile_into(scene, options, None, memory)
}

fn compile_into<E: Send>(
    scene: &Scene,
    options: &CompileOptions,
    previous: Option<Previous<'_>>,
    memory: BlobMemory<'_, E>,
) -> Result<Compiled, E> {
    let start = Instant::now();
    let (with_columns, terrain_starts) = terrain::with_columns(scene);
    let with_triangles = match meshes::with_triangles(&with_columns) {
        Cow::Borrowed(_) => with_columns,
        Cow::Owned(scene) => Cow::Owned(scene),
    };
    let expanded = match sphere_files::with_spheres(&with_triangles) {
        Cow::Borrowed(_) => with_triangles,
        Cow::Owned(scene) => Cow::Owned(scene),
    };
    let lowered = !(scene.terrains.is_empty() && scene.meshes.is_empty() && scene.sphere_files.is_empty());
    let terrain_time = if lowered { start.elapsed() } else { Duration::ZERO };
    let start = Instant::now();
    let reusable = previous.filter(|p| same_primitives(p.scene, scene));
    let refittable = previous.filter(|p| same_primitive_counts(p.scene, scene));
    let scene = &*expanded;
    let flags = match options.layout {
        NodeLayout::DepthFirst => 0,
        NodeLayout::VanEmdeBoas => FLAG_LAYOUT_VEB,
    };
    let bvh_reused = reusable.is_some();
    let mut bvh_refitted = false;
    // A fresh build's stats are measured while the blob is encoded (both only read the
    // tree): at 1M primitives each is a few tens of milliseconds.
    let (tree, measured) = match reusable {
        Some(p) => (Arc::clone(p.bvh), Some((p.bvh_stats.clone(), p.built_sah_cost))),
        None => {
            let bounds = shapes::bounds(scene);
            let refitted = refittable.and_then(|p| {
                let tree = bvh::refit(p.bvh, &bounds);
                let stats = bvh::stats(&tree);
                (stats.sah_cost <= p.built_sah_cost * REFIT_MAX_COST)
                    .then(|| (Arc::new(tree), Some((stats, p.built_sah_cost))))
            });
            bvh_refitted = refitted.is_some();
            refitted.unwrap_or_else(|| {
                let alone_from = (bounds.len() - scene.instances.len()) as u32;
                let tree = bvh::build_kinds(&bounds, &shapes::kind_starts(scene), alone_from, &options.bvh);
                (Arc::new(in_layout(tree, options.layout)), None)
            })
        }
    };
    let previous_trees = previous.map_or(&[][..], |p| p.bottom_trees);
    let (bottom_trees, bottom_built) = bottom_trees(&scene.bottom_levels, previous_trees, options);
    let bvh_time = start.elapsed();
    let start = Instant::now();
    let mut encode = || match reusable {
        Some(p) if same_lights_and_emission(p.scene, scene) => {
            Ok((blob::rewrite_globals_and_materials(p.blob, scene), p.level_reach.to_vec()))
        }
        _ => {
            let bottom: Vec<&BottomTree> = bottom_trees.iter().map(|t| &**t).collect();
            blob::write_with_reach(scene, &tree, &bottom, flags, memory)
        }
    };
    let ((bvh_stats, built_sah_cost), encoded) = match measured {
        Some(measured) => (measured, encode()),
        None => rayon::join(
            || {
                let stats = bvh::stats(&tree);
                let cost = stats.sah_cost;
                (stats, cost)
            },
            encode,
        ),
    };
    let (blob, level_reach) = encoded?;
    Ok(Compiled {
        blob,
        bvh: tree,
        bottom_trees,
        bottom_built,
        bvh_reused,
        bvh_refitted,
        built_sah_cost,
        bvh_stats,
        terrain_starts,
        level_reach,
        terrain_time,
        bvh_time,
        encode_time: start.elapsed(),
    })
}

/// `tree` in the node order `layout` names (a fresh build is depth-first).
fn in_layout(tree: Bvh, layout: NodeLayout) -> Bvh {
    match layout {
        NodeLayout::DepthFirst => tree,
        NodeLayout::VanEmdeBoas => bvh::veb::reorder(&tree),
    }
}

/// A tree per bottom level: the previous compile's where it was built over the same
/// triangles and vertices (the same level first, then any, so a mesh that moved in the list is still
/// found), else a fresh build, levels in parallel. Also how many were built.
fn bottom_trees(
    levels: &[BottomLevel],
    previous: &[Arc<BottomTree>],
    options: &CompileOptions,
) -> (Vec<Arc<BottomTree>>, usize) {
    let same = |tree: &&Arc<BottomTree>, level: &BottomLevel| tree.level == *level;
    let trees: Vec<(Arc<BottomTree>, bool)> = levels
        .par_iter()
        .enumerate()
        .map(|(i, level)| {
            let reused = previous
                .get(i)
                .filter(|t| same(t, level))
                .or_else(|| previous.iter().find(|t| same(t, level)));
            match reused {
                Some(tree) => (Arc::clone(tree), false),
                None => {
                    let vertices = &level.vertices.records;
                    let bounds: Vec<Aabb> = level.triangles.iter().map(|t| t.bounds(vertices)).collect();
                    let bvh = in_layout(bvh::build(&bounds, &options.bvh), options.layout);
                    (Arc::new(BottomTree { level: level.clone(), bvh }), true)
                }
            }
        })
        .collect();
    let built = trees.iter().filter(|t| t.1).count();
    (trees.into_iter().map(|t| t.0).collect(), built)
}

/// Whether two scenes have the same primitives, in the same order, with the same
/// material indices: all a BVH depends on.
fn same_primitives(a: &Scene, b: &Scene) -> bool {
    shapes::same_prims(a, b)
        && a.terrains == b.terrains
        && a.meshes == b.meshes
        && a.sphere_files == b.sphere_files
}

/// Whether two scenes with the same primitives have the same light table and texture
/// sections: the same lights, every material emits the same and has the same texture
/// (its other parameters may differ), and the same environment image and strength (or
/// none in both: a rotation or a gradient is in the globals alone).
fn same_lights_and_emission(a: &Scene, b: &Scene) -> bool {
    let emission = |m: &Material| blob::material_emission(m.kind);
    let environment = |s: &Scene| match &s.sky {
        Sky::Environment(env) => Some((env.data.clone(), env.strength)),
        _ => None,
    };
    a.lights == b.lights
        && environment(a) == environment(b)
        && a.materials.len() == b.materials.len()
        && a.materials
            .iter()
            .zip(&b.materials)
            .all(|(x, y)| emission(x) == emission(y) && x.texture == y.texture && x.maps == y.maps)
}

/// Whether a BVH over `a`'s primitives can be refitted to `b`'s: as many of each kind
/// (terrains, which make a number of boxes, unchanged), so every leaf's primitive
/// indices still name a primitive of its kind.
fn same_primitive_counts(a: &Scene, b: &Scene) -> bool {
    shapes::same_counts(a, b) && a.terrains == b.terrains && same_mesh_files(a, b) && same_sphere_counts(a, b)
}

/// As many sphere files, each with as many spheres (transforms, materials and the
/// spheres themselves may differ): the spheres keep their numbering.
fn same_sphere_counts(a: &Scene, b: &Scene) -> bool {
    let counts = |s: &Scene| s.sphere_files.iter().map(|l| l.data.spheres.len()).collect::<Vec<_>>();
    counts(a) == counts(b)
}

/// As many meshes, each with the same file data (transforms may differ): their
/// triangles come in the same number and order, so a moved mesh can be refitted.
fn same_mesh_files(a: &Scene, b: &Scene) -> bool {
    let placements =
        |m: &crate::scene::Mesh| (m.is_instanced(), m.instances.len(), m.placements.instances.len());
    a.meshes.len() == b.meshes.len()
        && a.meshes.iter().zip(&b.meshes).all(|(x, y)| x.data == y.data && placements(x) == placements(y))
}
