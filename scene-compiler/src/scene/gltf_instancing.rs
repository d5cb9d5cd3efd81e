//! `EXT_mesh_gpu_instancing`: a node whose mesh is drawn once per instance, each
//! instance's `TRANSLATION`, `ROTATION` and `SCALE` (each optional) read from accessors
//! of the same `count` (the extension's README, "Extending Nodes With Instance
//! Attributes"). An instance's transform is T * R * S, applied before the node's world
//! transform: world = node_world * instance.
//!
//! Two steps, so that a file is measured before it is read: [`of_node`] reads the
//! extension's JSON alone (its accessors' indices and counts: how many instances a node
//! makes, which `mesh_file` bounds before anything is allocated); [`Instances::transforms`]
//! reads the accessors, each checked first (`gltf_check::accessor`) so that the crate's
//! iterators cannot panic, and refuses an instance whose values are not finite or whose
//! rotation has no direction.
//!
//! Not here: which meshes become instanced, and the node transforms (`mesh_file`).

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Data;

use super::{gltf_check, gltf_primitive};

/// The extension's name, on a node and in `extensionsRequired`.
pub(super) const NAME: &str = "EXT_mesh_gpu_instancing";

/// The element types the extension allows for each attribute (its README's table).
const TRANSLATION: &[(DataType, Dimensions)] = &[(DataType::F32, Dimensions::Vec3)];
const ROTATION: &[(DataType, Dimensions)] =
    &[(DataType::F32, Dimensions::Vec4), (DataType::I8, Dimensions::Vec4), (DataType::I16, Dimensions::Vec4)];
const SCALE: &[(DataType, Dimensions)] = &[(DataType::F32, Dimensions::Vec3)];

/// A node's `EXT_mesh_gpu_instancing`: how many instances it makes, and the accessors of
/// the attributes read here (others, such as `_ID`, only count).
pub(super) struct Instances<'a> {
    node: usize,
    count: usize,
    translation: Option<gltf::Accessor<'a>>,
    rotation: Option<gltf::Accessor<'a>>,
    scale: Option<gltf::Accessor<'a>>,
}

/// `node`'s extension, from the JSON alone (nothing is read or allocated by a count):
/// an `attributes` object of at least one attribute, each naming an accessor of the
/// file, all of the same count. None when the node has no extension.
pub(super) fn of_node<'a>(
    node: &gltf::Node<'_>,
    document: &'a gltf::Document,
) -> Result<Option<Instances<'a>>, String> {
    let Some(value) = node.extension_value(NAME) else { return Ok(None) };
    let at = |e: String| format!("node {}'s {NAME}: {e}", node.index());
    let attributes = value
        .get("attributes")
        .and_then(gltf::json::Value::as_object)
        .ok_or_else(|| at("it has no `attributes` object".into()))?;
    let accessors = document.as_json().accessors.len();
    let mut instances =
        Instances { node: node.index(), count: 0, translation: None, rotation: None, scale: None };
    let mut first: Option<(&str, usize)> = None;
    for (name, index) in attributes {
        let i = index
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| at(format!("attribute {name} is {index}, not an accessor index")))?;
        let a = document
            .accessors()
            .nth(i)
            .ok_or_else(|| at(format!("{name} names accessor {i}, but the file has {accessors}")))?;
        match first {
            None => first = Some((name, a.count())),
            Some((other, count)) if count != a.count() => {
                return Err(at(format!(
                    "{name} accessor {i} has {} elements but {other}'s has {count}: every attribute must have the same count",
                    a.count()
                )));
            }
            Some(_) => {}
        }
        match name.as_str() {
            "TRANSLATION" => instances.translation = Some(a),
            "ROTATION" => instances.rotation = Some(a),
            "SCALE" => instances.scale = Some(a),
            _ => {}
        }
    }
    let (_, count) = first.ok_or_else(|| at("its `attributes` are empty".into()))?;
    if count == 0 {
        return Err(at("its attributes have no elements (glTF requires count >= 1)".into()));
    }
    instances.count = count;
    Ok(Some(instances))
}

impl Instances<'_> {
    /// How many instances the node makes (its accessors' count).
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// Each instance's transform, T * R * S (a missing attribute the identity's), in
    /// the accessors' order. `lengths` are the loaded buffers' lengths.
    pub(super) fn transforms(
        &self,
        document: &gltf::Document,
        buffers: &[Data],
        lengths: &[usize],
    ) -> Result<Vec<Mat4>, String> {
        let at = |e: String| format!("node {}'s {NAME}: {e}", self.node);
        let read = |a: &Option<gltf::Accessor<'_>>,
                    allowed,
                    what: &str|
         -> Result<Option<Vec<Vec4>>, String> {
            let Some(a) = a else { return Ok(None) };
            gltf_check::accessor(a, document, lengths, allowed, what).map_err(at)?;
            if a.data_type() != DataType::F32 && !a.normalized() {
                return Err(at(format!(
                    "{what} accessor {} holds {:?} that are not normalized; the extension requires normalized integers there",
                    a.index(),
                    a.data_type()
                )));
            }
            let values = match a.dimensions() {
                Dimensions::Vec3 => gltf_primitive::floats::<3>(a, buffers)
                    .map(|v| v.into_iter().map(|c| Vec3::from_array(c).extend(0.0)).collect::<Vec<_>>()),
                _ => gltf_primitive::floats::<4>(a, buffers)
                    .map(|v| v.into_iter().map(Vec4::from_array).collect::<Vec<_>>()),
            };
            match values {
                Some(values) if values.len() == self.count => Ok(Some(values)),
                _ => Err(at(format!("{what} accessor {} reaches past its buffer", a.index()))),
            }
        };
        let translations = read(&self.translation, TRANSLATION, "TRANSLATION")?;
        let rotations = read(&self.rotation, ROTATION, "ROTATION")?;
        let scales = read(&self.scale, SCALE, "SCALE")?;
        let value =
            |values: &Option<Vec<Vec4>>, i: usize, identity: Vec4| values.as_ref().map_or(identity, |v| v[i]);
        (0..self.count)
            .map(|i| {
                let t = value(&translations, i, Vec4::ZERO).truncate();
                let r = value(&rotations, i, Vec4::W);
                let s = value(&scales, i, Vec4::ONE).truncate();
                for (what, finite, shown) in [
                    ("TRANSLATION", t.is_finite(), t.to_string()),
                    ("ROTATION", r.is_finite(), r.to_string()),
                    ("SCALE", s.is_finite(), s.to_string()),
                ] {
                    if !finite {
                        return Err(at(format!("instance {i} has a non-finite {what} {shown}")));
                    }
                }
                let r = r
                    .try_normalize()
                    .ok_or_else(|| at(format!("instance {i} has a ROTATION {r} of no direction")))?;
                Ok(Mat4::from_scale_rotation_translation(s, Quat::from_vec4(r), t))
            })
            .collect()
    }
}
