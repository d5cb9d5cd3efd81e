//! Scene + BVH -> blob bytes: the one place that encodes records.
//!
//! Spheres are stored in BVH leaf order, so a leaf's `[first, first + count)` indexes
//! the sphere arrays directly (no indirection on the GPU); `sphere_sources` keeps
//! each stored sphere's index in the scene file for picking and inspection.

use bytemuck::Pod;
use glam::Vec3;

use super::aligned::AlignedBytes;
use super::layout::*;
use crate::bvh::{Bvh, NodeKind};
use crate::scene::{Light, MaterialKind, Scene, Sky};

/// Encodes `scene` with its BVH (built over `scene.spheres`) into one blob.
/// Deterministic: the same inputs give the same bytes.
pub fn write(scene: &Scene, bvh: &Bvh, flags: u32) -> AlignedBytes {
    let globals = [globals_record(scene)];
    let materials: Vec<MaterialRecord> = scene.materials.iter().map(|m| material_record(m.kind)).collect();
    let spheres: Vec<SphereRecord> = bvh
        .prim_order
        .iter()
        .map(|&i| {
            let s = &scene.spheres[i as usize];
            SphereRecord { center_radius: lane(s.center, s.radius) }
        })
        .collect();
    let sphere_materials: Vec<u32> =
        bvh.prim_order.iter().map(|&i| scene.spheres[i as usize].material).collect();
    let bounds: Vec<NodeBoundsRecord> = bvh
        .nodes
        .iter()
        .map(|n| NodeBoundsRecord { min: lane(n.bounds.min, 0.0), max: lane(n.bounds.max, 0.0) })
        .collect();
    let links: Vec<NodeLinksRecord> = bvh
        .nodes
        .iter()
        .map(|n| match n.kind {
            NodeKind::Inner { left, right } => NodeLinksRecord { left_or_first: left, right_or_count: right },
            NodeKind::Leaf { first, count } => {
                NodeLinksRecord { left_or_first: first, right_or_count: count | LEAF_FLAG }
            }
        })
        .collect();
    let lights: Vec<LightRecord> = scene.lights.iter().map(light_record).collect();

    let sections: [&[u8]; SECTION_COUNT] = [
        bytes_of(&globals),
        bytes_of(&materials),
        bytes_of(&spheres),
        bytes_of(&sphere_materials),
        bytes_of(&bvh.prim_order),
        bytes_of(&bounds),
        bytes_of(&links),
        bytes_of(&lights),
    ];

    let mut table = [SectionEntry::default(); SECTION_COUNT];
    let mut end = HEADER_LEN;
    for (entry, data) in table.iter_mut().zip(sections) {
        let offset = end.next_multiple_of(SECTION_ALIGN);
        *entry = SectionEntry { offset: offset as u64, len: data.len() as u64 };
        end = offset + data.len();
    }
    let total_len = end.next_multiple_of(SECTION_ALIGN);

    let mut out = AlignedBytes::zeroed(total_len);
    let buf = out.as_mut_slice();
    for (entry, data) in table.iter().zip(sections) {
        buf[entry.offset as usize..][..data.len()].copy_from_slice(data);
    }
    let header = BlobHeader {
        magic: MAGIC,
        version: FORMAT_VERSION,
        flags,
        sphere_count: count(spheres.len()),
        material_count: count(materials.len()),
        light_count: count(lights.len()),
        node_count: count(bvh.nodes.len()),
        payload_crc32: crc32fast::hash(&buf[HEADER_LEN..]),
        header_len: HEADER_LEN as u32,
        total_len: total_len as u64,
        sections: table,
    };
    buf[..HEADER_LEN].copy_from_slice(bytemuck::bytes_of(&header));
    out
}

/// Counts are validated against `scene::limits` long before this point.
fn count(n: usize) -> u32 {
    u32::try_from(n).expect("scene limits keep every count below 2^32")
}

fn bytes_of<T: Pod>(records: &[T]) -> &[u8] {
    bytemuck::cast_slice(records)
}

fn lane(v: Vec3, w: f32) -> [f32; 4] {
    [v.x, v.y, v.z, w]
}

fn globals_record(scene: &Scene) -> GlobalsRecord {
    let (c, s) = (&scene.camera, &scene.settings);
    let (bottom, top) = match scene.sky {
        Sky::Gradient { bottom, top } => (bottom, top),
        Sky::Constant(color) => (color, color),
    };
    GlobalsRecord {
        camera_from_vfov: lane(c.look_from, c.vfov_deg),
        camera_at_aperture: lane(c.look_at, c.aperture),
        camera_up_focus: lane(c.up, c.focus_dist),
        sky_bottom: lane(bottom, 0.0),
        sky_top: lane(top, 0.0),
        settings: [s.width, s.height, s.spp, s.max_depth],
        seed: [s.seed, 0, 0, 0],
    }
}

/// The branchless form: one-hot lobe weights, so the kernel never switches on a kind.
pub(crate) fn material_record(kind: MaterialKind) -> MaterialRecord {
    let (albedo, fuzz, weights, ior, emission) = match kind {
        MaterialKind::Lambert { albedo } => (albedo, 0.0, [1.0, 0.0, 0.0], 1.0, Vec3::ZERO),
        MaterialKind::Metal { albedo, fuzz } => (albedo, fuzz, [0.0, 1.0, 0.0], 1.0, Vec3::ZERO),
        MaterialKind::Dielectric { ior } => (Vec3::ONE, 0.0, [0.0, 0.0, 1.0], ior, Vec3::ZERO),
        MaterialKind::Emissive { color, strength } => (Vec3::ZERO, 0.0, [0.0; 3], 1.0, color * strength),
    };
    MaterialRecord {
        albedo_fuzz: lane(albedo, fuzz),
        weights_ior: [weights[0], weights[1], weights[2], ior],
        emission: lane(emission, 0.0),
    }
}

fn light_record(light: &Light) -> LightRecord {
    match *light {
        Light::Point { position, color, intensity } => LightRecord {
            position_kind: lane(position, LIGHT_POINT),
            radiance: lane(color * intensity, 0.0),
            cone: [1.0, 0.0, 0.0, 0.0],
        },
        // The scene gives the direction light travels; shading wants the way to the light.
        Light::Directional { direction, color, intensity, angular_radius_deg } => LightRecord {
            position_kind: lane(-direction.normalize(), LIGHT_DIRECTIONAL),
            radiance: lane(color * intensity, 0.0),
            cone: [angular_radius_deg.to_radians().cos(), 0.0, 0.0, 0.0],
        },
    }
}
