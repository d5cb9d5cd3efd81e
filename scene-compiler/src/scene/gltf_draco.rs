//! `KHR_draco_mesh_compression`: a primitive whose vertices and triangles are a Draco
//! stream in a buffer view (the extension's README: `bufferView`, and `attributes`
//! naming each glTF attribute's Draco attribute id), decoded by `draco-core`, a
//! pure-Rust decoder that reads what Google's Draco 1.5.7 writes, within its decode
//! limits (points, faces and bytes: a stream that claims more is refused before it is
//! allocated). The primitive's accessors give the attributes' glTF types: a normalized
//! integer accessor scales Draco's integers as glTF normalizes them.
//!
//! Not here: reading uncompressed primitives (`gltf_primitive`).

use std::collections::BTreeMap;

use draco_core::{DecodeLimits, DecoderBuffer, Mesh, MeshDecoder};
use glam::{Vec2, Vec3, Vec4};
use gltf::buffer::Data;
use serde::Deserialize;

use super::gltf_primitive::{Vertices, normalized};
use crate::limits;

/// The extension's name, in `extensionsRequired` and on a primitive.
pub(super) const NAME: &str = "KHR_draco_mesh_compression";

/// Gives each accessor of a Draco primitive that has no buffer view (its data is the
/// stream's) the stream's view, so that the crate's validation, which requires a view of
/// every accessor that is not sparse (glTF does not), accepts the file. Those accessors
/// are never read through it: [`read`] decodes the stream instead.
pub(super) fn give_accessors_views(root: &mut gltf::json::Root) {
    let mut given = Vec::new();
    for primitive in root.meshes.iter().flat_map(|m| &m.primitives) {
        let view = primitive
            .extensions
            .as_ref()
            .and_then(|e| e.others.get(NAME))
            .and_then(|d| d.get("bufferView"))
            .and_then(gltf::json::Value::as_u64);
        let Some(view) = view.and_then(|v| u32::try_from(v).ok()) else { continue };
        let accessors = primitive.attributes.values().chain(&primitive.indices);
        given.extend(accessors.map(|a| (a.value(), view)));
    }
    for (accessor, view) in given {
        if let Some(a) = root.accessors.get_mut(accessor).filter(|a| a.buffer_view.is_none()) {
            a.buffer_view = Some(gltf::json::Index::new(view));
        }
    }
}

/// A primitive's `KHR_draco_mesh_compression` object.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Draco {
    buffer_view: usize,
    attributes: BTreeMap<String, u32>,
}

/// The primitive's vertices and triangles (a triangle list, whatever its mode: Draco
/// stores triangles) from its Draco stream `value`.
pub(super) fn read(
    primitive: &gltf::Primitive<'_>,
    value: &gltf::json::Value,
    document: &gltf::Document,
    buffers: &[Data],
) -> Result<Vertices, String> {
    let draco: Draco =
        gltf::json::deserialize::from_value(value.clone()).map_err(|e| format!("{NAME}: {e}"))?;
    let view = document.views().nth(draco.buffer_view).ok_or_else(|| {
        format!("{NAME} names buffer view {}, but the file has {}", draco.buffer_view, document.views().len())
    })?;
    let range = view.offset()..view.offset().saturating_add(view.length());
    let bytes = buffers
        .get(view.buffer().index())
        .and_then(|b| b.0.get(range))
        .ok_or_else(|| format!("{NAME}: buffer view {} reaches past its buffer", view.index()))?;
    let most = limits::MAX_TRIANGLES as u64;
    let decode_limits = DecodeLimits::default()
        .with_max_faces(most)
        .with_max_points(3 * most)
        .with_max_decoded_bytes(limits::MAX_INPUT_BYTES);
    let mut buffer = DecoderBuffer::new(bytes).with_limits(decode_limits);
    let mut mesh = Mesh::new();
    MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| format!("its Draco stream (buffer view {}) cannot be decoded: {e}", view.index()))?;
    let points = mesh.num_points();
    let attribute = |semantic: gltf::Semantic, components: usize| -> Result<Option<Vec<f32>>, String> {
        let name = semantic.to_string();
        let Some(&id) = draco.attributes.get(&name) else { return Ok(None) };
        let a = mesh.attribute_by_unique_id(id).ok_or_else(|| {
            format!("{NAME} names Draco attribute {id} for {name}, which its stream does not have")
        })?;
        let mut values = a.read_f32s(points, components);
        let accessor = primitive.get(&semantic);
        let integers =
            !matches!(a.data_type(), draco_core::DataType::Float32 | draco_core::DataType::Float64);
        if let Some(accessor) = accessor.filter(|a| a.normalized() && integers) {
            let data_type = accessor.data_type();
            values.iter_mut().for_each(|v| *v = normalized(data_type, *v));
        }
        Ok(Some(values))
    };
    use gltf::Semantic;
    let positions =
        attribute(Semantic::Positions, 3)?.ok_or_else(|| format!("{NAME} has no POSITION attribute"))?;
    let normals = attribute(Semantic::Normals, 3)?;
    let uvs = attribute(Semantic::TexCoords(0), 2)?;
    let tangents = attribute(Semantic::Tangents, 4)?;
    let indices = mesh.faces().iter().flat_map(|face| face.map(u32::from)).collect();
    Ok(Vertices {
        positions: positions.chunks_exact(3).map(Vec3::from_slice).collect(),
        normals: normals.map(|n| n.chunks_exact(3).map(Vec3::from_slice).collect()),
        uvs: uvs.map(|uv| uv.chunks_exact(2).map(Vec2::from_slice).collect()),
        tangents: tangents.map(|t| t.chunks_exact(4).map(Vec4::from_slice).collect()),
        indices: Some(indices),
        triangle_list: true,
    })
}
