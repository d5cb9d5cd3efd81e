//! Zero-copy, validating blob reader: after [`BlobView::parse`] returns `Ok`, every
//! index in the blob is in range, the BVH is a tree no deeper than the kernels'
//! stack, and every number is finite. Backends rely on that and check nothing.

use bytemuck::Pod;
use glam::Vec3;

use super::error::BlobError;
use super::layout::*;
use crate::bvh::{Aabb, Bvh, Node, NodeKind};
use crate::scene::limits;

/// Which node order a blob uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeLayout {
    DepthFirst,
    VanEmdeBoas,
}

/// A validated blob, borrowing the bytes it was parsed from.
#[derive(Clone, Copy, Debug)]
pub struct BlobView<'a> {
    pub bytes: &'a [u8],
    pub header: &'a BlobHeader,
    pub globals: &'a GlobalsRecord,
    pub materials: &'a [MaterialRecord],
    pub spheres: &'a [SphereRecord],
    pub sphere_materials: &'a [u32],
    pub sphere_sources: &'a [u32],
    pub node_boxes: &'a [NodeBoxesRecord],
    pub node_links: &'a [NodeLinksRecord],
    pub lights: &'a [LightRecord],
}

impl<'a> BlobView<'a> {
    /// Validates `bytes` (which must start 16-byte aligned) and views its sections.
    pub fn parse(bytes: &'a [u8]) -> Result<BlobView<'a>, BlobError> {
        if bytes.len() < HEADER_LEN {
            return Err(BlobError::TooShort { len: bytes.len(), needed: HEADER_LEN });
        }
        if !(bytes.as_ptr() as usize).is_multiple_of(SECTION_ALIGN) {
            return Err(BlobError::Misaligned);
        }
        let header: &BlobHeader = bytemuck::from_bytes(&bytes[..HEADER_LEN]);
        check_header(header, bytes)?;
        let count = |id: SectionId| -> usize {
            (match id {
                SectionId::Globals => 1,
                SectionId::Materials => header.material_count,
                SectionId::Spheres | SectionId::SphereMaterials | SectionId::SphereSources => {
                    header.sphere_count
                }
                SectionId::NodeBoxes | SectionId::NodeLinks => header.node_count,
                SectionId::Lights => header.light_count,
            }) as usize
        };
        let mut previous_end = HEADER_LEN as u64;
        for id in SectionId::ALL {
            let entry = header.sections[id as usize];
            check_section(id, entry, count(id), previous_end, bytes.len())?;
            previous_end = entry.offset + entry.len;
        }
        let section = |id: SectionId| -> &'a [u8] {
            let e = header.sections[id as usize];
            &bytes[e.offset as usize..(e.offset + e.len) as usize]
        };
        let view = BlobView {
            bytes,
            header,
            globals: &cast::<GlobalsRecord>(section(SectionId::Globals))[0],
            materials: cast(section(SectionId::Materials)),
            spheres: cast(section(SectionId::Spheres)),
            sphere_materials: cast(section(SectionId::SphereMaterials)),
            sphere_sources: cast(section(SectionId::SphereSources)),
            node_boxes: cast(section(SectionId::NodeBoxes)),
            node_links: cast(section(SectionId::NodeLinks)),
            lights: cast(section(SectionId::Lights)),
        };
        view.check_records()?;
        view.check_tree()?;
        Ok(view)
    }

    /// The node order recorded in the header.
    pub fn node_layout(&self) -> NodeLayout {
        if self.header.flags & FLAG_LAYOUT_VEB != 0 {
            NodeLayout::VanEmdeBoas
        } else {
            NodeLayout::DepthFirst
        }
    }

    /// The bytes of the payload the GPU needs (everything after the header).
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[HEADER_LEN..]
    }

    /// The BVH's root link: inner node 0, or a leaf when the scene is one leaf.
    pub fn root(&self) -> u32 {
        self.globals.seed_root[1]
    }

    /// The BVH as a plain tree in depth-first order (bounds, links, identity
    /// `prim_order` because the spheres are stored in leaf order), for statistics and
    /// CPU picking.
    pub fn tree(&self) -> Bvh {
        let root = self.root();
        let root_bounds = if is_leaf(root) {
            let (first, count) = leaf_spheres(root);
            self.spheres[first as usize..(first + count) as usize].iter().fold(Aabb::EMPTY, |b, s| {
                let [x, y, z, r] = s.center_radius;
                b.union(Aabb::of_sphere(Vec3::new(x, y, z), r))
            })
        } else {
            let (left, right) = self.child_bounds(root);
            left.union(right)
        };
        let mut nodes = Vec::with_capacity(2 * self.node_links.len() + 1);
        self.push_subtree(root, root_bounds, &mut nodes);
        Bvh { nodes, prim_order: (0..self.spheres.len() as u32).collect() }
    }

    /// Appends the subtree at `link` depth-first (left child right after its parent);
    /// returns its index. Recursion is bounded by the validated depth (64).
    fn push_subtree(&self, link: u32, bounds: Aabb, nodes: &mut Vec<Node>) -> u32 {
        let index = nodes.len();
        nodes.push(Node { bounds, kind: NodeKind::Leaf { first: 0, count: 0 } });
        nodes[index].kind = if is_leaf(link) {
            let (first, count) = leaf_spheres(link);
            NodeKind::Leaf { first, count }
        } else {
            let (left_bounds, right_bounds) = self.child_bounds(link);
            let links = self.node_links[link as usize];
            let left = self.push_subtree(links.left, left_bounds, nodes);
            let right = self.push_subtree(links.right, right_bounds, nodes);
            NodeKind::Inner { left, right }
        };
        index as u32
    }

    /// An inner node's (left, right) child boxes.
    fn child_bounds(&self, node: u32) -> (Aabb, Aabb) {
        let b = &self.node_boxes[node as usize];
        let side = |lane: usize| Aabb {
            min: Vec3::new(b.x_pos[lane], b.y_pos[lane], b.z_pos[lane]),
            max: Vec3::new(b.x_pos[lane + 2], b.y_pos[lane + 2], b.z_pos[lane + 2]),
        };
        (side(0), side(1))
    }

    fn check_records(&self) -> Result<(), BlobError> {
        use SectionId as S;
        let g = self.globals;
        let globals_floats =
            [g.camera_from_vfov, g.camera_at_aperture, g.camera_up_focus, g.sky_bottom, g.sky_top];
        if !globals_floats.iter().flatten().all(|x| x.is_finite()) {
            return Err(BlobError::record(S::Globals, 0, "non-finite camera or sky value"));
        }
        let [width, height, spp, max_depth] = g.settings;
        if !(1..=limits::MAX_IMAGE_SIDE).contains(&width)
            || !(1..=limits::MAX_IMAGE_SIDE).contains(&height)
            || !(1..=limits::MAX_SPP).contains(&spp)
            || !(1..=limits::MAX_DEPTH).contains(&max_depth)
        {
            return Err(BlobError::record(
                S::Globals,
                0,
                format!("render settings out of range: {:?}", g.settings),
            ));
        }
        let vfov = g.camera_from_vfov[3];
        if !(vfov > 0.0 && vfov < 180.0) {
            return Err(BlobError::record(S::Globals, 0, format!("vertical fov {vfov} outside (0, 180)")));
        }
        for (i, m) in self.materials.iter().enumerate() {
            if ![m.albedo_fuzz, m.weights_ior, m.emission].iter().flatten().all(|x| x.is_finite()) {
                return Err(BlobError::record(S::Materials, i, "non-finite parameter"));
            }
            let [wl, wm, wd, ior] = m.weights_ior;
            if wl < 0.0 || wm < 0.0 || wd < 0.0 || wl + wm + wd > 1.0 + 1e-6 || ior < 1.0 {
                return Err(BlobError::record(S::Materials, i, "lobe weights or ior out of range"));
            }
        }
        for (i, s) in self.spheres.iter().enumerate() {
            let [x, y, z, r] = s.center_radius;
            if !(x.is_finite() && y.is_finite() && z.is_finite() && r.is_finite() && r > 0.0) {
                return Err(BlobError::record(S::Spheres, i, "non-finite center or radius <= 0"));
            }
        }
        let material_count = self.materials.len();
        if let Some(i) = self.sphere_materials.iter().position(|&m| m as usize >= material_count) {
            let m = self.sphere_materials[i];
            let problem = format!("material id {m} out of range (blob has {material_count} materials)");
            return Err(BlobError::record(S::SphereMaterials, i, problem));
        }
        let mut seen = vec![false; self.spheres.len()];
        for (i, &src) in self.sphere_sources.iter().enumerate() {
            match seen.get_mut(src as usize) {
                Some(slot @ false) => *slot = true,
                _ => {
                    return Err(BlobError::record(
                        S::SphereSources,
                        i,
                        format!("source index {src} repeated or out of range"),
                    ));
                }
            }
        }
        for (i, b) in self.node_boxes.iter().enumerate() {
            let rows = [(b.x_pos, b.x_neg), (b.y_pos, b.y_neg), (b.z_pos, b.z_neg)];
            if !rows.iter().flat_map(|(pos, neg)| pos.iter().chain(neg)).all(|x| x.is_finite()) {
                return Err(BlobError::record(S::NodeBoxes, i, "non-finite bounds"));
            }
            // The kernels read one row per axis, chosen by the ray's direction: rows that
            // disagree would give different hits for different directions.
            if rows.iter().any(|&([a, b, c, d], neg)| neg != [c, d, a, b]) {
                return Err(BlobError::record(
                    S::NodeBoxes,
                    i,
                    "the _neg rows are not the _pos rows' halves swapped",
                ));
            }
        }
        for (i, l) in self.lights.iter().enumerate() {
            if ![l.position_kind, l.radiance, l.cone].iter().flatten().all(|x| x.is_finite()) {
                return Err(BlobError::record(S::Lights, i, "non-finite parameter"));
            }
            let kind = l.position_kind[3];
            if kind != LIGHT_POINT && kind != LIGHT_DIRECTIONAL {
                return Err(BlobError::record(S::Lights, i, format!("unknown light kind {kind}")));
            }
        }
        Ok(())
    }

    /// The links must form one tree from the root link (every inner node reached
    /// exactly once, so no cycle), no deeper than `MAX_BVH_DEPTH` levels counting the
    /// leaves, whose leaves cover every sphere exactly once.
    fn check_tree(&self) -> Result<(), BlobError> {
        let tree_err = |m: String| BlobError::Tree(m);
        let n = self.node_links.len();
        let root = self.root();
        if !is_leaf(root) && root != 0 {
            return Err(tree_err(format!("root link {root:#x} is neither inner node 0 nor a leaf")));
        }
        let mut visited = vec![false; n];
        let mut covered = vec![false; self.spheres.len()];
        let mut stack: Vec<(u32, u32)> = vec![(root, 1)];
        while let Some((link, depth)) = stack.pop() {
            if depth > MAX_BVH_DEPTH {
                return Err(tree_err(format!(
                    "deeper than {MAX_BVH_DEPTH} levels, the traversal stack size"
                )));
            }
            if is_leaf(link) {
                let (first, count) = leaf_spheres(link);
                let (first, end) = (first as usize, (first + count) as usize);
                if end > covered.len() {
                    return Err(tree_err(format!(
                        "leaf link {link:#x} has sphere range {first}..{end} outside 0..{}",
                        covered.len()
                    )));
                }
                if covered[first..end].iter_mut().any(|s| std::mem::replace(s, true)) {
                    return Err(tree_err(format!("leaf {first}..{end} repeats a sphere of another leaf")));
                }
                continue;
            }
            let slot = visited
                .get_mut(link as usize)
                .ok_or_else(|| tree_err(format!("link to node {link}, but there are {n} inner nodes")))?;
            if std::mem::replace(slot, true) {
                return Err(tree_err(format!("node {link} is reached twice (cycle or shared child)")));
            }
            let links = self.node_links[link as usize];
            stack.push((links.right, depth + 1));
            stack.push((links.left, depth + 1));
        }
        if let Some(node) = visited.iter().position(|v| !v) {
            return Err(tree_err(format!("node {node} is not reachable from the root")));
        }
        if let Some(sphere) = covered.iter().position(|c| !c) {
            return Err(tree_err(format!("sphere {sphere} is in no leaf")));
        }
        Ok(())
    }
}

fn check_header(h: &BlobHeader, bytes: &[u8]) -> Result<(), BlobError> {
    if h.magic != MAGIC {
        return Err(BlobError::BadMagic { found: h.magic, expected: MAGIC });
    }
    if h.version != FORMAT_VERSION {
        return Err(BlobError::UnsupportedVersion { found: h.version, supported: FORMAT_VERSION });
    }
    let mismatch = |field, found: u64, expected: u64| BlobError::HeaderMismatch { field, found, expected };
    if h.header_len as usize != HEADER_LEN {
        return Err(mismatch("header_len", h.header_len.into(), HEADER_LEN as u64));
    }
    if h.total_len != bytes.len() as u64 {
        return Err(mismatch("total_len (file size)", h.total_len, bytes.len() as u64));
    }
    if h.flags & !FLAG_LAYOUT_VEB != 0 {
        return Err(BlobError::UnknownFlags(h.flags));
    }
    let crc = crc32fast::hash(&bytes[HEADER_LEN..]);
    if crc != h.payload_crc32 {
        return Err(BlobError::Checksum { found: crc, expected: h.payload_crc32 });
    }
    let counts = [
        ("sphere_count", h.sphere_count as usize, 1, limits::MAX_SPHERES),
        ("material_count", h.material_count as usize, 1, limits::MAX_MATERIALS),
        ("light_count", h.light_count as usize, 0, limits::MAX_LIGHTS),
        // Inner nodes of a binary tree with at most sphere_count leaves.
        ("node_count", h.node_count as usize, 0, (h.sphere_count as usize).saturating_sub(1)),
    ];
    for (field, value, min, max) in counts {
        if value < min || value > max {
            return Err(BlobError::HeaderMismatch { field, found: value as u64, expected: max as u64 });
        }
    }
    Ok(())
}

fn check_section(
    id: SectionId,
    e: SectionEntry,
    count: usize,
    previous_end: u64,
    total: usize,
) -> Result<(), BlobError> {
    let expected_len = (count * id.record_size()) as u64;
    if e.len != expected_len {
        return Err(BlobError::section(
            id,
            format!("{} bytes, expected {expected_len} for {count} records", e.len),
        ));
    }
    if !e.offset.is_multiple_of(SECTION_ALIGN as u64) {
        return Err(BlobError::section(id, format!("offset {} is not 16-byte aligned", e.offset)));
    }
    if e.offset < previous_end {
        return Err(BlobError::section(id, format!("offset {} overlaps the previous section", e.offset)));
    }
    if e.offset.checked_add(e.len).is_none_or(|end| end > total as u64) {
        return Err(BlobError::section(
            id,
            format!("{}+{} runs past the end of the {total}-byte blob", e.offset, e.len),
        ));
    }
    Ok(())
}

/// Sections are aligned and sized exactly (checked above), so the cast cannot fail.
fn cast<T: Pod>(bytes: &[u8]) -> &[T] {
    bytemuck::cast_slice(bytes)
}
