//! Zero-copy, validating blob reader: after [`BlobView::parse`] returns `Ok`, every
//! index in the blob is in range, the BVH is a tree no deeper than the kernels'
//! stack, and every number is finite. Backends rely on that and check nothing.

use std::sync::atomic::{AtomicU64, Ordering};

use bytemuck::Pod;
use glam::Vec3;
use rayon::prelude::*;

use super::error::{BlobError, describe_start};
use super::layout::*;
use crate::bvh::{Aabb, Bvh, Node, NodeKind};
use crate::scene::{Camera, EnvImage, Environment, MaterialKind, RenderSettings, Sky};
use crate::shapes::Shape;
use crate::with_shape;
use crate::{find_first, limits, ranges};

/// How far the probability the alias table gives a light may be from its pdf: the
/// writer builds the table in f64 (within about 1e-9); f32 storage adds about 1e-7.
const ALIAS_TOLERANCE: f64 = 1e-5;

/// Which node order a blob uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeLayout {
    DepthFirst,
    VanEmdeBoas,
}

/// A directional light's disc as a ray that leaves the scene sees it ([`BlobView::suns`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SunDisc {
    /// The unit direction towards the light.
    pub towards: [f32; 3],
    /// The cosine of its angular radius (below 1).
    pub cos: f32,
    /// Its radiance: the irradiance over the disc's solid angle 2π (1 − cos).
    pub radiance: [f32; 3],
}

/// A validated blob, borrowing the bytes it was parsed from.
#[derive(Clone, Copy, Debug)]
pub struct BlobView<'a> {
    pub bytes: &'a [u8],
    pub header: &'a BlobHeader,
    pub globals: &'a GlobalsRecord,
    pub materials: &'a [MaterialRecord],
    pub textures: &'a [TextureRecord],
    /// The image textures' texels, linear rgb (w 0).
    pub texels: &'a [[f32; 4]],
    /// The Perlin table when the header has [`FLAG_NOISE`] (else empty).
    pub noise: &'a [NoiseRecord],
    /// Each kind's record section, by kind value ([`BlobView::records`] types them).
    prims: [&'a [u8]; PrimKind::SLOTS],
    /// Per primitive, kinds one after another ([`BlobHeader::kind_first`]): material ids.
    pub prim_materials: &'a [u32],
    /// Per primitive, same order: its index in the scene's list of its kind.
    pub prim_sources: &'a [u32],
    /// Per primitive, same order, when the header has [`FLAG_PRIM_LIGHTS`] (else empty:
    /// no primitive is a light): the probability of picking its light (0: not a light).
    pub prim_light_pdfs: &'a [f32],
    /// The meshes' vertices, which the triangles index.
    pub vertices: &'a [VertexRecord],
    /// Per vertex, when the header has [`FLAG_TRIANGLE_UVS`] (else empty).
    pub vertex_uvs: &'a [VertexUvRecord],
    /// Per triangle, when the header has [`FLAG_TRIANGLE_TANGENTS`] (else empty).
    pub triangle_tangents: &'a [TriangleTangentsRecord],
    pub node_boxes: &'a [NodeBoxesRecord],
    pub node_links: &'a [NodeLinksRecord],
    pub lights: &'a [LightRecord],
    /// The environment's texels, row by row from the top (empty without one).
    pub env_texels: &'a [EnvTexelRecord],
    /// The environment's alias tables: rows, then each row's columns (empty without one).
    pub env_sampling: &'a [EnvAliasRecord],
}

impl<'a> BlobView<'a> {
    /// Validates `bytes` (which must start 16-byte aligned) and views its sections.
    ///
    /// The checksum, the records and the tree are read side by side (at 21M triangles
    /// on 16 cores each took 0.2-0.3 s, and the tree's walk is one core's); the error
    /// reported is the one the checks in their order would give: the header's start,
    /// then the checksum, then the rest of the header, the sections, the records and
    /// the tree.
    pub fn parse(bytes: &'a [u8]) -> Result<BlobView<'a>, BlobError> {
        let header = BlobView::header(bytes)?;
        let checked = || {
            let view = BlobView::sections(bytes)?;
            let (records, tree) = rayon::join(|| view.check_records(), || view.check_tree());
            records.and(tree).map(|()| view)
        };
        let (crc, checked) = rayon::join(|| super::crc32(&bytes[HEADER_LEN..]), checked);
        if crc != header.payload_crc32 {
            return Err(BlobError::Checksum { found: crc, expected: header.payload_crc32 });
        }
        checked
    }

    /// Views bytes that [`BlobView::parse`] accepted before and that have not changed
    /// since (a loaded scene's blob, viewed again for each upload): only the header and
    /// the section bounds are checked, what the view's slices need; the checksum, the
    /// records and the tree, linear in the blob's size, are not checked again.
    pub fn parse_accepted(bytes: &'a [u8]) -> Result<BlobView<'a>, BlobError> {
        BlobView::sections(bytes)
    }

    /// The header, if what comes before the checksum in its checks holds: the magic,
    /// the length, the alignment, the version and the flags.
    fn header(bytes: &'a [u8]) -> Result<&'a BlobHeader, BlobError> {
        // What the file is, before how long it is: a short PNG is still a PNG.
        if !bytes.starts_with(&MAGIC) && bytes.len() >= MAGIC.len() {
            return Err(BlobError::BadMagic { looks_like: describe_start(bytes) });
        }
        if bytes.len() < HEADER_LEN {
            return Err(BlobError::TooShort { len: bytes.len(), needed: HEADER_LEN });
        }
        if !(bytes.as_ptr() as usize).is_multiple_of(SECTION_ALIGN) {
            return Err(BlobError::Misaligned);
        }
        let header: &BlobHeader = bytemuck::from_bytes(&bytes[..HEADER_LEN]);
        check_header_start(header, bytes)?;
        Ok(header)
    }

    /// The header and section checks but the checksum, and the view over the sections.
    fn sections(bytes: &'a [u8]) -> Result<BlobView<'a>, BlobError> {
        let header = BlobView::header(bytes)?;
        check_header_rest(header)?;
        let count = |id: SectionId| usize::try_from(header.section_records(id)).unwrap_or(usize::MAX);
        let mut previous_end = HEADER_LEN as u64;
        for id in SectionId::ALL {
            let entry = header.sections[id as usize];
            check_section(id, entry, count(id), previous_end, bytes)?;
            previous_end = entry.offset + entry.len;
        }
        // Nothing after the last section but its padding to 16 bytes, all zero.
        if previous_end.next_multiple_of(SECTION_ALIGN as u64) != bytes.len() as u64 {
            return Err(BlobError::HeaderMismatch {
                field: "total_len (bytes after the last section)",
                found: bytes.len() as u64,
                expected: previous_end.next_multiple_of(SECTION_ALIGN as u64),
            });
        }
        if bytes[previous_end as usize..].iter().any(|&b| b != 0) {
            return Err(BlobError::section(SectionId::EnvSampling, "the padding after it is not zero"));
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
            textures: cast(section(SectionId::Textures)),
            texels: cast(section(SectionId::Texels)),
            noise: cast(section(SectionId::Noise)),
            prims: std::array::from_fn(|slot| {
                PrimKind::from_u32(slot as u32).map_or(&[][..], |kind| section(kind.section()))
            }),
            prim_materials: cast(section(SectionId::PrimMaterials)),
            prim_sources: cast(section(SectionId::PrimSources)),
            prim_light_pdfs: cast(section(SectionId::PrimLightPdfs)),
            vertices: cast(section(SectionId::Vertices)),
            vertex_uvs: cast(section(SectionId::VertexUvs)),
            triangle_tangents: cast(section(SectionId::TriangleTangents)),
            node_boxes: cast(section(SectionId::NodeBoxes)),
            node_links: cast(section(SectionId::NodeLinks)),
            lights: cast(section(SectionId::Lights)),
            env_texels: cast(section(SectionId::EnvTexels)),
            env_sampling: cast(section(SectionId::EnvSampling)),
        };
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

    /// The render settings stored with the scene (the one place that unpacks them).
    pub fn settings(&self) -> RenderSettings {
        let g = self.globals;
        let [width, height, spp, max_depth] = g.settings;
        RenderSettings {
            width,
            height,
            spp,
            max_depth,
            seed: g.seed_root[0],
            exposure: g.exposure,
            // The blob check refuses codes without a view or sampler.
            view: view_of(g.view).unwrap_or_default(),
            sampler: sampler_of(g.sampler).unwrap_or_default(),
        }
    }

    /// The scene's camera.
    pub fn camera(&self) -> Camera {
        let g = self.globals;
        Camera {
            look_from: xyz(g.camera_from_vfov),
            look_at: xyz(g.camera_at_aperture),
            up: xyz(g.camera_up_focus),
            vfov_deg: g.camera_from_vfov[3],
            aperture: g.camera_at_aperture[3],
            focus_dist: g.camera_up_focus[3],
        }
    }

    /// The sky; equal ends read back as a constant sky, an environment as its texels
    /// (image × strength) with strength 1 and no file name.
    pub fn sky(&self) -> Sky {
        if let [width, height, ..] = self.header.env_size
            && width > 0
        {
            let texels = self.env_texels.iter().map(|t| [t.rgb_pdf[0], t.rgb_pdf[1], t.rgb_pdf[2]]).collect();
            let data = EnvImage { path: Default::default(), width, height, texels };
            let [cos, sin, ..] = self.globals.env_rotation;
            return Sky::Environment(Environment {
                image: String::new(),
                data: std::sync::Arc::new(data),
                strength: 1.0,
                rotation_deg: sin.atan2(cos).to_degrees(),
            });
        }
        let (bottom, top) = (xyz(self.globals.sky_bottom), xyz(self.globals.sky_top));
        if bottom == top { Sky::Constant(bottom) } else { Sky::Gradient { bottom, top } }
    }

    /// The directional lights with a disc (at most [`crate::limits::MAX_SUNS`]), as a ray
    /// leaving the scene sees them; none when no light has power.
    pub fn suns(&self) -> Vec<SunDisc> {
        if !self.has_light_power() {
            return Vec::new();
        }
        self.lights
            .iter()
            .filter(|l| l.kind == LIGHT_DIRECTIONAL && l.vector_cos[3] < 1.0)
            .map(|l| {
                let [x, y, z, cos] = l.vector_cos;
                let [r, g, b, _] = l.radiance_pdf;
                let solid_angle = std::f32::consts::TAU * (1.0 - cos);
                SunDisc {
                    towards: [x, y, z],
                    cos,
                    radiance: [r / solid_angle, g / solid_angle, b / solid_angle],
                }
            })
            .collect()
    }

    /// The environment light's pick probability: 0 without an environment or when it
    /// has no power.
    pub fn env_light_pdf(&self) -> f32 {
        self.lights.iter().find(|l| l.kind == LIGHT_ENVIRONMENT).map_or(0.0, |l| l.radiance_pdf[3])
    }

    /// The BVH as a plain tree in depth-first order (bounds, links, identity
    /// `prim_order` over the primitives numbered kind after kind, because each kind is
    /// stored in leaf order), for statistics.
    pub fn tree(&self) -> Bvh {
        let root = self.root();
        let root_bounds = if is_leaf(root) {
            let (first, count) = leaf_prims(root);
            (first..first + count).fold(Aabb::EMPTY, |b, prim| b.union(self.prim_bounds(prim)))
        } else {
            let (left, right) = self.child_bounds(root);
            left.union(right)
        };
        let mut nodes = Vec::with_capacity(2 * self.node_links.len() + 1);
        self.push_subtree(root, root_bounds, &mut nodes);
        let total = u32::try_from(self.header.prim_total()).expect("validated counts fit 32 bits");
        Bvh { nodes, prim_order: (0..total).collect() }
    }

    /// True when some light has a non-zero pick probability: only then do the
    /// renderers sample lights (all zero means no light has any power).
    pub fn has_light_power(&self) -> bool {
        self.lights.iter().any(|l| l.radiance_pdf[3] > 0.0)
    }

    /// The records of shape `S`, in leaf order.
    pub fn records<S: Shape>(&self) -> &'a [S::Record] {
        cast(self.prims[S::KIND as usize])
    }

    /// The bounds of primitive reference `prim` (a validated one).
    pub fn prim_bounds(&self, prim: u32) -> Aabb {
        let (kind, index) = prim_parts(prim);
        PrimKind::from_u32(kind).map_or(
            Aabb::EMPTY,
            |kind| with_shape!(kind, S => S::record_bounds(&self.records::<S>()[index as usize], self.vertices)),
        )
    }

    /// The place of primitive reference `prim` in the per-primitive sections.
    pub fn prim_slot(&self, prim: u32) -> usize {
        let (kind, index) = prim_parts(prim);
        self.header.kind_first()[kind as usize] as usize + index as usize
    }

    /// Appends the subtree at `link` depth-first (left child right after its parent);
    /// returns its index. Recursion is bounded by the validated depth (64).
    fn push_subtree(&self, link: u32, bounds: Aabb, nodes: &mut Vec<Node>) -> u32 {
        let index = nodes.len();
        nodes.push(Node { bounds, kind: NodeKind::Leaf { first: 0, count: 0 } });
        nodes[index].kind = if is_leaf(link) {
            let (first, count) = leaf_prims(link);
            NodeKind::Leaf { first: self.prim_slot(first) as u32, count }
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
            min: Vec3::new(b.x[lane], b.y[lane], b.z[lane]),
            max: Vec3::new(b.x[lane + 2], b.y[lane + 2], b.z[lane + 2]),
        };
        (side(0), side(1))
    }

    fn check_records(&self) -> Result<(), BlobError> {
        use SectionId as S;
        let g = self.globals;
        let globals_floats = [
            g.camera_from_vfov,
            g.camera_at_aperture,
            g.camera_up_focus,
            g.sky_bottom,
            g.sky_top,
            g.env_rotation,
        ];
        if !globals_floats.iter().flatten().all(|x| x.is_finite()) {
            return Err(BlobError::record(S::Globals, 0, "non-finite camera or sky value"));
        }
        let s = self.settings();
        if !(1..=limits::MAX_IMAGE_SIDE).contains(&s.width)
            || !(1..=limits::MAX_IMAGE_SIDE).contains(&s.height)
            || !(1..=limits::MAX_SPP).contains(&s.spp)
            || !(1..=limits::MAX_DEPTH).contains(&s.max_depth)
        {
            return Err(BlobError::record(S::Globals, 0, format!("render settings out of range: {s:?}")));
        }
        if !(g.exposure.is_finite() && g.exposure.abs() <= ranges::MAX_EXPOSURE) {
            return Err(BlobError::record(
                S::Globals,
                0,
                format!("exposure {} outside +-20 stops", g.exposure),
            ));
        }
        if view_of(g.view).is_none() || sampler_of(g.sampler).is_none() {
            let problem = format!("unknown view transform {} or sampler {}", g.view, g.sampler);
            return Err(BlobError::record(S::Globals, 0, problem));
        }
        let vfov = g.camera_from_vfov[3];
        if !(vfov > 0.0 && vfov < 180.0) {
            return Err(BlobError::record(S::Globals, 0, format!("vertical fov {vfov} outside (0, 180)")));
        }
        let camera = self.camera();
        if let Some(problem) = ranges::camera_problem(camera.look_from, camera.look_at, camera.up) {
            return Err(BlobError::record(S::Globals, 0, format!("camera: {problem}")));
        }
        let (aperture, focus) = (camera.aperture, camera.focus_dist);
        let focus_ok = focus > 0.0 && focus <= 4.0 * ranges::MAX_COORDINATE;
        if !((0.0..=ranges::MAX_RADIANCE).contains(&aperture) && focus_ok) {
            let problem = format!("camera aperture {aperture} or focus distance {focus} out of range");
            return Err(BlobError::record(S::Globals, 0, problem));
        }
        if !ranges::radiance_ok(&g.sky_bottom[..3]) || !ranges::radiance_ok(&g.sky_top[..3]) {
            let problem = format!("sky {:?} / {:?} is negative or above 1e9", g.sky_bottom, g.sky_top);
            return Err(BlobError::record(S::Globals, 0, problem));
        }
        if g.sky_bottom[3] != 0.0 || g.sky_top[3] != 0.0 || g.seed_root[2..] != [0, 0] || g.reserved != 0 {
            return Err(BlobError::record(
                S::Globals,
                0,
                "reserved lanes (sky w, seed_root z and w, reserved) are not zero",
            ));
        }
        for (i, m) in self.materials.iter().enumerate() {
            check_material(m, self.textures.len())
                .map_err(|problem| BlobError::record(S::Materials, i, problem))?;
        }
        self.check_textures()?;
        self.check_vertices()?;
        // Triangles were checked with their vertices, in the same pass.
        for kind in PrimKind::ALL.into_iter().filter(|&kind| kind != PrimKind::Triangle) {
            with_shape!(kind, S => check_shapes::<S>(self.records::<S>(), self.vertices)?);
        }
        let material_count = self.materials.len();
        // An instance may keep its mesh's materials (NO_MATERIAL); nothing else may.
        let instances = self.header.kind_first()[PrimKind::Instance as usize] as usize;
        let bad = |(i, &m): (usize, &u32)| {
            (m as usize >= material_count && !(i >= instances && m == NO_MATERIAL)).then_some(m)
        };
        let first_bad =
            find_first::index(self.prim_materials.len(), |i| bad((i, &self.prim_materials[i])).is_some());
        if let Some((i, m)) = first_bad.map(|i| (i, self.prim_materials[i])) {
            let problem = format!("material id {m} out of range (blob has {material_count} materials)");
            return Err(BlobError::record(S::PrimMaterials, i, problem));
        }
        let kind_first = self.header.kind_first();
        for kind in PrimKind::ALL {
            let first = kind_first[kind as usize] as usize;
            let count = self.header.prim_count(kind) as usize;
            let mut seen = vec![false; count];
            for (i, &src) in self.prim_sources[first..first + count].iter().enumerate() {
                match seen.get_mut(src as usize) {
                    Some(slot @ false) => *slot = true,
                    _ => {
                        return Err(BlobError::record(
                            S::PrimSources,
                            first + i,
                            format!("{} source index {src} repeated or out of range", kind.name()),
                        ));
                    }
                }
            }
        }
        if let Some((i, problem)) = find_first::problem(self.triangle_tangents, |t| check_tangents(t).err()) {
            return Err(BlobError::record(S::TriangleTangents, i, problem));
        }
        let bad_box = |b: &NodeBoxesRecord| {
            // Child boxes are the primitives' (within the coordinate range) grown by a
            // margin below 2^-20 of it: twice the range is far outside.
            let reach = 2.0 * ranges::MAX_COORDINATE;
            if ![b.x, b.y, b.z].iter().flatten().all(|x| x.is_finite() && x.abs() <= reach) {
                return Some("non-finite bounds or bounds past 2e9");
            }
            // Rows hold (left.min, right.min, left.max, right.max).
            [b.x, b.y, b.z]
                .iter()
                .any(|row| row[0] > row[2] || row[1] > row[3])
                .then_some("a child box's min is above its max")
        };
        if let Some((i, problem)) = find_first::problem(self.node_boxes, bad_box) {
            return Err(BlobError::record(S::NodeBoxes, i, problem));
        }
        self.check_lights()?;
        self.check_environment()?;
        Ok(())
    }

    /// The environment: globals that say how it turns (a unit rotation, no gradient
    /// besides), finite non-negative texels and densities, alias tables that stay in
    /// range and, when the environment can be picked as a light, densities that
    /// integrate to 1 and tables that pick every row and cell with its probability
    /// (a cell of density 0 never). Without an environment the rotation is (1, 0, 0, 0).
    fn check_environment(&self) -> Result<(), BlobError> {
        use SectionId as S;
        let g = self.globals;
        let [cos, sin, r2, r3] = g.env_rotation;
        let [width, height, ..] = self.header.env_size.map(|v| v as usize);
        if width == 0 {
            if g.env_rotation != [1.0, 0.0, 0.0, 0.0] {
                return Err(BlobError::record(
                    S::Globals,
                    0,
                    "an environment rotation without an environment",
                ));
            }
            return Ok(());
        }
        if (cos * cos + sin * sin - 1.0).abs() > 1e-3 || r2 != 0.0 || r3 != 0.0 {
            return Err(BlobError::record(
                S::Globals,
                0,
                format!("environment rotation {:?} is not a unit (cos, sin, 0, 0)", g.env_rotation),
            ));
        }
        if g.sky_bottom != [0.0; 4] || g.sky_top != [0.0; 4] {
            return Err(BlobError::record(S::Globals, 0, "a gradient sky besides the environment"));
        }
        for (i, t) in self.env_texels.iter().enumerate() {
            if !t.rgb_pdf.iter().all(|x| x.is_finite() && *x >= 0.0) || !ranges::radiance_ok(&t.rgb_pdf[..3])
            {
                return Err(BlobError::record(
                    S::EnvTexels,
                    i,
                    format!("texel {:?} is not finite and non-negative", t.rgb_pdf),
                ));
            }
        }
        let (rows, cells) = self.env_sampling.split_at(height);
        for (i, a) in self.env_sampling.iter().enumerate() {
            let n = if i < height { height } else { width };
            if !(0.0..=1.0).contains(&a.threshold) || a.alias as usize >= n {
                let problem =
                    format!("threshold {} or alias {} out of range ({n} cells)", a.threshold, a.alias);
                return Err(BlobError::record(S::EnvSampling, i, problem));
            }
        }
        if self.env_light_pdf() == 0.0 {
            return Ok(());
        }
        // The probability each row, and each cell within its row, is picked with.
        let density = |k: usize| f64::from(self.env_texels[k].rgb_pdf[3]);
        let row_sums: Vec<f64> =
            (0..height).map(|j| (0..width).map(|i| density(j * width + i)).sum()).collect();
        let total: f64 = row_sums.iter().sum();
        if (total / (width * height) as f64 - 1.0).abs() > 1e-3 {
            let problem = format!("the densities average {}, not 1", total / (width * height) as f64);
            return Err(BlobError::record(S::EnvTexels, 0, problem));
        }
        let row_pdfs: Vec<f64> = row_sums.iter().map(|s| s / total).collect();
        if let Some(j) = alias_mismatch(rows, &row_pdfs) {
            return Err(BlobError::record(
                S::EnvSampling,
                j,
                "the rows' table does not pick this row with its probability",
            ));
        }
        for (j, &sum) in row_sums.iter().enumerate().filter(|(_, s)| **s > 0.0) {
            let pdfs: Vec<f64> = (0..width).map(|i| density(j * width + i) / sum).collect();
            if let Some(i) = alias_mismatch(&cells[j * width..(j + 1) * width], &pdfs) {
                let problem = format!("row {j}'s table does not pick column {i} with its probability");
                return Err(BlobError::record(S::EnvSampling, height + j * width + i, problem));
            }
        }
        Ok(())
    }

    /// Textures: known kinds with their parameters in range, images inside the texels
    /// section, texels finite and not negative, and the Perlin table (when present) made of
    /// unit gradients and three permutations, as the kernels index it unchecked.
    fn check_textures(&self) -> Result<(), BlobError> {
        use SectionId as S;
        for (i, t) in self.textures.iter().enumerate() {
            let err = |problem: String| Err(BlobError::record(S::Textures, i, problem));
            if !t.a.iter().chain(&t.b).all(|x| x.is_finite()) || t.reserved != [0; 3] {
                return err("non-finite parameter or reserved lanes set".into());
            }
            let [first, width, height, wrap] = t.image;
            match t.kind {
                TEXTURE_IMAGE => {
                    let end = u64::from(first) + u64::from(width) * u64::from(height);
                    if width == 0 || height == 0 || end > self.texels.len() as u64 {
                        return err(format!(
                            "image of {width} x {height} texels from {first} outside the {} texels",
                            self.texels.len()
                        ));
                    }
                    if wrap != WRAP_REPEAT && wrap != WRAP_CLAMP {
                        return err(format!("unknown wrap mode {wrap}"));
                    }
                    // The uv transform's rows (finite, checked above) with their w lanes zero.
                    if t.a[3] != 0.0 || t.b[3] != 0.0 {
                        return err(format!("image uv transform rows {:?}, {:?} with w lanes set", t.a, t.b));
                    }
                }
                TEXTURE_CHECKER => {
                    let (size, colours) = (t.a[3], [&t.a[..3], &t.b[..3]].concat());
                    if size.is_nan()
                        || size <= 0.0
                        || colours.iter().any(|&c| c < 0.0)
                        || t.b[3] != 0.0
                        || t.image != [0; 4]
                    {
                        return err(format!("checker of size {size} or colours {colours:?} out of range"));
                    }
                }
                TEXTURE_NOISE => {
                    if t.a[0].is_nan() || t.a[0] <= 0.0 || self.noise.is_empty() || t.image != [0; 4] {
                        return err(format!("noise of scale {} without the noise table", t.a[0]));
                    }
                }
                kind => return err(format!("unknown texture kind {kind}")),
            }
        }
        // rgb a radiance-like colour, w the image's alpha (1 without one).
        if let Some(i) =
            self.texels.iter().position(|t| !ranges::radiance_ok(&t[..3]) || !(0.0..=1.0).contains(&t[3]))
        {
            return Err(BlobError::record(
                S::Texels,
                i,
                "a texel is not finite, negative or above 1e9, or its alpha is outside [0, 1]",
            ));
        }
        let mut seen = [[false; NOISE_POINTS]; 3];
        for (i, n) in self.noise.iter().enumerate() {
            let len2: f32 = n.gradient[..3].iter().map(|x| x * x).sum();
            if !n.gradient.iter().all(|x| x.is_finite()) || (len2 - 1.0).abs() > 1e-3 || n.gradient[3] != 0.0
            {
                return Err(BlobError::record(S::Noise, i, "a gradient is not unit length"));
            }
            for (axis, seen) in seen.iter_mut().enumerate() {
                match seen.get_mut(n.perm[axis] as usize) {
                    Some(slot @ false) => *slot = true,
                    _ => {
                        return Err(BlobError::record(
                            S::Noise,
                            i,
                            "the permutations repeat or leave the table",
                        ));
                    }
                }
            }
            if n.perm[3] != 0 {
                return Err(BlobError::record(S::Noise, i, "a reserved lane is set"));
            }
        }
        Ok(())
    }

    /// The vertices and what the triangles make of them: finite positions within the
    /// coordinate range; normal codes the octahedral code can write, all `NO_NORMAL`
    /// without [`FLAG_SHADING_NORMALS`]; texture coordinates finite or both NaN;
    /// triangles whose indices are in range and whose three vertices agree on having a
    /// normal and coordinates (the renderers look at the first vertex only), and that
    /// pass the triangle shape's own check.
    fn check_vertices(&self) -> Result<(), BlobError> {
        use SectionId as S;
        let normals = self.header.flags & FLAG_SHADING_NORMALS != 0;
        let bad_vertex = |v: &VertexRecord| {
            if !ranges::coordinate_ok(Vec3::from_array(v.position)) {
                Some("a position is not finite or is past 1e9")
            } else if !crate::records::normal::is_valid(v.normal) || (!normals && v.normal != NO_NORMAL) {
                Some("a normal code the octahedral code does not write (or a normal without flag 2)")
            } else {
                None
            }
        };
        if let Some((i, problem)) = find_first::problem(self.vertices, bad_vertex) {
            return Err(BlobError::record(S::Vertices, i, problem));
        }
        let bad_uv = |t: &VertexUvRecord| {
            let [u, v] = t.uv;
            let ok = (u.is_finite() && v.is_finite()) || (u.is_nan() && v.is_nan());
            (!ok).then_some("texture coordinates that are neither finite nor both NaN")
        };
        if let Some((i, problem)) = find_first::problem(self.vertex_uvs, bad_uv) {
            return Err(BlobError::record(S::VertexUvs, i, problem));
        }
        let bad_triangle = |t: &TriangleRecord| {
            if t.v.iter().any(|&i| i as usize >= self.vertices.len()) {
                return Some("a vertex index past the vertices section");
            }
            let vertices = t.v.map(|i| &self.vertices[i as usize]);
            let normal = vertices.map(|v| v.normal != NO_NORMAL);
            let uv = t.v.map(|i| self.vertex_uvs.get(i as usize).is_some_and(|t| t.get().is_none()));
            if normal[1..].iter().any(|&n| n != normal[0]) || uv[1..].iter().any(|&n| n != uv[0]) {
                return Some("its vertices disagree on having a normal or texture coordinates");
            }
            // The shape's own check, here rather than in a second pass over the
            // triangles and their vertices (at 5M triangles, 60-100 ms of the check).
            crate::scene::Triangle::check_record(t, self.vertices).err()
        };
        if let Some((i, problem)) =
            find_first::problem(self.records::<crate::scene::Triangle>(), bad_triangle)
        {
            return Err(BlobError::record(S::Triangles, i, problem));
        }
        Ok(())
    }

    /// Lights: known kinds, finite values, an alias table that stays in range, area
    /// lights that name a primitive (each at most once) whose `prim_light_pdfs` entry is
    /// their pdf, no other primitive with a pick probability, and pdfs that sum to 1
    /// (or are all 0: no light has power, the renderer samples none). When they sum to
    /// 1, the alias table must give each light its pdf, so no light of pdf 0 is picked.
    fn check_lights(&self) -> Result<(), BlobError> {
        use SectionId as S;
        if let Some(i) = self.prim_light_pdfs.iter().position(|p| !(0.0..=1.0).contains(p)) {
            let p = self.prim_light_pdfs[i];
            return Err(BlobError::record(
                S::PrimLightPdfs,
                i,
                format!("pick probability {p} not in [0, 1]"),
            ));
        }
        let count = self.lights.len();
        // Per primitive slot, whether a light is that primitive.
        let mut is_light = vec![false; self.prim_light_pdfs.len()];
        let mut env_lights = 0;
        let mut suns = 0;
        let mut sum = 0.0f64;
        for (i, l) in self.lights.iter().enumerate() {
            let err = |problem: String| Err(BlobError::record(S::Lights, i, problem));
            if ![l.vector_cos, l.radiance_pdf]
                .iter()
                .flatten()
                .chain([&l.alias_threshold])
                .all(|x| x.is_finite())
            {
                return err("non-finite parameter".into());
            }
            let pdf = l.radiance_pdf[3];
            if !(0.0..=1.0).contains(&pdf) || !(0.0..=1.0).contains(&l.alias_threshold) {
                return err(format!("pdf {pdf} or alias threshold {} not in [0, 1]", l.alias_threshold));
            }
            if l.alias as usize >= count {
                return err(format!("alias {} out of range ({count} lights)", l.alias));
            }
            if !ranges::radiance_ok(&l.radiance_pdf[..3]) {
                return err(format!("radiance {:?} is negative or above 1e9", &l.radiance_pdf[..3]));
            }
            let [x, y, z, w] = l.vector_cos;
            let vector = Vec3::new(x, y, z);
            match l.kind {
                LIGHT_POINT => {
                    if !ranges::coordinate_ok(vector) || w != 1.0 {
                        return err(format!("point light at {vector} (w {w}): past 1e9 or w not 1"));
                    }
                }
                LIGHT_DIRECTIONAL => {
                    if (vector.length_squared() - 1.0).abs() > 1e-3 || !(w > 0.0 && w <= 1.0) {
                        return err(format!(
                            "directional light {vector} is not unit length or its cos {w} is not in (0, 1]"
                        ));
                    }
                    if w < 1.0 {
                        suns += 1;
                        if suns > crate::limits::MAX_SUNS {
                            return err(format!(
                                "more than {} directional lights with a disc",
                                crate::limits::MAX_SUNS
                            ));
                        }
                    }
                }
                LIGHT_ENVIRONMENT => {
                    if l.vector_cos != [0.0, 0.0, 0.0, 1.0] {
                        return err(format!("vector {:?} is not (0, 0, 0, 1)", l.vector_cos));
                    }
                    if self.header.env_size[0] == 0 {
                        return err("an environment light without an environment".into());
                    }
                    env_lights += 1;
                    if env_lights > 1 {
                        return err("a second environment light".into());
                    }
                }
                LIGHT_AREA => {
                    if l.vector_cos != [0.0, 0.0, 0.0, 1.0] {
                        return err(format!("vector {:?} is not (0, 0, 0, 1)", l.vector_cos));
                    }
                    let (kind, index) = prim_parts(l.prim);
                    // No stray bits: the kernels compare references whole.
                    let stray = l.prim & !(PRIM_KIND_MASK | PRIM_INDEX_MASK) != 0;
                    let kind =
                        PrimKind::from_u32(kind).filter(|&k| !stray && index < self.header.prim_count(k));
                    let Some(kind) = kind else {
                        return err(format!(
                            "area light names primitive {:#x}, which the blob does not hold",
                            l.prim
                        ));
                    };
                    let slot = self.prim_slot(l.prim);
                    if std::mem::replace(&mut is_light[slot], true) {
                        return err(format!("{} {index} is already another light", kind.name()));
                    }
                    let Some(&entry) = self.prim_light_pdfs.get(slot) else {
                        return err("an area light in a blob without prim_light_pdfs (flag 32)".into());
                    };
                    if entry != pdf {
                        return err(format!(
                            "pdf {pdf} differs from its {}'s prim_light_pdfs[{slot}] = {entry}",
                            kind.name()
                        ));
                    }
                }
                kind => return err(format!("unknown light kind {kind}")),
            }
            sum += f64::from(pdf);
        }
        if self.header.env_size[0] > 0 && env_lights == 0 {
            return Err(BlobError::record(S::Lights, 0, "the environment is not among the lights"));
        }
        if let Some(slot) = (0..is_light.len()).find(|&s| !is_light[s] && self.prim_light_pdfs[s] != 0.0) {
            let problem =
                format!("pick probability {} but no light is this primitive", self.prim_light_pdfs[slot]);
            return Err(BlobError::record(S::PrimLightPdfs, slot, problem));
        }
        if sum == 0.0 {
            return Ok(());
        }
        if (sum - 1.0).abs() > 1e-3 {
            return Err(BlobError::record(S::Lights, 0, format!("pick probabilities sum to {sum}, not 1")));
        }
        let cells: Vec<(f32, u32)> = self.lights.iter().map(|l| (l.alias_threshold, l.alias)).collect();
        let pdfs: Vec<f64> = self.lights.iter().map(|l| f64::from(l.radiance_pdf[3])).collect();
        if let Some(i) = alias_mass(&cells).iter().zip(&pdfs).position(|(&m, &pdf)| !alias_matches(m, pdf)) {
            let (m, pdf) = (alias_mass(&cells)[i], pdfs[i]);
            return Err(BlobError::record(
                S::Lights,
                i,
                format!("the alias table picks this light with probability {m}, its pdf is {pdf}"),
            ));
        }
        Ok(())
    }

    /// The links must form one tree from the root link and one from each distinct
    /// instance root (every inner node reached exactly once over all of them, so no
    /// cycle and no tree inside another), each no deeper than `MAX_BVH_DEPTH` levels
    /// counting the leaves, whose leaves name a known kind (a bottom level's only
    /// triangles) and cover every primitive exactly once.
    fn check_tree(&self) -> Result<(), BlobError> {
        let root = self.root();
        if !is_leaf(root) && root != 0 {
            return Err(BlobError::Tree(format!("root link {root:#x} is neither inner node 0 nor a leaf")));
        }
        let mut roots: Vec<u32> = self.records::<crate::scene::Instance>().iter().map(|r| r.root).collect();
        roots.sort_unstable();
        roots.dedup();
        let trees: Vec<(u32, Option<PrimKind>)> = std::iter::once((root, None))
            .chain(roots.into_iter().map(|r| (r, Some(PrimKind::Triangle))))
            .collect();
        // On all cores first (a 21M-triangle blob's walk took 0.3 s of one core); a
        // problem found there is looked for again in one task, in order, so the error
        // named is the one the walk in order meets first.
        let walk = TreeWalk::new(self);
        if trees.par_iter().try_for_each(|&(root, only)| walk.subtree(root, 1, only, true)).is_err() {
            let walk = TreeWalk::new(self);
            for &(root, only) in &trees {
                walk.subtree(root, 1, only, false)?;
            }
        }
        if let Some(node) = walk.visited.first_clear() {
            return Err(BlobError::Tree(format!(
                "node {node} is not reachable from the root or an instance"
            )));
        }
        if let Some(prim) = walk.covered.first_clear() {
            return Err(BlobError::Tree(format!("primitive {prim} is in no leaf")));
        }
        Ok(())
    }
}

/// One bit per item, set from any thread; setting says whether it was set before.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(n: usize) -> Bits {
        let mut bits = Bits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect());
        // The bits past `n` start set, so `first_clear` never names one.
        if let Some(last) = bits.0.last_mut()
            && !n.is_multiple_of(64)
        {
            *last.get_mut() = !0 << (n % 64);
        }
        bits
    }

    /// Sets bit `i` (which must be below `n`) and returns whether it was set already.
    fn set(&self, i: usize) -> bool {
        let bit = 1 << (i % 64);
        self.0[i / 64].fetch_or(bit, Ordering::Relaxed) & bit != 0
    }

    /// The lowest bit not set, if any.
    fn first_clear(&self) -> Option<usize> {
        let word = find_first::position(&self.0, |w| w.load(Ordering::Relaxed) != !0)?;
        Some(word * 64 + (!self.0[word].load(Ordering::Relaxed)).trailing_zeros() as usize)
    }
}

/// What [`BlobView::check_tree`]'s walks have seen so far.
struct TreeWalk<'v, 'a> {
    view: &'v BlobView<'a>,
    visited: Bits,
    covered: Bits,
    kind_first: [u32; PrimKind::SLOTS],
}

/// Subtrees from this depth on are walked by one task each (a tree of more than 2^12
/// nodes has thousands of them, enough for any number of cores).
const PAR_WALK_DEPTH: u32 = 12;

impl<'v, 'a> TreeWalk<'v, 'a> {
    fn new(view: &'v BlobView<'a>) -> Self {
        TreeWalk {
            view,
            visited: Bits::new(view.node_links.len()),
            covered: Bits::new(view.prim_materials.len()),
            kind_first: view.header.kind_first(),
        }
    }

    /// Walks the subtree at `link`, `depth` levels down its tree (the root is at 1);
    /// `only`: the one kind its leaves may name. Children near the top are walked by
    /// tasks of their own when `parallel`, left before right otherwise.
    fn subtree(
        &self,
        link: u32,
        depth: u32,
        only: Option<PrimKind>,
        parallel: bool,
    ) -> Result<(), BlobError> {
        if parallel && depth < PAR_WALK_DEPTH {
            let Some(children) = self.step(link, depth, only)? else { return Ok(()) };
            let (left, right) = rayon::join(
                || self.subtree(children.left, depth + 1, only, true),
                || self.subtree(children.right, depth + 1, only, true),
            );
            return left.and(right);
        }
        let mut stack: Vec<(u32, u32)> = vec![(link, depth)];
        while let Some((link, depth)) = stack.pop() {
            if let Some(children) = self.step(link, depth, only)? {
                stack.push((children.right, depth + 1));
                stack.push((children.left, depth + 1));
            }
        }
        Ok(())
    }

    /// Checks the node or leaf at `link` and marks what it holds; an inner node's
    /// children, to walk next.
    fn step(
        &self,
        link: u32,
        depth: u32,
        only: Option<PrimKind>,
    ) -> Result<Option<NodeLinksRecord>, BlobError> {
        let tree_err = |m: String| BlobError::Tree(m);
        if depth > limits::MAX_BVH_DEPTH {
            return Err(tree_err(format!(
                "deeper than {} levels, the traversal stack size",
                limits::MAX_BVH_DEPTH
            )));
        }
        if is_leaf(link) {
            let (prim, count) = leaf_prims(link);
            let (kind, first) = prim_parts(prim);
            let Some(kind) = PrimKind::from_u32(kind) else {
                return Err(tree_err(format!("leaf link {link:#x} names unknown primitive kind {kind}")));
            };
            if only.is_some_and(|only| only != kind) {
                return Err(tree_err(format!(
                    "leaf link {link:#x} of an instance's tree names {}s: a bottom level holds triangles only",
                    kind.name()
                )));
            }
            let kind_count = self.view.header.prim_count(kind) as usize;
            let (first, end) = (first as usize, (first + count) as usize);
            if end > kind_count {
                return Err(tree_err(format!(
                    "leaf link {link:#x} has {} range {first}..{end} outside 0..{kind_count}",
                    kind.name()
                )));
            }
            let base = self.kind_first[kind as usize] as usize;
            // Every bit set, not only up to the first repeat: `any` would stop early.
            if (base + first..base + end).fold(false, |repeated, p| self.covered.set(p) | repeated) {
                return Err(tree_err(format!(
                    "{} leaf {first}..{end} repeats a primitive of another leaf",
                    kind.name()
                )));
            }
            return Ok(None);
        }
        let n = self.view.node_links.len();
        if link as usize >= n {
            return Err(tree_err(format!("link to node {link}, but there are {n} inner nodes")));
        }
        if self.visited.set(link as usize) {
            return Err(tree_err(format!("node {link} is reached twice (cycle or shared child)")));
        }
        Ok(Some(self.view.node_links[link as usize]))
    }
}

/// The probability an alias table (`(threshold, alias)` per cell, aliases in range)
/// picks each cell with: cell i is taken with probability 1/n, kept with its threshold
/// and passed to its alias otherwise.
fn alias_mass(cells: &[(f32, u32)]) -> Vec<f64> {
    let n = cells.len() as f64;
    let mut mass = vec![0.0f64; cells.len()];
    for (i, &(threshold, alias)) in cells.iter().enumerate() {
        let keep = f64::from(threshold);
        mass[i] += keep / n;
        mass[alias as usize] += (1.0 - keep) / n;
    }
    mass
}

/// A table's mass `m` for a cell of probability `pdf`: within [`ALIAS_TOLERANCE`], and
/// exactly 0 for a cell that must never be picked.
fn alias_matches(m: f64, pdf: f64) -> bool {
    (m - pdf).abs() <= ALIAS_TOLERANCE && (pdf != 0.0 || m == 0.0)
}

/// The first cell of an environment alias table whose mass does not match its `pdfs`.
fn alias_mismatch(table: &[EnvAliasRecord], pdfs: &[f64]) -> Option<usize> {
    let cells: Vec<(f32, u32)> = table.iter().map(|a| (a.threshold, a.alias)).collect();
    alias_mass(&cells).iter().zip(pdfs).position(|(&m, &pdf)| !alias_matches(m, pdf))
}

/// How far a stored tangent's length may be from 1: the writer normalises in f32.
const TANGENT_LENGTH_TOLERANCE: f32 = 1e-3;

/// A triangle's tangents: finite, unit length, w exactly +1 or -1.
fn check_tangents(t: &TriangleTangentsRecord) -> Result<(), &'static str> {
    for v in [t.t0, t.t1, t.t2] {
        if !v.iter().all(|x| x.is_finite()) {
            return Err("a non-finite tangent");
        }
        let len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        if (len2 - 1.0).abs() >= TANGENT_LENGTH_TOLERANCE {
            return Err("a tangent is not unit length");
        }
        if v[3].abs() != 1.0 {
            return Err("a tangent's bitangent sign (w) is not +1 or -1");
        }
    }
    Ok(())
}

/// The header's checks that come before the checksum's.
fn check_header_start(h: &BlobHeader, bytes: &[u8]) -> Result<(), BlobError> {
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
    if !h.total_len.is_multiple_of(SECTION_ALIGN as u64) {
        return Err(mismatch("total_len (a multiple of 16)", h.total_len, h.total_len.next_multiple_of(16)));
    }
    let known = FLAG_LAYOUT_VEB
        | FLAG_SHADING_NORMALS
        | FLAG_NOISE
        | FLAG_TRIANGLE_UVS
        | FLAG_TRIANGLE_TANGENTS
        | FLAG_PRIM_LIGHTS;
    if h.flags & !known != 0 {
        return Err(BlobError::UnknownFlags(h.flags));
    }
    Ok(())
}

/// The header's checks that come after the checksum's.
fn check_header_rest(h: &BlobHeader) -> Result<(), BlobError> {
    let mismatch = |field, found: u64, expected: u64| BlobError::HeaderMismatch { field, found, expected };
    if h.reserved != [0; 2] {
        return Err(mismatch("reserved", h.reserved.iter().map(|&r| u64::from(r)).sum(), 0));
    }
    let [env_width, env_height, env_2, env_3] = h.env_size;
    let side = limits::MAX_IMAGE_SIDE;
    let env_ok = if env_width == 0 || env_height == 0 {
        env_width == env_height
    } else {
        env_width <= side && env_height <= side && h.env_texels() <= limits::MAX_ENV_TEXELS
    };
    if !env_ok || env_2 != 0 || env_3 != 0 {
        return Err(mismatch("env_size", h.env_texels(), limits::MAX_ENV_TEXELS));
    }
    let unused_slots = (0..PrimKind::SLOTS).filter(|&k| PrimKind::from_u32(k as u32).is_none());
    if let Some(n) = unused_slots.map(|k| h.prim_counts[k]).find(|&n| n != 0) {
        return Err(mismatch("prim_counts of an unknown kind", n.into(), 0));
    }
    let per_kind = limits::MAX_PRIMS_PER_KIND as usize;
    let total = h.prim_total() as usize;
    let kind_counts =
        PrimKind::ALL.map(|kind| (kind.count_field(), h.prim_count(kind) as usize, 0, per_kind));
    let counts = [
        ("prim_counts (all kinds)", total, 1, per_kind * PrimKind::ALL.len()),
        ("material_count", h.material_count as usize, 1, limits::MAX_MATERIALS),
        ("texture_count", h.texture_count as usize, 0, limits::MAX_MATERIALS),
        ("texel_count", h.texel_count as usize, 0, limits::MAX_TEXELS),
        // The scene's lights, then one per emissive primitive.
        ("light_count", h.light_count as usize, 0, limits::MAX_LIGHTS + 1 + total),
        // Inner nodes of a binary tree with at most `total` leaves.
        ("node_count", h.node_count as usize, 0, total.saturating_sub(1)),
    ];
    for (field, value, min, max) in kind_counts.into_iter().chain(counts) {
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
    bytes: &[u8],
) -> Result<(), BlobError> {
    let total = bytes.len();
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
    // Each section starts where the one before ends, rounded up to 16 bytes; the gap
    // (at most 15 bytes) is zero.
    if e.offset != previous_end.next_multiple_of(SECTION_ALIGN as u64) {
        return Err(BlobError::section(
            id,
            format!("offset {} leaves a gap after the previous section's end at {previous_end}", e.offset),
        ));
    }
    if e.offset <= total as u64 && bytes[previous_end as usize..e.offset as usize].iter().any(|&b| b != 0) {
        return Err(BlobError::section(id, "the padding before it is not zero"));
    }
    if e.offset.checked_add(e.len).is_none_or(|end| end > total as u64) {
        return Err(BlobError::section(
            id,
            format!("{}+{} runs past the end of the {total}-byte blob", e.offset, e.len),
        ));
    }
    Ok(())
}

/// Every record of one shape passes the shape's own check (triangles' indices are in
/// range: [`BlobView::check_vertices`] looked first).
fn check_shapes<S: Shape>(records: &[S::Record], vertices: &[VertexRecord]) -> Result<(), BlobError>
where
    S::Record: Sync,
{
    match find_first::problem(records, |r| S::check_record(r, vertices).err()) {
        Some((i, problem)) => Err(BlobError::record(S::KIND.section(), i, problem)),
        None => Ok(()),
    }
}

fn xyz(v: [f32; 4]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

/// Sections are aligned and sized exactly (checked above), so the cast cannot fail.
fn cast<T: Pod>(bytes: &[u8]) -> &[T] {
    bytemuck::cast_slice(bytes)
}

/// Why a material record cannot be rendered, if it cannot: its kind and lanes
/// ([`MaterialKind::from_record`]), then textures only in the slots the kind takes and
/// zeros in the reserved lane.
fn check_material(m: &MaterialRecord, texture_count: usize) -> Result<(), String> {
    let kind = MaterialKind::from_record(m)?;
    let takes =
        |slot: usize| if slot == TEXTURE_SLOT_COLOR { kind.takes_texture() } else { kind.takes_maps() };
    let texture_ok = m
        .textures
        .iter()
        .enumerate()
        .all(|(slot, &t)| t == NO_TEXTURE || ((t as usize) < texture_count && takes(slot)));
    if !texture_ok || m.reserved != 0 {
        return Err(format!("textures {:x?} ({texture_count} textures) or reserved lane set", m.textures));
    }
    if !ranges::radiance_ok(&m.albedo_roughness[..3]) || !ranges::radiance_ok(&m.emission_ior[..3]) {
        return Err("albedo or emission above 1e9".into());
    }
    Ok(())
}
