//! Sphere files: a PLY point list, one sphere per `vertex` (`x y z radius`, float or
//! double, and an optional integer `material` that indexes the scene entry's
//! `materials`), read through `ply-rs-bw` (ascii, binary little and big endian) into a
//! [`SphereListData`]; and the writer `scene-gen grid --ply` and the tests use.
//!
//! Errors say what is wrong inside the file (a missing or mistyped property, a vertex
//! by its number); the scene's validation puts them at the entry's `file` value. The
//! crate never reserves more than a small buffer from a count in the header, so a
//! file that claims more vertices than it holds fails at its end, not in the allocator.
//!
//! Not here: placing the spheres in the world (`crate::sphere_files`, at compile time).

use std::io::{BufReader, Read as _};
use std::path::Path;

use glam::Vec3;
use ply_rs_bw::{parser, ply};

use super::ply_elements::{check_counts, type_name};
use super::ply_points::{self, Columns, PlyEncoding, point_access};

use super::model::{Sphere, SphereListData};
use crate::limits;

/// Reads the sphere file at `path`; each sphere's `material` is its `material` property
/// (0 without one), an index into the scene entry's `materials`, checked by the caller.
pub fn read(path: &Path) -> Result<SphereListData, String> {
    let (file, size) = crate::files::open_input(path, limits::MAX_INPUT_BYTES).map_err(|e| e.to_string())?;
    let mut reader = parser::Reader::new(BufReader::with_capacity(1 << 20, file.take(size)));
    let point_parser = parser::Parser::<PlyPoint>::new();
    let header = point_parser.read_header(&mut reader).map_err(|e| format!("not a PLY file: {e}"))?;
    let Some(vertex) = header.elements.get("vertex") else {
        return Err("no `vertex` element: a sphere file has one, with `x y z radius` (and `material`)".into());
    };
    let has_material = check_properties(vertex)?;
    if vertex.count == 0 {
        return Err("no spheres: the `vertex` element is empty".into());
    }
    if vertex.count > limits::MAX_SPHERES {
        return Err(format!("{} spheres, more than the format's {}", vertex.count, limits::MAX_SPHERES));
    }
    check_counts(&header, size)?;
    // Elements come in header order: those before the vertices are read and dropped.
    for element in header.elements.values() {
        let what = |e: parser::ParseError| format!("element `{}`: {e}", element.name);
        let points = point_parser.read_payload_for_element(&mut reader, element, &header).map_err(what)?;
        if element.name == "vertex" {
            return lower(points, has_material, path);
        }
    }
    Err("the `vertex` element was not read".into())
}

/// Whether the vertex element has a `material`; an error when `x y z radius` are not
/// all there as float or double, or `material` is not an integer.
fn check_properties(vertex: &ply::ElementDef) -> Result<bool, String> {
    use ply::{PropertyType::Scalar, ScalarType::*};
    for name in ["x", "y", "z", "radius"] {
        match vertex.properties.get(name).map(|p| &p.data_type) {
            None => return Err(format!("the `vertex` element has no `{name}` property")),
            Some(Scalar(Float | Double)) => {}
            Some(other) => {
                return Err(format!(
                    "property `{name}` is {}: `x y z radius` must be float or double",
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

/// The points as spheres, each checked: a finite center, a finite positive radius, a
/// material index of at least 0.
fn lower(points: Vec<PlyPoint>, has_material: bool, path: &Path) -> Result<SphereListData, String> {
    let mut spheres = Vec::with_capacity(points.len());
    for (i, p) in points.into_iter().enumerate() {
        let center = Vec3::from_array(p.center);
        if !center.is_finite() {
            return Err(format!("vertex {i} has a non-finite center {center}"));
        }
        if !(p.radius.is_finite() && p.radius > 0.0) {
            return Err(format!("vertex {i} has radius {}: a radius must be finite and positive", p.radius));
        }
        let material = u32::try_from(p.material)
            .map_err(|_| format!("vertex {i} has material {}: indices count from 0", p.material))?;
        spheres.push(Sphere { center, radius: p.radius, material });
    }
    Ok(SphereListData { path: path.to_path_buf(), spheres, has_material })
}

/// One vertex's values, whatever the property types (doubles rounded to `f32`).
struct PlyPoint {
    center: [f32; 3],
    radius: f32,
    material: i64,
}

impl PlyPoint {
    fn set(&mut self, key: &str, value: f32) -> ply::PropertyAccessResult {
        match key {
            "x" => self.center[0] = value,
            "y" => self.center[1] = value,
            "z" => self.center[2] = value,
            "radius" => self.radius = value,
            _ => return ply::PropertyAccessResult::Ignored,
        }
        ply::PropertyAccessResult::Set
    }
}

point_access!(PlyPoint, PlyPoint { center: [0.0; 3], radius: 0.0, material: 0 });

/// A sphere file of `spheres` (`float x y z radius`), with a `material` property (the
/// smallest unsigned type that holds every sphere's `material`) when `material` is true.
pub fn write(spheres: &[Sphere], encoding: PlyEncoding, material: bool) -> Vec<u8> {
    let values = |s: &Sphere, row: &mut Vec<f32>| row.extend([s.center.x, s.center.y, s.center.z, s.radius]);
    let material_of = |s: &Sphere| s.material;
    let columns = Columns {
        comment: if material {
            "spheres: center x y z, radius, material (an index into the scene's `materials` list)"
        } else {
            "spheres: center x y z, radius"
        },
        floats: &["x", "y", "z", "radius"],
        values: &values,
        material: material.then_some(&material_of as &dyn Fn(&Sphere) -> u32),
    };
    ply_points::write(spheres, encoding, &columns)
}
