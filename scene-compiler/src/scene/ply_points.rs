//! The PLY form the two point files share (sphere files, `sphere_file.rs`; instance
//! files, `instance_file.rs`): one `vertex` element of `float` properties and, where a
//! file has one, an unsigned `material`. Here: writing such a file, and the setters
//! through which both readers take a vertex from the crate.

use std::fmt::Write as _;

/// How a point file's payload is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyEncoding {
    Ascii,
    BinaryLittleEndian,
    BinaryBigEndian,
}

/// The columns of a point file: `floats` (property names, in order), then `material`
/// when there is a function for it.
pub(super) struct Columns<'a, P> {
    /// The header's comment line, which says what the columns mean.
    pub comment: &'a str,
    pub floats: &'a [&'a str],
    /// A point's values, one per name of `floats`, pushed in order.
    pub values: &'a dyn Fn(&P, &mut Vec<f32>),
    /// A point's material, written in the smallest unsigned type that holds every one.
    pub material: Option<&'a dyn Fn(&P) -> u32>,
}

/// A PLY file of `points`, one vertex each, in `columns`.
pub(super) fn write<P>(points: &[P], encoding: PlyEncoding, columns: &Columns<'_, P>) -> Vec<u8> {
    let most = columns.material.map_or(0, |m| points.iter().map(m).max().unwrap_or(0));
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
    let mut header =
        format!("ply\nformat {format} 1.0\ncomment {}\nelement vertex {}\n", columns.comment, points.len());
    for name in columns.floats {
        let _ = writeln!(header, "property float {name}");
    }
    if columns.material.is_some() {
        let _ = writeln!(header, "property {material_type} material");
    }
    header.push_str("end_header\n");
    let mut out = header.into_bytes();
    let mut row = Vec::with_capacity(columns.floats.len());
    match encoding {
        PlyEncoding::Ascii => {
            let mut text = String::new();
            for p in points {
                row.clear();
                (columns.values)(p, &mut row);
                for (k, x) in row.iter().enumerate() {
                    let _ = write!(text, "{}{x:?}", if k == 0 { "" } else { " " });
                }
                if let Some(material) = columns.material {
                    let _ = write!(text, " {}", material(p));
                }
                text.push('\n');
            }
            out.extend(text.into_bytes());
        }
        PlyEncoding::BinaryLittleEndian | PlyEncoding::BinaryBigEndian => {
            let little = encoding == PlyEncoding::BinaryLittleEndian;
            let material_bytes = if columns.material.is_some() { width } else { 0 };
            out.reserve(points.len() * (4 * columns.floats.len() + material_bytes));
            for p in points {
                row.clear();
                (columns.values)(p, &mut row);
                for x in &row {
                    out.extend_from_slice(&if little { x.to_le_bytes() } else { x.to_be_bytes() });
                }
                if let Some(material) = columns.material {
                    // The low `width` bytes, in the file's order.
                    let m = material(p);
                    let (le, be) = (m.to_le_bytes(), m.to_be_bytes());
                    out.extend_from_slice(if little { &le[..width] } else { &be[4 - width..] });
                }
            }
        }
    }
    out
}

/// `ply::PropertyAccess` for a reader's vertex type `$point` that has a method
/// `set(&mut self, key: &str, value: f32) -> ply::PropertyAccessResult` and a field
/// `material: i64`: float and double values go to `set` (doubles rounded to `f32`), an
/// integer of any type named `material` to the field; `$new` is a blank vertex.
macro_rules! point_access {
    ($point:ty, $new:expr) => {
        impl ply::PropertyAccess for $point {
            fn new() -> Self {
                $new
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

        impl $point {
            fn set_material(&mut self, key: &str, value: i64) -> ply::PropertyAccessResult {
                if key != "material" {
                    return ply::PropertyAccessResult::Ignored;
                }
                self.material = value;
                ply::PropertyAccessResult::Set
            }
        }
    };
}
pub(super) use point_access;
