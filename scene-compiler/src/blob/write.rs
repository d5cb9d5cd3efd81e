//! Scene + BVH -> blob bytes: the one place that encodes records.
//!
//! Each kind's records are stored in BVH leaf order, so a leaf's `[first, first +
//! count)` indexes its kind's section directly (no indirection on the GPU);
//! `prim_sources` keeps each stored primitive's index in the scene's list of its kind,
//! for picking and inspection. The BVH is built over every kind's primitives (numbered
//! kind after kind, `shapes::bounds`); a leaf holds one kind.
//!
//! Only inner nodes get records, numbered in the tree's node order (so depth-first
//! and vEB orders carry over); a leaf lives in its parent's link.
//!
//! Instanced meshes' bottom levels follow the world's: their triangles after the
//! world's triangles, each level's in its own tree's leaf order, and their inner nodes
//! after the world's, level after level; each instance record gets its level's root
//! link (docs/blob-format.md, "Instances").

use bytemuck::Pod;
use glam::Vec3;
use rayon::prelude::*;

use super::aligned::AlignedBytes;
use super::environment::{self, EnvTables};
use super::layout::*;
use super::lights::{self, Emitter};
use super::textures::{TextureTable, material_textures, noise_table};
use crate::bvh::{Aabb, BottomTree, Bvh, NodeKind};
use crate::scene::{Material, MaterialKind, Scene, Sky, Triangle, Vertices};
use crate::shapes::{self, Shape};
use crate::with_shape;

/// Encodes `scene` with its BVH (built over [`shapes::bounds`]) and one tree per bottom
/// level (`bottom[i]` over `scene.bottom_levels[i]`'s triangles) into one blob.
/// Deterministic: the same inputs give the same bytes.
///
/// Records are written in place into the output buffer (no per-section vectors to
/// copy from), and the spheres with their material ids are gathered in one pass:
/// at 1M spheres the gather's cache misses and the copies were most of the time.
pub fn write(scene: &Scene, bvh: &Bvh, bottom: &[&BottomTree], flags: u32) -> AlignedBytes {
    let Ok(written) = write_with_reach(scene, bvh, bottom, flags, &mut in_memory);
    written.0
}

/// Where a blob is encoded: given its length, zeroed bytes of that length (fresh
/// memory, or a mapping of the file it goes to), or why there are none.
pub type BlobMemory<'a, E> = &'a mut (dyn FnMut(usize) -> Result<AlignedBytes, E> + Send);

/// The [`BlobMemory`] of an encode in memory: fresh zeroed bytes, never an error.
pub(crate) fn in_memory(len: usize) -> Result<AlignedBytes, std::convert::Infallible> {
    Ok(AlignedBytes::zeroed(len))
}

/// [`write`] into the bytes `memory` gives, and per bottom level the reach its node
/// boxes' margins were grown for ([`instance_reach`]): what an edit that moves
/// instances in place must keep (`crate::moves`), found here at no cost instead of from
/// every placement again.
pub(crate) fn write_with_reach<E>(
    scene: &Scene,
    bvh: &Bvh,
    bottom: &[&BottomTree],
    flags: u32,
    memory: BlobMemory<'_, E>,
) -> Result<(AlignedBytes, Vec<f32>), E> {
    assert_eq!(bottom.len(), scene.bottom_levels.len(), "one tree per bottom level");
    let prims = Prims::new(scene, bvh);
    let links = InnerLinks::new(bvh);
    let world_vertices = &scene.vertices;
    let levels = Levels::new(
        bottom,
        prims.count(PrimKind::Triangle),
        world_vertices.records.len(),
        links.inner_count(),
    );
    // In f64: the bounds of a pathological scene span more than f32 can hold.
    let scene_radius = bvh
        .nodes
        .first()
        .map_or(0.0, |root| 0.5 * (root.bounds.max.as_dvec3() - root.bounds.min.as_dvec3()).length());
    let env = match &scene.sky {
        Sky::Environment(env) => Some(environment::build(env)),
        _ => None,
    };
    let light_table = lights::build(
        &scene.lights,
        env.as_ref().map(|e| e.luminance_integral),
        &prims.emitters(scene),
        scene_radius,
    );
    let textures = TextureTable::new(scene);
    let flag = |on: bool, bit: u32| if on { bit } else { 0 };
    // Which of normals and tangents some vertex or triangle has: on all cores, since a
    // flag none sets reads every one.
    let normals =
        levels.vertex_pools(world_vertices).any(|v| v.records.par_iter().any(|r| r.normal != NO_NORMAL));
    let uvs = levels.vertex_pools(world_vertices).any(|v| !v.uvs.is_empty());
    let tangents = scene.triangles.par_iter().any(|t| t.tangents.is_some())
        || levels.trees.iter().any(|t| t.level.triangles.par_iter().any(|t| t.tangents.is_some()));
    let mut prim_counts: [u32; PrimKind::SLOTS] = prims.sources.each_ref().map(|s| count(s.len()));
    prim_counts[PrimKind::Triangle as usize] += count(levels.triangle_count);
    let mut header = BlobHeader {
        magic: MAGIC,
        version: FORMAT_VERSION,
        flags: flags
            | flag(normals, FLAG_SHADING_NORMALS)
            | flag(uvs, FLAG_TRIANGLE_UVS)
            | flag(tangents, FLAG_TRIANGLE_TANGENTS)
            | flag(!light_table.prim_pdfs.is_empty(), FLAG_PRIM_LIGHTS)
            | flag(textures.has_noise, FLAG_NOISE),
        prim_counts,
        material_count: count(scene.materials.len()),
        light_count: count(light_table.records.len()),
        node_count: count(links.inner_count() + levels.inner_count),
        payload_crc32: 0, // `seal` sets it
        header_len: HEADER_LEN as u32,
        texture_count: count(textures.records.len()),
        total_len: 0,
        texel_count: count(textures.texels.len()),
        vertex_count: count(levels.vertex_count),
        reserved: [0; 2],
        env_size: env.as_ref().map_or([0; 4], |e| [e.width, e.height, 0, 0]),
        sections: [SectionEntry::default(); SECTION_COUNT],
    };
    let mut end = HEADER_LEN;
    for id in SectionId::ALL {
        let offset = end.next_multiple_of(SECTION_ALIGN);
        let len = header.section_records(id) as usize * id.record_size();
        header.sections[id as usize] = SectionEntry { offset: offset as u64, len: len as u64 };
        end = offset + len;
    }
    let total_len = end.next_multiple_of(SECTION_ALIGN);
    header.total_len = total_len as u64;

    // Zeroed, so the padding between sections is zero.
    let mut out = memory(total_len)?;
    assert_eq!(out.len(), total_len, "the blob's memory has its length");
    let buf = out.as_mut_slice();
    let mut sections = split_sections(&mut buf[HEADER_LEN..], &header.sections);
    let mut take = |id: SectionId| std::mem::take(&mut sections[id as usize]);

    records_mut::<GlobalsRecord>(take(SectionId::Globals))[0] =
        globals_record(scene, links.link(bvh, &prims, 0));
    write_materials(take(SectionId::Materials), scene);
    records_mut::<TextureRecord>(take(SectionId::Textures)).copy_from_slice(&textures.records);
    records_mut::<[f32; 4]>(take(SectionId::Texels)).copy_from_slice(&textures.texels);
    if textures.has_noise {
        records_mut::<NoiseRecord>(take(SectionId::Noise)).copy_from_slice(&noise_table());
    }
    let prim_materials = records_mut::<u32>(take(SectionId::PrimMaterials));
    let prim_sources = records_mut::<u32>(take(SectionId::PrimSources));
    let kind_first = header.kind_first();
    levels.write_vertices(
        world_vertices,
        records_mut::<VertexRecord>(take(SectionId::Vertices)),
        records_mut::<VertexUvRecord>(take(SectionId::VertexUvs)),
    );
    // Empty unless the header has its flag; the world's triangles first.
    let tangents = records_mut::<TriangleTangentsRecord>(take(SectionId::TriangleTangents));
    let world = prims.count(PrimKind::Triangle).min(tangents.len());
    let (tangents, level_tangents) = tangents.split_at_mut(world);
    let mut sections_of_kind: [&mut [u8]; PrimKind::SLOTS] = Default::default();
    for kind in PrimKind::ALL {
        let section = take(kind.section());
        let first = kind_first[kind as usize] as usize;
        let slots = first..first + prims.count(kind);
        let (materials, sources) = (&mut prim_materials[slots.clone()], &mut prim_sources[slots]);
        if kind == PrimKind::Triangle {
            let tangents = (&mut *tangents, world_vertices);
            prims.write_triangles(&scene.triangles, section, materials, sources, tangents);
        } else {
            with_shape!(kind, S => prims.write(S::of(scene), section, materials, sources));
        }
        sections_of_kind[kind as usize] = section;
    }
    let triangles = std::mem::take(&mut sections_of_kind[PrimKind::Triangle as usize]);
    let first_slot = kind_first[PrimKind::Triangle as usize] as usize + prims.count(PrimKind::Triangle);
    levels.write_triangles(triangles, &mut prim_materials[first_slot..], &mut prim_sources[first_slot..]);
    let roots = levels.roots();
    let instances = records_mut::<InstanceRecord>(sections_of_kind[PrimKind::Instance as usize]);
    for (record, &source) in instances.iter_mut().zip(&prims.sources[PrimKind::Instance as usize]) {
        record.root = roots[scene.instances[source as usize].bottom_level as usize];
    }
    levels.write_tangents(level_tangents);
    let reach = world_reach(bvh);
    let (node_boxes, node_links) = (
        records_mut::<NodeBoxesRecord>(take(SectionId::NodeBoxes)),
        records_mut::<NodeLinksRecord>(take(SectionId::NodeLinks)),
    );
    let (world_boxes, level_boxes) = node_boxes.split_at_mut(links.inner_count());
    let (world_links, level_links) = node_links.split_at_mut(links.inner_count());
    // On all cores: at 1M primitives the node records are most of the encode.
    let node_slots = world_boxes.par_iter_mut().zip(world_links.par_iter_mut());
    node_slots.zip(links.children.par_iter()).for_each(|((boxes, record), &(left, right))| {
        *boxes = child_boxes(&bvh.nodes[left as usize].bounds, &bvh.nodes[right as usize].bounds, reach);
        *record =
            NodeLinksRecord { left: links.link(bvh, &prims, left), right: links.link(bvh, &prims, right) };
    });
    let level_reach = instance_reach(scene, reach);
    levels.write_nodes(level_boxes, level_links, &level_reach);
    records_mut::<LightRecord>(take(SectionId::Lights)).copy_from_slice(&light_table.records);
    // Empty, as the flag says, when no primitive is a light.
    let prim_light_pdfs = records_mut::<f32>(take(SectionId::PrimLightPdfs));
    for &(slot, pdf) in &light_table.prim_pdfs {
        prim_light_pdfs[slot] = pdf;
    }
    if let Some(EnvTables { texels, sampling, .. }) = &env {
        records_mut::<EnvTexelRecord>(take(SectionId::EnvTexels)).copy_from_slice(texels);
        records_mut::<EnvAliasRecord>(take(SectionId::EnvSampling)).copy_from_slice(sampling);
    }

    seal(buf, header);
    Ok((out, level_reach))
}

/// `previous`, the blob of a scene with the same primitives, lights and emission as
/// `scene` (so the same BVH, light table and sections), with the globals (camera,
/// settings, sky) and material records of `scene`: byte for byte what [`write`] gives
/// for `scene` with that BVH, without encoding the primitives and nodes again (at 1M
/// spheres a copy of the blob instead of most of a 0.1 s encode).
pub fn rewrite_globals_and_materials(previous: &AlignedBytes, scene: &Scene) -> AlignedBytes {
    let mut out = AlignedBytes::copy_from(previous);
    let buf = out.as_mut_slice();
    let header: BlobHeader = bytemuck::pod_read_unaligned(&buf[..HEADER_LEN]);
    let section = |id: SectionId| {
        let entry = header.sections[id as usize];
        entry.offset as usize..(entry.offset + entry.len) as usize
    };
    let (globals, materials) = (section(SectionId::Globals), section(SectionId::Materials));
    let globals = &mut records_mut::<GlobalsRecord>(&mut buf[globals])[0];
    *globals = globals_record(scene, globals.seed_root[1]);
    assert_eq!(
        header.material_count as usize,
        scene.materials.len(),
        "the previous blob has as many materials"
    );
    write_materials(&mut buf[materials], scene);
    seal(buf, header);
    out
}

/// The material section's records, from `scene`'s materials.
fn write_materials(section: &mut [u8], scene: &Scene) {
    let records = records_mut::<MaterialRecord>(section).iter_mut();
    for ((record, m), textures) in records.zip(&scene.materials).zip(material_textures(scene)) {
        *record = MaterialRecord { textures, ..m.kind.record() };
    }
}

/// Writes `header` into the blob `buf`, with the CRC-32 of everything after it.
fn seal(buf: &mut [u8], mut header: BlobHeader) {
    header.payload_crc32 = super::crc32(&buf[HEADER_LEN..]);
    buf[..HEADER_LEN].copy_from_slice(bytemuck::bytes_of(&header));
}

/// Each tree node's place in the blob: inner nodes are numbered in tree order.
struct InnerLinks {
    /// Per tree node, its inner-node index (unused for leaves).
    index: Vec<u32>,
    /// Per inner node, in that order, its children's tree nodes: what its records hold.
    children: Vec<(u32, u32)>,
}

impl InnerLinks {
    fn new(bvh: &Bvh) -> InnerLinks {
        // In node order (rayon's collect keeps it), on all cores.
        let children = bvh
            .nodes
            .par_iter()
            .filter_map(|n| match n.kind {
                NodeKind::Inner { left, right } => Some((left, right)),
                NodeKind::Leaf { .. } => None,
            })
            .collect();
        InnerLinks { index: crate::bvh::inner_indices(bvh), children }
    }

    /// How many inner nodes (node records) the tree has.
    fn inner_count(&self) -> usize {
        self.children.len()
    }

    /// The link to tree node `node`: its inner index, or its leaf's primitives.
    fn link(&self, bvh: &Bvh, prims: &Prims, node: u32) -> u32 {
        match bvh.nodes[node as usize].kind {
            NodeKind::Inner { .. } => self.index[node as usize],
            NodeKind::Leaf { first, count } => prims.leaf_link(first, count),
        }
    }
}

/// Triangles per task when [`Prims::write_triangles`] gathers them on all cores.
const TRIANGLES_PER_TASK: usize = 1 << 12;

/// Leaf slots per task when [`Prims::new`] numbers them on all cores.
const SLOTS_PER_TASK: usize = 1 << 16;

/// Where each primitive of the tree's leaf order goes: its kind, and its index within
/// its kind's section (the kind's primitives keep leaf order).
struct Prims<'a> {
    /// The tree's leaf order (`Bvh::prim_order`): primitives numbered kind after kind.
    order: &'a [u32],
    /// Per kind, where its primitives start in that numbering.
    kind_first: [u32; PrimKind::SLOTS],
    /// Per leaf slot (index into `order`), its index within its kind.
    within: Vec<u32>,
    /// Per kind, in section order (leaf order), each primitive's index in the scene's
    /// list of that kind: what the kind's records are gathered from, and its part of
    /// `prim_sources`.
    sources: [Vec<u32>; PrimKind::SLOTS],
}

impl<'a> Prims<'a> {
    /// Numbers the slots on all cores (one core took 40 ms at 5M triangles): each task
    /// counts its slots' kinds, and the counts of the tasks before it say where its
    /// primitives go within each kind. The per-kind source lists then let each kind's
    /// records be gathered on all cores.
    fn new(scene: &Scene, bvh: &'a Bvh) -> Prims<'a> {
        let mut kind_first = [0u32; PrimKind::SLOTS];
        let mut totals = [0usize; PrimKind::SLOTS];
        let mut next = 0;
        for kind in PrimKind::ALL {
            kind_first[kind as usize] = count(next);
            totals[kind as usize] = shapes::count(scene, kind);
            next += totals[kind as usize];
        }
        let mut prims = Prims {
            order: &bvh.prim_order,
            kind_first,
            within: vec![0; bvh.prim_order.len()],
            sources: totals.map(|n| vec![0; n]),
        };
        let tasks: Vec<[usize; PrimKind::SLOTS]> = prims
            .order
            .par_chunks(SLOTS_PER_TASK)
            .map(|slots| {
                let mut n = [0; PrimKind::SLOTS];
                slots.iter().for_each(|&prim| n[prims.kind_of(prim) as usize] += 1);
                n
            })
            .collect();
        // Each task's part of each kind's sources, and its first index within each kind.
        let mut rest = prims.sources.each_mut().map(|s| s.as_mut_slice());
        let mut starts = [0u32; PrimKind::SLOTS];
        let mut parts = Vec::with_capacity(tasks.len());
        for n in &tasks {
            let part: [&mut [u32]; PrimKind::SLOTS] = std::array::from_fn(|k| {
                let (part, after) = std::mem::take(&mut rest[k]).split_at_mut(n[k]);
                rest[k] = after;
                part
            });
            parts.push((starts, part));
            for (start, &n) in starts.iter_mut().zip(n) {
                *start += count(n);
            }
        }
        let (order, kind_first) = (prims.order, prims.kind_first);
        let kind_of = |prim| prims_kind_of(&kind_first, prim);
        let tasks = prims.within.par_chunks_mut(SLOTS_PER_TASK).zip(order.par_chunks(SLOTS_PER_TASK));
        tasks.zip(parts).for_each(|((within, slots), (mut next, part))| {
            let mut at = [0; PrimKind::SLOTS];
            for (within, &prim) in within.iter_mut().zip(slots) {
                let k = kind_of(prim) as usize;
                *within = next[k];
                next[k] += 1;
                part[k][at[k]] = prim - kind_first[k];
                at[k] += 1;
            }
        });
        prims
    }

    /// The kind of primitive `prim` (in the numbering kind after kind).
    fn kind_of(&self, prim: u32) -> PrimKind {
        prims_kind_of(&self.kind_first, prim)
    }

    fn count(&self, kind: PrimKind) -> usize {
        self.sources[kind as usize].len()
    }

    /// The link to the leaf holding slots `first..first + count`, which hold one kind.
    fn leaf_link(&self, first: u32, count: u32) -> u32 {
        let slots = &self.order[first as usize..(first + count) as usize];
        let kind = self.kind_of(slots[0]);
        assert!(slots.iter().all(|&s| self.kind_of(s) == kind), "a BVH leaf mixes primitive kinds");
        leaf_link(kind, self.within[first as usize], count)
    }

    /// Fills one kind's record section and that kind's part of the per-primitive
    /// sections (`materials` and `sources`), from the scene's list of that kind, on all
    /// cores: the gather in leaf order misses the cache on nearly every primitive.
    fn write<S: Shape>(&self, list: &[S], records: &mut [u8], materials: &mut [u32], sources: &mut [u32])
    where
        S::Record: Send,
    {
        let records = records_mut::<S::Record>(records).par_iter_mut();
        let slots = records.zip(materials).zip(sources).zip(&self.sources[S::KIND as usize]);
        slots.for_each(|(((record, material), source), &from)| {
            let shape = &list[from as usize];
            *record = shape.record();
            *material = shape.material();
            *source = from;
        });
    }

    /// [`Prims::write`] of the world's triangles, with their tangents (the world's part
    /// of the section, empty unless the header has its flag, and the vertices they are
    /// made from) in the same pass: each triangle is read once, in leaf order, where
    /// nearly every read misses the cache (a pass per section took 0.25 s more at 5M
    /// triangles).
    fn write_triangles(
        &self,
        triangles: &[Triangle],
        records: &mut [u8],
        materials: &mut [u32],
        sources: &mut [u32],
        (tangents, vertices): (&mut [TriangleTangentsRecord], &Vertices),
    ) {
        let n = materials.len();
        let records = &mut records_mut::<TriangleRecord>(records)[..n];
        // A task's part of a section: `TRIANGLES_PER_TASK` records, or none without it.
        fn parts<R>(records: &mut [R], tasks: usize) -> Vec<&mut [R]> {
            match records.is_empty() {
                true => std::iter::repeat_with(|| &mut [][..]).take(tasks).collect(),
                false => records.chunks_mut(TRIANGLES_PER_TASK).collect(),
            }
        }
        let tangents = parts(tangents, n.div_ceil(TRIANGLES_PER_TASK));
        let per_task =
            records.par_chunks_mut(TRIANGLES_PER_TASK).zip(materials.par_chunks_mut(TRIANGLES_PER_TASK));
        let per_task = per_task.zip(sources.par_chunks_mut(TRIANGLES_PER_TASK));
        let from = self.sources[PrimKind::Triangle as usize].par_chunks(TRIANGLES_PER_TASK);
        let per_task = per_task.zip(from).zip(tangents);
        per_task.for_each(|((((records, materials), sources), from), tangents)| {
            for (i, &from) in from.iter().enumerate() {
                let t = &triangles[from as usize];
                records[i] = t.record();
                materials[i] = t.material;
                sources[i] = from;
                if let Some(tangent) = tangents.get_mut(i) {
                    *tangent = tangents_record(t, vertices);
                }
            }
        });
    }

    /// The emissive primitives, kind after kind, each kind in leaf order: the area lights.
    fn emitters(&self, scene: &Scene) -> Vec<Emitter> {
        let mut emitters = Vec::new();
        let emits = |m: &Material| material_emission(m.kind)[..3].iter().any(|&c| c > 0.0);
        if !scene.materials.iter().any(emits) {
            return emitters;
        }
        // Instances are not lights: their triangles emit where a ray meets them, and
        // next-event estimation does not sample them (docs/path-tracing.md, "Instances").
        for kind in PrimKind::ALL.into_iter().filter(|&k| k != PrimKind::Instance) {
            with_shape!(kind, S => self.emitters_of::<S>(scene, &mut emitters));
        }
        emitters
    }

    fn emitters_of<S: Shape>(&self, scene: &Scene, emitters: &mut Vec<Emitter>) {
        // Only the world's triangles can be lights, and they come first among the
        // triangles: the slots of a kind are counted as in `BlobHeader::kind_first`.
        let first = self.kind_first_slot(S::KIND);
        let list = S::of(scene);
        let emission = |shape: &S| material_emission(scene.materials[shape.material() as usize].kind);
        // Which shapes emit, read in the scene's order (front to back: in leaf order
        // nearly every read missed the cache, 0.3 s at 5M triangles), then picked out
        // in leaf order, `within` counting up.
        let emits: Vec<bool> = list.par_iter().map(|s| emission(s)[..3].iter().any(|&c| c > 0.0)).collect();
        let sources = self.sources[S::KIND as usize].par_iter().enumerate();
        let found: Vec<(usize, u32)> =
            sources.filter(|(_, s)| emits[**s as usize]).map(|(w, &s)| (w, s)).collect();
        for (within, source) in found {
            let shape = &list[source as usize];
            let [r, g, b, _] = emission(shape);
            emitters.push(Emitter {
                prim: prim_ref(S::KIND, count(within)),
                slot: first + within,
                area: S::surface_area(&shape.record(), &scene.vertices.records),
                emission: Vec3::new(r, g, b),
            });
        }
    }

    /// Where `kind`'s primitives start in the per-primitive sections.
    fn kind_first_slot(&self, kind: PrimKind) -> usize {
        PrimKind::ALL.into_iter().take_while(|&k| k != kind).map(|k| self.count(k)).sum()
    }
}

/// The kind of primitive `prim`, numbered kind after kind from `kind_first`: the last
/// kind whose numbering starts at or before it (an empty kind starts where the next does).
fn prims_kind_of(kind_first: &[u32; PrimKind::SLOTS], prim: u32) -> PrimKind {
    PrimKind::ALL
        .into_iter()
        .rev()
        .find(|&k| kind_first[k as usize] <= prim)
        .expect("the first kind starts at 0")
}

/// A triangle's vertex tangents ([`FLAG_TRIANGLE_TANGENTS`]); a triangle without them
/// (its material has no normal map, or its mesh neither tangents nor texture
/// coordinates) gets the tangent its texture coordinates give it as a whole, thrice:
/// the frame the renderers make of them without the section.
fn tangents_record(t: &Triangle, vertices: &Vertices) -> TriangleTangentsRecord {
    let [t0, t1, t2] = match &t.tangents {
        Some(tangents) => **tangents,
        None => [crate::tangents::face_tangent(vertices.corners(t), vertices.triangle_uvs(t)); 3],
    }
    .map(|t| t.to_array());
    TriangleTangentsRecord { t0, t1, t2 }
}

/// Where the bottom levels go: each level's triangles and inner nodes follow those
/// before it, after the world's.
struct Levels<'a> {
    trees: &'a [&'a BottomTree],
    /// Per level, the index of its first triangle in the triangles section.
    first_triangle: Vec<u32>,
    /// Per level, the index of its first vertex in the vertices section.
    first_vertex: Vec<u32>,
    /// Per level, the index of its first inner node in the node sections.
    first_node: Vec<u32>,
    /// Per level and per tree node, its inner-node index within the level.
    inner: Vec<InnerLinks>,
    triangle_count: usize,
    /// The world's vertices and every level's.
    vertex_count: usize,
    inner_count: usize,
}

impl<'a> Levels<'a> {
    fn new(
        trees: &'a [&'a BottomTree],
        world_triangles: usize,
        world_vertices: usize,
        world_inner: usize,
    ) -> Levels<'a> {
        let inner: Vec<InnerLinks> = trees.iter().map(|t| InnerLinks::new(&t.bvh)).collect();
        let (mut first_triangle, mut first_vertex, mut first_node) = (Vec::new(), Vec::new(), Vec::new());
        let (mut triangles, mut vertices, mut nodes) = (world_triangles, world_vertices, world_inner);
        for (tree, inner) in trees.iter().zip(&inner) {
            first_triangle.push(count(triangles));
            first_vertex.push(count(vertices));
            first_node.push(count(nodes));
            triangles += tree.level.triangles.len();
            vertices += tree.level.vertices.records.len();
            nodes += inner.inner_count();
        }
        Levels {
            trees,
            first_triangle,
            first_vertex,
            first_node,
            inner,
            triangle_count: triangles - world_triangles,
            vertex_count: vertices,
            inner_count: nodes - world_inner,
        }
    }

    /// The world's vertices, then each level's: the vertices section's order.
    fn vertex_pools<'b>(&'b self, world: &'b Vertices) -> impl Iterator<Item = &'b Vertices> {
        std::iter::once(world).chain(self.trees.iter().map(|t| &*t.level.vertices))
    }

    /// [`Levels::vertex_pools`] into `records` and `uvs` (empty unless the header has
    /// its flag; `VertexUvRecord::NONE` for a pool without coordinates).
    fn write_vertices(&self, world: &Vertices, records: &mut [VertexRecord], uvs: &mut [VertexUvRecord]) {
        let mut at = 0;
        for pool in self.vertex_pools(world) {
            let n = pool.records.len();
            records[at..at + n].copy_from_slice(&pool.records);
            if !uvs.is_empty() {
                match pool.uvs.is_empty() {
                    true => uvs[at..at + n].fill(VertexUvRecord::NONE),
                    false => uvs[at..at + n].copy_from_slice(&pool.uvs),
                }
            }
            at += n;
        }
    }

    /// The link to node `node` of level `level`'s tree, in the blob's numbering.
    fn link(&self, level: usize, node: u32) -> u32 {
        let tree = &self.trees[level].bvh;
        match tree.nodes[node as usize].kind {
            NodeKind::Inner { .. } => self.first_node[level] + self.inner[level].index[node as usize],
            NodeKind::Leaf { first, count } => {
                leaf_link(PrimKind::Triangle, self.first_triangle[level] + first, count)
            }
        }
    }

    /// Each level's root link, by level.
    fn roots(&self) -> Vec<u32> {
        (0..self.trees.len()).map(|level| self.link(level, 0)).collect()
    }

    /// The levels' triangle records and their per-primitive entries, from the first
    /// level's first triangle on.
    fn write_triangles(&self, section: &mut [u8], materials: &mut [u32], sources: &mut [u32]) {
        let records = records_mut::<TriangleRecord>(section);
        let mut slot = 0;
        for (level, tree) in self.trees.iter().enumerate() {
            let first = self.first_triangle[level] as usize;
            for (k, &source) in tree.bvh.prim_order.iter().enumerate() {
                let triangle = &tree.level.triangles[source as usize];
                records[first + k] = TriangleRecord { v: triangle.v.map(|i| self.first_vertex[level] + i) };
                materials[slot] = triangle.material;
                // Numbered after the world's triangles, level after level, as the
                // levels' records are: a triangle's source is unique among all.
                sources[slot] = self.first_triangle[level] + source;
                slot += 1;
            }
        }
    }

    /// Each level's triangles' tangents into `records`, which starts at the first
    /// level's first triangle (nothing when it is empty: the header has no such section).
    fn write_tangents(&self, records: &mut [TriangleTangentsRecord]) {
        if records.is_empty() {
            return;
        }
        let mut at = 0;
        for tree in self.trees {
            for &source in &tree.bvh.prim_order {
                records[at] = tangents_record(&tree.level.triangles[source as usize], &tree.level.vertices);
                at += 1;
            }
        }
    }

    /// The levels' inner nodes: `boxes` and `links` start at the first level's first
    /// node. `reach[level]`: how far from its origin, in its own space, a ray's origin
    /// may lie (see [`instance_reach`]).
    fn write_nodes(&self, boxes: &mut [NodeBoxesRecord], links: &mut [NodeLinksRecord], reach: &[f32]) {
        let base = self.first_node.first().copied().unwrap_or(0);
        for (level, tree) in self.trees.iter().enumerate() {
            let bvh = &tree.bvh;
            let first = (self.first_node[level] - base) as usize;
            for (at, &(left, right)) in (first..).zip(&self.inner[level].children) {
                let (l, r) = (&bvh.nodes[left as usize].bounds, &bvh.nodes[right as usize].bounds);
                boxes[at] = child_boxes(l, r, reach[level]);
                links[at] = NodeLinksRecord { left: self.link(level, left), right: self.link(level, right) };
            }
        }
    }
}

/// Per bottom level, the reach [`box_margin`] takes in its own space: its own largest
/// coordinate, or the largest a ray origin within the world's `reach` lands on through
/// any of its instances' inverse maps, whichever is larger (a mesh scaled down a
/// thousand times sees the camera a thousand times farther away).
fn instance_reach(scene: &Scene, reach: f32) -> Vec<f32> {
    let mut out: Vec<f32> = scene.bottom_levels.iter().map(|level| level.vertices.reach()).collect();
    for instance in &scene.instances {
        let slot = &mut out[instance.bottom_level as usize];
        *slot = slot.max(reach_through(&instance.to_world, reach));
    }
    out
}

/// How far from its origin, in its own space, a ray origin within the world's `reach`
/// lands through the inverse of an instance's `to_world`: its part of
/// [`instance_reach`].
pub(crate) fn reach_through(to_world: &glam::Affine3A, reach: f32) -> f32 {
    let inverse = to_world.inverse();
    let m = inverse.matrix3;
    let row_sum = (0..3).map(|r| m.row(r).abs().element_sum()).fold(0.0, f32::max);
    reach * row_sum + inverse.translation.abs().max_element()
}

/// The world's reach [`box_margin`] takes: the largest coordinate magnitude of the
/// tree's root box (0 for an empty tree).
pub(crate) fn world_reach(bvh: &Bvh) -> f32 {
    bvh.nodes.first().map_or(0.0, |root| root.bounds.min.abs().max(root.bounds.max.abs()).max_element())
}

/// Both children's boxes, one row per axis (see [`NodeBoxesRecord`]), each grown by
/// [`box_margin`].
pub(crate) fn child_boxes(left: &Aabb, right: &Aabb, reach: f32) -> NodeBoxesRecord {
    let (lo, hi) = (|x: f32| x - box_margin(x, reach), |x: f32| x + box_margin(x, reach));
    let row = |a: usize| [lo(left.min[a]), lo(right.min[a]), hi(left.max[a]), hi(right.max[a])];
    NodeBoxesRecord { x: row(0), y: row(1), z: row(2) }
}

/// How far a node box's plane at `x` is moved out: 2^-21 of `|x|` plus the scene's
/// `reach` (its largest coordinate magnitude). The traversal's slab test computes a
/// plane's distance as `x / d - o / d` in f32, off by up to about 2^-23 (|x| + |o|)
/// along the axis; a ray through a vertex or an edge that two primitives share, on the
/// plane of their boxes, could miss both boxes by that much and slip through a closed
/// mesh. The margin covers that error four times over for ray origins within the
/// scene's reach (docs/path-tracing.md, "Robust hits").
fn box_margin(x: f32, reach: f32) -> f32 {
    (x.abs() + reach) * (1.0 / (1u32 << 21) as f32)
}

/// The sections of `payload` (the blob after its header) as laid out in `table`.
fn split_sections<'a>(
    mut payload: &'a mut [u8],
    table: &[SectionEntry; SECTION_COUNT],
) -> [&'a mut [u8]; SECTION_COUNT] {
    let mut sections: [&mut [u8]; SECTION_COUNT] = Default::default();
    let mut at = HEADER_LEN;
    for (section, entry) in sections.iter_mut().zip(table) {
        let (_padding, rest) = std::mem::take(&mut payload).split_at_mut(entry.offset as usize - at);
        let (bytes, rest) = rest.split_at_mut(entry.len as usize);
        *section = bytes;
        payload = rest;
        at = (entry.offset + entry.len) as usize;
    }
    sections
}

/// A section's bytes as its records. Sections start 16-byte aligned in a 16-aligned
/// buffer and hold whole records, so the cast cannot fail.
fn records_mut<T: Pod>(section: &mut [u8]) -> &mut [T] {
    bytemuck::cast_slice_mut(section)
}

/// Counts are validated against `scene::limits` long before this point.
fn count(n: usize) -> u32 {
    u32::try_from(n).expect("scene limits keep every count below 2^32")
}

fn lane(v: Vec3, w: f32) -> [f32; 4] {
    [v.x, v.y, v.z, w]
}

fn globals_record(scene: &Scene, root: u32) -> GlobalsRecord {
    let (c, s) = (&scene.camera, &scene.settings);
    let (bottom, top) = match scene.sky {
        Sky::Gradient { bottom, top } => (bottom, top),
        Sky::Constant(color) => (color, color),
        Sky::Environment(_) => (Vec3::ZERO, Vec3::ZERO),
    };
    let env_rotation = match &scene.sky {
        Sky::Environment(env) => {
            let (sin, cos) = f64::from(env.rotation_deg).to_radians().sin_cos();
            [cos as f32, sin as f32, 0.0, 0.0]
        }
        _ => [1.0, 0.0, 0.0, 0.0],
    };
    GlobalsRecord {
        camera_from_vfov: lane(c.look_from, c.vfov_deg),
        camera_at_aperture: lane(c.look_at, c.aperture),
        camera_up_focus: lane(c.up, c.focus_dist),
        sky_bottom: lane(bottom, 0.0),
        sky_top: lane(top, 0.0),
        settings: [s.width, s.height, s.spp, s.max_depth],
        seed_root: [s.seed, root, 0, 0],
        env_rotation,
        exposure: s.exposure,
        view: view_code(s.view),
        sampler: sampler_code(s.sampler),
        reserved: 0,
    }
}

/// What a material emits, as its record holds it (the w lane is its ior): what the
/// light table depends on.
pub(crate) fn material_emission(kind: MaterialKind) -> [f32; 4] {
    kind.record().emission_ior
}
