//! Binary little-endian instance files read in bulk: the layout `scene-gen forest` and
//! [`instance_file::write`](super::instance_file::write) produce (a `vertex` element
//! alone, of `float` properties among `x y z rx ry rz scale` and an optional integer
//! `material`), read straight into the instances' values on every core, without the
//! crate's per-property calls. A million instances took the crate path about a tenth of
//! a second of a reload on the 2-core dev machine.
//!
//! The header is the crate's (`instance_file::read` reads and checks it); any other
//! layout gives `None` and the crate reads the file, so errors and results stay the
//! crate path's: the values come out bit for bit as it gives them (a test holds the two
//! together), and become instances through the same `instance_file::placed`.

use std::fs::File;

use ply_rs_bw::ply::{ElementDef, Encoding, Header, PropertyType, ScalarType};
use rayon::prelude::*;

use super::instance_file::{FLOATS, PlyInstance, placed};
use super::model::PlacedInstance;
use super::ply_bulk::{PER_TASK, read_at};

/// Where one value of a vertex is: its byte offset in the vertex and what it is.
#[derive(Clone, Copy)]
enum Slot {
    /// A `float` for `FLOATS[k]`.
    Float { at: usize, k: usize },
    /// The integer `material`, `size` bytes, signed or not.
    Material { at: usize, size: usize, signed: bool },
}

/// The file's instances when its payload has the layout this reads, else `None` (the
/// crate reads it); each vertex made an instance as the crate path makes it
/// (`instance_file::placed`), on every core (at 10^6 instances, 40 MB of fresh pages). `header` is the crate's reading of the header that ends at byte
/// `header_len` of `file`, which is `file_len` bytes long.
pub(super) fn read(
    file: &File,
    file_len: u64,
    header_len: u64,
    header: &Header,
) -> Result<Option<Vec<PlacedInstance>>, String> {
    if header.encoding != Encoding::BinaryLittleEndian || header.elements.len() != 1 {
        return Ok(None);
    }
    let vertex = &header.elements[0];
    let Some((slots, stride)) = layout(vertex) else { return Ok(None) };
    // The count is held against the file's length before anything is allocated for it.
    let fits = vertex.count.checked_mul(stride).and_then(|n| header_len.checked_add(u64::try_from(n).ok()?));
    if fits.is_none_or(|end| end > file_len) {
        return Ok(None);
    }
    let has_material = slots.iter().any(|slot| matches!(slot, Slot::Material { .. }));
    let mut instances: Vec<PlacedInstance> = Vec::with_capacity(vertex.count);
    instances.par_extend((0..vertex.count).into_par_iter().map(|_| PlacedInstance::default()));
    // Each task its vertices' instances, and the first of them whose material is no index.
    let bad = instances.par_chunks_mut(PER_TASK).enumerate().map(|(task, instances)| {
        let bytes = read_at(file, header_len + (task * PER_TASK * stride) as u64, instances.len() * stride)?;
        let mut bad = None;
        for (j, (instance, v)) in instances.iter_mut().zip(bytes.chunks_exact(stride)).enumerate() {
            let mut p = PlyInstance::identity();
            for &slot in &slots {
                match slot {
                    Slot::Float { at, k } => {
                        p.values[k] = f32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]])
                    }
                    Slot::Material { at, size, signed } => p.material = integer(&v[at..at + size], signed),
                }
            }
            match placed(task * PER_TASK + j, p.values, has_material.then_some(p.material)) {
                Ok(placed) => *instance = placed,
                Err(error) => _ = bad.get_or_insert(error),
            }
        }
        Ok::<_, String>(bad)
    });
    let bad: Vec<Option<String>> = bad.collect::<Result<_, String>>()?;
    match bad.into_iter().flatten().next() {
        Some(error) => Err(error),
        None => Ok(Some(instances)),
    }
}

/// The slots of a vertex and its size in bytes, when every property is a `float` of
/// `FLOATS` or an integer `material` (what `instance_file::check_properties` lets
/// through; a property of any other name or type leaves the file to the crate).
fn layout(vertex: &ElementDef) -> Option<(Vec<Slot>, usize)> {
    let mut slots = Vec::with_capacity(vertex.properties.len());
    let mut at = 0;
    for property in vertex.properties.values() {
        let PropertyType::Scalar(kind) = &property.data_type else { return None };
        let (slot, size) = if property.name == "material" {
            let (size, signed) = material_width(kind)?;
            (Slot::Material { at, size, signed }, size)
        } else if *kind == ScalarType::Float {
            (Slot::Float { at, k: FLOATS.iter().position(|&f| f == property.name)? }, 4)
        } else {
            return None;
        };
        slots.push(slot);
        at += size;
    }
    Some((slots, at))
}

/// The bytes and signedness of an integer `material` of type `kind`; `None` for a float.
fn material_width(kind: &ScalarType) -> Option<(usize, bool)> {
    match kind {
        ScalarType::Char => Some((1, true)),
        ScalarType::UChar => Some((1, false)),
        ScalarType::Short => Some((2, true)),
        ScalarType::UShort => Some((2, false)),
        ScalarType::Int => Some((4, true)),
        ScalarType::UInt => Some((4, false)),
        ScalarType::Float | ScalarType::Double => None,
    }
}

/// The little-endian integer of 1, 2 or 4 bytes `b`, sign-extended when `signed`, as the
/// crate path widens it.
fn integer(b: &[u8], signed: bool) -> i64 {
    let mut raw = [0u8; 4];
    raw[..b.len()].copy_from_slice(b);
    let bits = u32::from_le_bytes(raw);
    let shift = 32 - 8 * b.len() as u32;
    if signed { i64::from(((bits << shift) as i32) >> shift) } else { i64::from(bits) }
}

#[cfg(test)]
mod tests {
    use std::io::Seek as _;

    use glam::Vec3;
    use ply_rs_bw::parser;

    use super::super::instance_file::{self, PlyInstance};
    use super::super::model::{PlacedInstance, Transform};
    use super::super::ply_points::PlyEncoding;

    /// `n` instances that turn, scale and name materials up to `most`.
    fn instances(n: usize, most: u32) -> Vec<PlacedInstance> {
        (0..n)
            .map(|i| {
                let f = i as f32;
                PlacedInstance {
                    transform: Transform {
                        translate: Vec3::new(f * 0.37 - 50.0, (f * 0.11).sin(), -f * 1e-3),
                        rotate_deg: Vec3::new(f % 360.0, (f * 7.0) % 90.0, -(f % 45.0)),
                        scale: Vec3::splat(0.5 + (i % 13) as f32 * 0.1),
                    },
                    material: Some(i as u32 % (most + 1)),
                }
            })
            .collect()
    }

    /// Whether the bulk reader takes the file at `path`: reads it or says what is wrong
    /// in it (it gives `None` otherwise).
    fn bulk_reads(path: &std::path::Path) -> bool {
        let file = std::fs::File::open(path).expect("open");
        let len = file.metadata().expect("metadata").len();
        let mut reader = parser::Reader::new(std::io::BufReader::new(&file));
        let header = parser::Parser::<PlyInstance>::new().read_header(&mut reader).expect("header");
        let at = reader.get_mut().stream_position().expect("position");
        !matches!(super::read(&file, len, at, &header), Ok(None))
    }

    /// Little-endian files (read in bulk, across many tasks' pieces) give what the same
    /// instances written big-endian (read by the crate) give, with every width of
    /// material, and what was written.
    #[test]
    fn bulk_reads_what_the_crate_reads() {
        let dir = tempfile::tempdir().expect("temp dir");
        for most in [200, 60_000, 100_000] {
            let written = instances(3 * super::PER_TASK + 17, most);
            let mut read = Vec::new();
            for (encoding, name) in
                [(PlyEncoding::BinaryLittleEndian, "le.ply"), (PlyEncoding::BinaryBigEndian, "be.ply")]
            {
                let path = dir.path().join(name);
                std::fs::write(&path, instance_file::write(&written, encoding)).expect("write");
                assert_eq!(bulk_reads(&path), encoding == PlyEncoding::BinaryLittleEndian, "{name}");
                read.push(instance_file::read(&path).expect("read").instances);
            }
            assert!(read[0] == written, "materials up to {most}: the bulk read is what was written");
            assert!(read[0] == read[1], "materials up to {most}: bulk and crate agree");
        }
    }

    /// A negative `char` material is the same error on both paths; a `double` property
    /// leaves the file to the crate, which reads it.
    #[test]
    fn bulk_and_crate_agree_on_signed_materials_and_leave_doubles_to_the_crate() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = |name: &str, format: &str, x_type: &str, payload: &[u8]| {
            let header = format!(
                "ply\nformat {format} 1.0\nelement vertex 2\nproperty {x_type} x\nproperty float y\nproperty float z\nproperty char material\nend_header\n"
            );
            let path = dir.path().join(name);
            std::fs::write(&path, [header.as_bytes(), payload].concat()).expect("write");
            path
        };
        let row = |x: f32, m: i8, little: bool| {
            let f = |v: f32| if little { v.to_le_bytes() } else { v.to_be_bytes() };
            [&f(x)[..], &f(2.0), &f(3.0), &[m as u8]].concat()
        };
        let errors: Vec<String> = [("binary_little_endian", true), ("binary_big_endian", false)]
            .into_iter()
            .map(|(format, little)| {
                let payload = [row(1.0, 4, little), row(5.0, -2, little)].concat();
                let path = file(&format!("{format}.ply"), format, "float", &payload);
                assert_eq!(bulk_reads(&path), little);
                instance_file::read(&path).expect_err("a negative material")
            })
            .collect();
        assert!(errors[0].contains("vertex 1 has material -2"), "{}", errors[0]);
        assert_eq!(errors[0], errors[1]);
        let doubles =
            [&4.0f64.to_le_bytes()[..], &2.0f32.to_le_bytes(), &3.0f32.to_le_bytes(), &[1]].concat();
        let path = file("double.ply", "binary_little_endian", "double", &[doubles.clone(), doubles].concat());
        assert!(!bulk_reads(&path), "a double is the crate's");
        let read = instance_file::read(&path).expect("the crate reads it").instances;
        assert_eq!(read[1].transform.translate, Vec3::new(4.0, 2.0, 3.0));
        assert_eq!(read[1].material, Some(1));
    }
}
