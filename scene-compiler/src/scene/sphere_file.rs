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

use std::fmt::Write as _;
use std::io::{BufReader, Read as _};
use std::path::Path;

use glam::Vec3;
use ply_rs_bw::{parser, ply};

use super::ply_elements::{check_counts, type_name};

use super::model::{Sphere, SphereListData};
use crate::limits;

/// How a sphere file's payload is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyEncoding {
    Ascii,
    BinaryLittleEndian,
    BinaryBigEndian,
}

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

    fn set_material(&mut self, key: &str, value: i64) -> ply::PropertyAccessResult {
        if key != "material" {
            return ply::PropertyAccessResult::Ignored;
        }
        self.material = value;
        ply::PropertyAccessResult::Set
    }
}

impl ply::PropertyAccess for PlyPoint {
    fn new() -> Self {
        PlyPoint { center: [0.0; 3], radius: 0.0, material: 0 }
    }
    fn set_float(&mut self, key: &str, value: f32) -> ply::PropertyAccessResult {
        self.set(key, value)
    }
    fn set_double(&mut self, key: &str, value: f64) -> ply::PropertyAccessResult {
        self.set(key, value as f32)
    }
    fn set_char(&mut self, key: &str, value: i8) -> ply::PropertyAccessResult {
        self.set_material(key, value.into())
    }
    fn set_uchar(&mut self, key: &str, value: u8) -> ply::PropertyAccessResult {
        self.set_material(key, value.into())
    }
    fn set_short(&mut self, key: &str, value: i16) -> ply::PropertyAccessResult {
        self.set_material(key, value.into())
    }
    fn set_ushort(&mut self, key: &str, value: u16) -> ply::PropertyAccessResult {
        self.set_material(key, value.into())
    }
    fn set_int(&mut self, key: &str, value: i32) -> ply::PropertyAccessResult {
        self.set_material(key, value.into())
    }
    fn set_uint(&mut self, key: &str, value: u32) -> ply::PropertyAccessResult {
        self.set_material(key, value.into())
    }
}

/// A sphere file of `spheres` (`float x y z radius`), with a `material` property (the
/// smallest unsigned type that holds every sphere's `material`) when `material` is true.
pub fn write(spheres: &[Sphere], encoding: PlyEncoding, material: bool) -> Vec<u8> {
    let most = spheres.iter().map(|s| s.material).max().unwrap_or(0);
    let (material_type, width) = match most {
        0..=0xff => ("uchar", 1),
        0x100..=0xffff => ("ushort", 2),
        _ => ("uint", 4),
    };
    let format = match encoding {
        PlyEncoding::Ascii => "ascii",
        PlyEncoding::BinaryLittleEndian => "binary_little_endian",
        PlyEncoding::BinaryBigEndian => "binary_big_endian",
    };
    let mut header = format!(
        "ply\nformat {format} 1.0\ncomment spheres: center x y z, radius{}\nelement vertex {}\n\
         property float x\nproperty float y\nproperty float z\nproperty float radius\n",
        if material { ", material (an index into the scene's `materials` list)" } else { "" },
        spheres.len()
    );
    if material {
        let _ = writeln!(header, "property {material_type} material");
    }
    header.push_str("end_header\n");
    let mut out = header.into_bytes();
    match encoding {
        PlyEncoding::Ascii => {
            let mut text = String::new();
            for s in spheres {
                let c = s.center;
                let _ = write!(text, "{:?} {:?} {:?} {:?}", c.x, c.y, c.z, s.radius);
                if material {
                    let _ = write!(text, " {}", s.material);
                }
                text.push('\n');
            }
            out.extend(text.into_bytes());
        }
        PlyEncoding::BinaryLittleEndian | PlyEncoding::BinaryBigEndian => {
            let little = encoding == PlyEncoding::BinaryLittleEndian;
            out.reserve(spheres.len() * (16 + if material { width } else { 0 }));
            for s in spheres {
                for x in [s.center.x, s.center.y, s.center.z, s.radius] {
                    out.extend_from_slice(&if little { x.to_le_bytes() } else { x.to_be_bytes() });
                }
                if material {
                    // The low `width` bytes, in the file's order.
                    let (le, be) = (s.material.to_le_bytes(), s.material.to_be_bytes());
                    out.extend_from_slice(if little { &le[..width] } else { &be[4 - width..] });
                }
            }
        }
    }
    out
}
