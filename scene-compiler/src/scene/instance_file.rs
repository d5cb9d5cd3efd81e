//! Instance files: a PLY point list, one instance of a mesh's model per `vertex` (`x y
//! z` its translation, optional `rx ry rz` its rotation in degrees, in the order a
//! `transform` applies them, and an optional `scale`, each float or double; an optional
//! integer `material`, an index into the scene's materials that replaces the model's),
//! read through `ply-rs-bw` (ascii, binary little and big endian; the common binary
//! little-endian layout in bulk, `instance_bulk.rs`) into an [`InstanceFileData`]; and
//! the writer `scene-gen` and the tests use.
//!
//! Errors say what is wrong inside the file (a missing or mistyped property, a vertex
//! by its number); the scene's validation puts them at the mesh's `instance_file`
//! value, and checks the values against the scene there (finite, a scale in range, a
//! `material` the scene has, every placement within the coordinate range), so that a
//! scene built in memory is checked by the same rules. The crate never reserves more
//! than a small buffer from a count in the header, so a file that claims more vertices
//! than it holds fails at its end, not in the allocator; a count past
//! [`limits::MAX_INSTANCES`] is refused before anything is read.
//!
//! Not here: placing the model (`Mesh::placements`, and compiling).

use std::io::{BufReader, Read as _, Seek as _, SeekFrom};
use std::path::Path;

use glam::Vec3;
use ply_rs_bw::{parser, ply};
use rayon::prelude::*;

use super::instance_bulk;
use super::model::{InstanceFileData, PlacedInstance, Transform};
use super::ply_elements::{check_counts, type_name};
use super::ply_points::{self, Columns, PlyEncoding, point_access};
use crate::{find_first, limits};

/// What an error about the file's layout adds: the layout it should have.
pub(crate) const LAYOUT: &str = "an instance file is a PLY point list: a `vertex` element with `x y z` (the translation), optionally `rx ry rz` (rotation in degrees) and `scale` (float or double), and an optional integer `material` (an index into the scene's materials)";

/// Reads the instance file at `path`: each vertex an instance, its transform from `x y
/// z`, `rx ry rz` (0 without them) and `scale` (1 without it), its `material` `None`
/// when the file has no such property. Whether the values suit the scene (finite, a
/// scale in range, a material it has) is the caller's check.
pub fn read(path: &Path) -> Result<InstanceFileData, String> {
    let (file, size) = crate::files::open_input(path, limits::MAX_INPUT_BYTES).map_err(|e| e.to_string())?;
    let point_parser = parser::Parser::<PlyInstance>::new();
    let mut head = parser::Reader::new(BufReader::new(&file));
    let header = point_parser.read_header(&mut head).map_err(|e| format!("not a PLY file: {e}"))?;
    let header_len = head.get_mut().stream_position().map_err(|e| e.to_string())?;
    let Some(vertex) = header.elements.get("vertex") else {
        return Err(
            "no `vertex` element: an instance file has one, with `x y z` (and `rx ry rz`, `scale`, `material`)"
                .into(),
        );
    };
    let has_material = check_properties(vertex)?;
    if vertex.count == 0 {
        return Err("no instances: the `vertex` element is empty".into());
    }
    if vertex.count > limits::MAX_INSTANCES {
        return Err(format!("{} instances, more than the format's {}", vertex.count, limits::MAX_INSTANCES));
    }
    check_counts(&header, size)?;
    let rewrite = rewritable(&header);
    if let Some(instances) = instance_bulk::read(&file, size, header_len, &header)? {
        return Ok(InstanceFileData { path: path.to_path_buf(), instances, rewrite });
    }
    (&file).seek(SeekFrom::Start(header_len)).map_err(|e| e.to_string())?;
    let mut reader = parser::Reader::new(BufReader::with_capacity(1 << 20, (&file).take(size - header_len)));
    // Elements come in header order: those before the vertices are read and dropped.
    for element in header.elements.values() {
        let what = |e: parser::ParseError| format!("element `{}`: {e}", element.name);
        let points = point_parser.read_payload_for_element(&mut reader, element, &header).map_err(what)?;
        if element.name == "vertex" {
            let instances = lower(points, has_material)?;
            return Ok(InstanceFileData { path: path.to_path_buf(), instances, rewrite });
        }
    }
    Err("the `vertex` element was not read".into())
}

/// The properties read as numbers (the rest is `material`).
pub(super) const FLOATS: [&str; 7] = ["x", "y", "z", "rx", "ry", "rz", "scale"];

/// Whether the vertex element has a `material`; an error when `x y z` are not all there
/// as float or double, `rx ry rz` are not all there or all absent, any of them or
/// `scale` is of another type, or `material` is not an integer.
fn check_properties(vertex: &ply::ElementDef) -> Result<bool, String> {
    use ply::{PropertyType::Scalar, ScalarType::*};
    let has = |name: &str| vertex.properties.contains_key(name);
    for name in ["x", "y", "z"] {
        if !has(name) {
            return Err(format!("the `vertex` element has no `{name}` property"));
        }
    }
    let rotation = ["rx", "ry", "rz"];
    if let (Some(present), Some(absent)) =
        (rotation.iter().find(|n| has(n)), rotation.iter().find(|n| !has(n)))
    {
        return Err(format!(
            "the `vertex` element has `{present}` but no `{absent}`: a rotation is `rx ry rz`, all three"
        ));
    }
    for name in FLOATS {
        match vertex.properties.get(name).map(|p| &p.data_type) {
            None | Some(Scalar(Float | Double)) => {}
            Some(other) => {
                return Err(format!(
                    "property `{name}` is {}: `x y z rx ry rz scale` must be float or double",
                    type_name(other)
                ));
            }
        }
    }
    match vertex.properties.get("material").map(|p| &p.data_type) {
        None => Ok(false),
        Some(Scalar(Char | UChar | Short | UShort | Int | UInt)) => Ok(true),
        Some(other) => {
            Err(format!("property `material` is {}: it must be an integer type", type_name(other)))
        }
    }
}

/// Whether [`write`] can stand for the file: its encoding when it holds a `vertex`
/// element alone, of properties [`read`] reads (`float`s and an integer `material`),
/// else why not. Comments are not kept.
fn rewritable(header: &ply::Header) -> Result<PlyEncoding, String> {
    use ply::{PropertyType::Scalar, ScalarType::Double};
    if let Some(other) = header.elements.values().find(|e| e.name != "vertex") {
        return Err(format!("it has an element `{}` besides `vertex`", other.name));
    }
    for (name, property) in header.elements.get("vertex").into_iter().flat_map(|v| &v.properties) {
        if name != "material" && !FLOATS.contains(&name.as_str()) {
            return Err(format!("its vertices have a property `{name}` besides the instances'"));
        }
        if property.data_type == Scalar(Double) {
            return Err(format!("its `{name}` is double, which would be written as float"));
        }
    }
    Ok(match header.encoding {
        ply::Encoding::Ascii => PlyEncoding::Ascii,
        ply::Encoding::BinaryLittleEndian => PlyEncoding::BinaryLittleEndian,
        ply::Encoding::BinaryBigEndian => PlyEncoding::BinaryBigEndian,
    })
}

/// The points as instances; a `material` below 0 is an error (the other values are the
/// scene's checks).
fn lower(points: Vec<PlyInstance>, has_material: bool) -> Result<Vec<PlacedInstance>, String> {
    // On every core (at 10^6 instances, one core took 20-30 ms of a reload's parse on the
    // GPU machine), the first bad material found first.
    let material = |p: &PlyInstance| has_material.then_some(p.material);
    if let Some(i) =
        find_first::index(points.len(), |i| placed(i, points[i].values, material(&points[i])).is_err())
    {
        return Err(bad_material(i, points[i].material));
    }
    let lowered = points.into_par_iter().enumerate().map(|(i, p)| placed(i, p.values, material(&p)));
    lowered.collect()
}

/// One vertex's values (in the order of [`FLOATS`]) as its instance, `material` the
/// file's integer when it has the property: what both readers make of a vertex. An
/// error naming vertex `i` when the material is no index.
pub(super) fn placed(i: usize, values: [f32; 7], material: Option<i64>) -> Result<PlacedInstance, String> {
    let material = match material {
        Some(m) => Some(u32::try_from(m).map_err(|_| bad_material(i, m))?),
        None => None,
    };
    let [x, y, z, rx, ry, rz, scale] = values;
    let transform = Transform {
        translate: Vec3::new(x, y, z),
        rotate_deg: Vec3::new(rx, ry, rz),
        scale: Vec3::splat(scale),
    };
    Ok(PlacedInstance { transform, material })
}

fn bad_material(i: usize, material: i64) -> String {
    format!("vertex {i} has material {material}: indices count from 0")
}

/// One vertex's values, whatever the property types (doubles rounded to `f32`), in the
/// order of [`FLOATS`].
pub(super) struct PlyInstance {
    pub values: [f32; 7],
    pub material: i64,
}

impl PlyInstance {
    /// The identity where the file has no rotation or scale.
    pub fn identity() -> Self {
        PlyInstance { values: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], material: 0 }
    }

    fn set(&mut self, key: &str, value: f32) -> ply::PropertyAccessResult {
        match FLOATS.iter().position(|&name| name == key) {
            Some(k) => {
                self.values[k] = value;
                ply::PropertyAccessResult::Set
            }
            None => ply::PropertyAccessResult::Ignored,
        }
    }
}

point_access!(PlyInstance, PlyInstance::identity());

/// An instance file of `instances`: `float x y z` always; `float rx ry rz` when some
/// instance rotates, `float scale` when some instance scales, and a `material` property
/// (the smallest unsigned type that holds every one) when some instance has a material.
/// A file's vertices all have the properties it declares, so where some instances have
/// a material and others not, those without are written as material 0; otherwise
/// reading the file gives `instances` back exactly. An instance's `scale` is one
/// number, its x: validation refuses an instance file's instance scaled unevenly.
pub fn write(instances: &[PlacedInstance], encoding: PlyEncoding) -> Vec<u8> {
    let rotation = instances.iter().any(|p| p.transform.rotate_deg != Vec3::ZERO);
    let scale = instances.iter().any(|p| p.transform.scale != Vec3::ONE);
    let material = instances.iter().any(|p| p.material.is_some());
    // The float properties written, as indices into an instance's values in the
    // order of `FLOATS`.
    let written: Vec<usize> =
        (0..FLOATS.len()).filter(|&k| k < 3 || (k < 6 && rotation) || (k == 6 && scale)).collect();
    let floats: Vec<&str> = written.iter().map(|&k| FLOATS[k]).collect();
    let values = |p: &PlacedInstance, row: &mut Vec<f32>| {
        let (t, r) = (p.transform.translate, p.transform.rotate_deg);
        let all = [t.x, t.y, t.z, r.x, r.y, r.z, p.transform.scale.x];
        row.extend(written.iter().map(|&k| all[k]));
    };
    let material_of = |p: &PlacedInstance| p.material.unwrap_or(0);
    let comment = format!(
        "instances: translation x y z{}{}{}",
        if rotation { ", rotation rx ry rz (degrees: about X, then Y, then Z)" } else { "" },
        if scale { ", scale" } else { "" },
        if material { ", material (an index into the scene's materials)" } else { "" },
    );
    let columns = Columns {
        comment: &comment,
        floats: &floats,
        values: &values,
        material: material.then_some(&material_of as &dyn Fn(&PlacedInstance) -> u32),
    };
    ply_points::write(instances, encoding, &columns)
}
