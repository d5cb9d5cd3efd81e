//! Instances moved in a compiled scene in place: the edit that drags one tree of a
//! million (issue 35's save-to-frame). An edit whose only change is where some
//! instances of instanced meshes are placed keeps the world tree's shape, so instead of
//! lowering every placement, refitting every node and encoding the whole blob again
//! (hundreds of milliseconds at 10^6 instances), [`move_instances`] rewrites the moved
//! instances' records, refits the boxes on their paths to the root, and rewrites the
//! node records that hold those boxes, in the previous blob, keeping the byte ranges it
//! wrote ([`BlobEdit`]) for a device copy of the blob to take.
//!
//! The blob comes out byte for byte as [`compile_scene_reusing`]'s refit of the same edit
//! (the same tree: boxes are unions of exact minima and maxima, whatever the order they
//! are taken in), and its SAH cost within float rounding of what [`bvh::stats`] measures
//! of it. Every other edit, and one that would change more than moved instances' records
//! and their paths' boxes (the root's box or the margins it sets, a bottom level's
//! margin, a material), is left to [`compile_scene_reusing`]: [`move_instances`] then
//! changes nothing.
//!
//! [`compile_scene_reusing`]: crate::compile_scene_reusing

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use glam::Affine3A;
use rayon::prelude::*;

use crate::blob::layout::{InstanceRecord, NodeBoxesRecord, SectionId};
use crate::blob::patch::BlobPatch;
use crate::blob::{self, AlignedBytes, BlobEdit};
use crate::bvh::{self, Aabb, BottomTree, Bvh, BvhStats, NodeKind};
use crate::chunk_counts::{CHUNK, chunk_starts};
use crate::compile::REFIT_MAX_COST;
use crate::meshes;
use crate::scene::{Instance, Mesh, Scene};
use crate::shapes::{Shape, placed_bounds};

/// A compiled scene's parts an edit rewrites in place: what [`crate::Compiled`] holds,
/// borrowed mutably, with the scene it was compiled from.
pub struct InPlace<'a> {
    pub scene: &'a Scene,
    pub blob: &'a mut AlignedBytes,
    pub bvh: &'a mut Arc<Bvh>,
    pub bottom_trees: &'a [Arc<BottomTree>],
    pub bvh_stats: &'a mut BvhStats,
    /// [`crate::Compiled::built_sah_cost`]: what the refitted tree is held against.
    pub built_sah_cost: f32,
    /// [`crate::Compiled::level_reach`].
    pub level_reach: &'a [f32],
    /// Kept by the caller from one edit of this compile to the next (the tree's shape
    /// does not change); `None` at first, or after a compile that made a new tree.
    pub index: &'a mut Option<MoveIndex>,
}

/// Where each instance sits in the world tree and the blob, found once per tree (passes
/// over every node and instance, on every core: milliseconds at 10^6 instances, not to
/// be paid per edit).
#[derive(Debug)]
pub struct MoveIndex {
    /// Per tree node, its parent (`u32::MAX` for the root).
    parent: Vec<u32>,
    /// Per tree node, its index among the inner nodes (the blob's node records).
    inner: Vec<u32>,
    /// Per instance (in the lowered scene's order), the leaf that holds it.
    leaf_of: Vec<u32>,
    /// Per instance, its record's index in the instances section (leaf order).
    slot_of: Vec<u32>,
}

/// Most instances one in-place edit moves, as a share of them (at least
/// [`MOVED_AT_LEAST`]): past it, a whole refit costs about as much as the paths'.
const MOVED_SHARE: usize = 16;
const MOVED_AT_LEAST: usize = 64;

/// Moves the instances of `target` to where `scene` places them, in place, when `scene`
/// differs from `target.scene` only in where some placements of instanced meshes put
/// their instances (module docs); returns the blob ranges rewritten. `None` when it
/// does not apply: `target` is then unchanged. `scene` must be valid (parsed, or
/// checked) and `target` a compile of `target.scene` with its options.
pub fn move_instances(target: InPlace<'_>, scene: &Scene) -> Option<BlobEdit> {
    let before = target.scene;
    if before.meshes.len() != scene.meshes.len() || !same_but_meshes(before, scene) {
        return None;
    }
    let numbering = meshes::placed_instances(scene);
    let mut moved: Vec<Moved> = Vec::new();
    for ((old, new), &placed) in before.meshes.iter().zip(&scene.meshes).zip(&numbering.per_mesh) {
        if !same_but_placements(old, new) {
            return None;
        }
        let changed = changed_placements(old, new)?;
        if changed.is_empty() {
            continue;
        }
        let (level, first) = placed?;
        let (old_outer, new_outer) = (old.transform.matrix(), new.transform.matrix());
        moved.extend(changed.into_iter().map(|k| Moved {
            instance: first + k,
            level,
            from: old.placement_after(&old_outer, k).0,
            to: new.placement_after(&new_outer, k).0,
        }));
    }
    let instances = numbering.total;
    if moved.is_empty() || moved.len() > (instances / MOVED_SHARE).max(MOVED_AT_LEAST) {
        return None;
    }

    let index = match target.index {
        Some(index) => index,
        None => target.index.insert(MoveIndex::new(target.bvh, instances)?),
    };
    let tree: &Bvh = target.bvh;
    let root = tree.nodes.first()?.bounds;
    let reach = blob::world_reach(tree);
    let mut patch = BlobPatch::new(target.blob);

    // Every change worked out before anything is written, so that a refusal leaves the
    // compile as it was.
    let mut records: BTreeMap<u32, InstanceRecord> = BTreeMap::new();
    for m in &moved {
        let level_reach = *target.level_reach.get(m.level as usize)?;
        // A margin that would change rewrites every node of the level: not this edit.
        if blob::reach_through(&m.to, reach) > level_reach
            || blob::reach_through(&m.from, reach) >= level_reach
        {
            return None;
        }
        let level_box = target.bottom_trees.get(m.level as usize)?.bvh.nodes.first()?.bounds;
        let slot = *index.slot_of.get(m.instance)?;
        let old: InstanceRecord = patch.read(SectionId::Instances, slot as usize);
        let placed = Instance {
            to_world: m.to,
            bottom_level: m.level,
            material: None,
            bounds: placed_bounds(&level_box, &m.to),
        };
        records.insert(slot, InstanceRecord { root: old.root, ..placed.record() });
    }
    let record_box = |slot: u32| -> Aabb {
        let record =
            records.get(&slot).copied().unwrap_or_else(|| patch.read(SectionId::Instances, slot as usize));
        Instance::record_bounds(&record, &[])
    };
    let mut boxes: BTreeMap<u32, Aabb> = BTreeMap::new();
    for m in &moved {
        let leaf = index.leaf_of[m.instance];
        let NodeKind::Leaf { first, count } = tree.nodes[leaf as usize].kind else { return None };
        let first_slot = index.slot_of[instance_at(tree, index, first)?];
        let leaf_box = (first_slot..first_slot + count).fold(Aabb::EMPTY, |b, s| b.union(record_box(s)));
        boxes.insert(leaf, leaf_box);
    }
    // Each moved leaf's path, recomputed from its children up to the root. A node whose
    // other side lies on a path walked later is recomputed again then, after that side:
    // the last walk through any node sees every child final.
    let current =
        |boxes: &BTreeMap<u32, Aabb>, n: u32| boxes.get(&n).copied().unwrap_or(tree.nodes[n as usize].bounds);
    for m in &moved {
        let mut node = index.leaf_of[m.instance];
        while let Some(&parent) = index.parent.get(node as usize).filter(|&&p| p != u32::MAX) {
            let NodeKind::Inner { left, right } = tree.nodes[parent as usize].kind else { return None };
            let union = current(&boxes, left).union(current(&boxes, right));
            boxes.insert(parent, union);
            node = parent;
        }
    }
    boxes.retain(|&n, b| *b != tree.nodes[n as usize].bounds);
    if boxes.contains_key(&0) {
        return None;
    }
    let root_area = f64::from(root.surface_area());
    let sah_cost = if root_area > 0.0 {
        let weight = |n: u32| match tree.nodes[n as usize].kind {
            NodeKind::Inner { .. } => f64::from(bvh::C_TRAV),
            NodeKind::Leaf { count, .. } => f64::from(bvh::C_INT) * f64::from(count),
        };
        let change: f64 = boxes
            .iter()
            .map(|(&n, b)| {
                weight(n)
                    * (f64::from(b.surface_area()) - f64::from(tree.nodes[n as usize].bounds.surface_area()))
            })
            .sum();
        (f64::from(target.bvh_stats.sah_cost) + change / root_area) as f32
    } else {
        target.bvh_stats.sah_cost
    };
    if sah_cost > target.built_sah_cost * REFIT_MAX_COST {
        return None;
    }

    // Now written: the tree's boxes, the records, the node records that hold the boxes.
    let tree = Arc::make_mut(target.bvh);
    for (&n, &b) in &boxes {
        tree.nodes[n as usize].bounds = b;
    }
    for (&slot, record) in &records {
        patch.write(SectionId::Instances, slot as usize, record);
    }
    let parents: BTreeSet<u32> = boxes.keys().map(|&n| index.parent[n as usize]).collect();
    for p in parents {
        let NodeKind::Inner { left, right } = tree.nodes[p as usize].kind else { unreachable!("a parent") };
        let (l, r) = (&tree.nodes[left as usize].bounds, &tree.nodes[right as usize].bounds);
        let record: NodeBoxesRecord = blob::child_boxes(l, r, reach);
        patch.write(SectionId::NodeBoxes, index.inner[p as usize] as usize, &record);
    }
    target.bvh_stats.sah_cost = sah_cost;
    Some(patch.finish())
}

/// One moved instance: its index in the lowered scene, its bottom level, and its
/// placement before and after.
struct Moved {
    instance: usize,
    level: u32,
    from: Affine3A,
    to: Affine3A,
}

/// The instance at position `at` of the tree's leaf order, which must be an instance.
fn instance_at(tree: &Bvh, index: &MoveIndex, at: u32) -> Option<usize> {
    let prim = *tree.prim_order.get(at as usize)? as usize;
    prim.checked_sub(tree.prim_order.len() - index.slot_of.len())
}

impl MoveIndex {
    /// The index of `tree`, the world tree of a compile of a scene that lowers to
    /// `instances` instances ([`crate::meshes::placed_instances`]' total). `None` for a
    /// tree that is not one (an instance the tree does not hold). Built by the first
    /// move when not given; milliseconds at 10^6 instances, so a caller may build it
    /// ahead, while the first frame renders.
    pub fn new(tree: &Bvh, instances: usize) -> Option<MoveIndex> {
        // On every core: at 10^6 instances one core took 25-45 ms of the first move.
        let nodes = &tree.nodes;
        let parent = scattered(
            nodes.len(),
            nodes.par_iter().enumerate().flat_map_iter(|(i, node)| {
                let children = match node.kind {
                    NodeKind::Inner { left, right } => [Some(left), Some(right)],
                    NodeKind::Leaf { .. } => [None, None],
                };
                children.into_iter().flatten().map(move |child| (child as usize, i as u32))
            }),
        );
        let inner = bvh::inner_indices(tree);
        // The lowered scene's instances are numbered last among the primitives.
        let first = tree.prim_order.len().checked_sub(instances)?;
        let instance = move |prim: u32| (prim as usize).checked_sub(first);
        let leaf_of = scattered(
            instances,
            nodes.par_iter().enumerate().flat_map_iter(|(i, node)| {
                let prims = match node.kind {
                    NodeKind::Leaf { first: at, count } => {
                        &tree.prim_order[at as usize..(at + count) as usize]
                    }
                    NodeKind::Inner { .. } => &[],
                };
                prims.iter().filter_map(move |&prim| Some((instance(prim)?, i as u32)))
            }),
        );
        let slot_starts = chunk_starts(&tree.prim_order, |&prim| instance(prim).is_some());
        let slot_of = scattered(
            instances,
            tree.prim_order.par_chunks(CHUNK).zip(slot_starts).flat_map_iter(|(prims, start)| {
                let mine = prims.iter().filter_map(move |&prim| instance(prim));
                mine.enumerate().map(move |(k, g)| (g, start + k as u32))
            }),
        );
        if leaf_of.par_iter().chain(&slot_of).any(|&x| x == u32::MAX) {
            return None;
        }
        Some(MoveIndex { parent, inner, leaf_of, slot_of })
    }
}

/// `len` values, `u32::MAX` where `pairs` (index, value) store none, stored on every
/// core; no index may come twice.
fn scattered(len: usize, pairs: impl ParallelIterator<Item = (usize, u32)>) -> Vec<u32> {
    let slots: Vec<AtomicU32> = (0..len).into_par_iter().map(|_| AtomicU32::new(u32::MAX)).collect();
    pairs.for_each(|(at, value)| slots[at].store(value, Ordering::Relaxed));
    slots.into_par_iter().map(AtomicU32::into_inner).collect()
}

/// Which placements of a mesh moved between `old` and `new` (the same mesh but for its
/// placements, [`same_but_placements`]): their indices in [`Mesh::placements`]' order.
/// `None` when one changed its material (which this edit does not rewrite).
fn changed_placements(old: &Mesh, new: &Mesh) -> Option<Vec<usize>> {
    let mut changed: Vec<usize> =
        (0..old.instances.len()).filter(|&k| old.instances[k] != new.instances[k]).collect();
    if !Arc::ptr_eq(&old.placements, &new.placements) {
        let (a, b) = (&old.placements.instances, &new.placements.instances);
        let offset = old.instances.len();
        changed.par_extend((0..a.len()).into_par_iter().filter(|&k| a[k] != b[k]).map(|k| k + offset));
    }
    let material = |mesh: &Mesh, k: usize| match mesh.instances.get(k) {
        Some(p) => p.material,
        None => mesh.placements.instances[k - mesh.instances.len()].material,
    };
    changed.iter().all(|&k| material(old, k) == material(new, k)).then_some(changed)
}

/// The same mesh but for where its placements put their instances: the same model
/// (the same data, compared by pointer first), material, transform, and as many
/// placements from the same instance file.
fn same_but_placements(a: &Mesh, b: &Mesh) -> bool {
    // Every field named, so that a field added to `Mesh` is considered here.
    let Mesh { file, material, transform, instances, instance_file, data, placements } = a;
    *file == b.file
        && *material == b.material
        && *transform == b.transform
        && instances.len() == b.instances.len()
        && *instance_file == b.instance_file
        && (Arc::ptr_eq(data, &b.data) || **data == *b.data)
        && placements.path == b.placements.path
        && placements.instances.len() == b.placements.instances.len()
}

/// Declares [`same_but_meshes`] over every field of [`Scene`].
macro_rules! declare_same_but_meshes {
    (
        written { $($(#[$written_doc:meta])* $written:ident: $W:ty,)* }
        compiled { $($(#[$compiled_doc:meta])* $compiled:ident: $C:ty,)* }
    ) => {
        /// Whether two scenes are the same but for their meshes: every field named, so
        /// that a field or list added to [`Scene`] is considered here.
        fn same_but_meshes(a: &Scene, b: &Scene) -> bool {
            let Scene { camera, settings, sky, materials, $($written,)* $($compiled,)* vertices, lights } = a;
            *camera == b.camera
                && *settings == b.settings
                && *sky == b.sky
                && *materials == b.materials
                && *vertices == b.vertices
                && *lights == b.lights
                $(&& (stringify!($written) == "meshes" || *$written == b.$written))*
                $(&& *$compiled == b.$compiled)*
        }
    };
}

crate::scene_lists!(declare_same_but_meshes);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scattered_stores_each_pair_and_leaves_the_rest_unset() {
        let len = 2 * CHUNK + 7;
        let pairs =
            (0..len).into_par_iter().filter(|i| !i.is_multiple_of(5)).map(|i| (len - 1 - i, i as u32));
        let got = scattered(len, pairs);
        for (at, &value) in got.iter().enumerate() {
            let i = len - 1 - at;
            assert_eq!(value, if i.is_multiple_of(5) { u32::MAX } else { i as u32 }, "slot {at}");
        }
    }
}
