//! What the three PLY readers (models in `mesh_file.rs`, `sphere_file.rs`,
//! `instance_file.rs`) ask of a header before reading its payload, and how they name a
//! property's type.
//!
//! ply-rs reads an element's entries one at a time into a value each, however few bytes
//! an entry takes: a binary element without properties takes none, so a header that
//! declares 2^40 of them would take memory without end from a file of a few bytes.

use ply_rs_bw::ply;

/// Refuses a header whose elements cannot all fit in the file's `size` bytes, each entry
/// at its fewest: a binary entry its scalars' and list counts' bytes, an ASCII entry a
/// character and a separator per property. An element without properties is refused
/// when it declares any entry.
pub(super) fn check_counts(header: &ply::Header, size: u64) -> Result<(), String> {
    let ascii = header.encoding == ply::Encoding::Ascii;
    for element in header.elements.values() {
        let least: u64 = element.properties.values().map(|p| least_bytes(&p.data_type, ascii)).sum();
        let count = element.count as u64;
        if count > 0 && least == 0 {
            return Err(format!(
                "element `{}` has no properties but declares {count} entries: a corrupt header",
                element.name
            ));
        }
        if count.saturating_mul(least) > size {
            return Err(format!(
                "element `{}` declares {count} entries of at least {least} bytes, more than the file's {size} bytes: a truncated or corrupt file",
                element.name
            ));
        }
    }
    Ok(())
}

/// The fewest bytes a value of type `t` takes in the payload.
fn least_bytes(t: &ply::PropertyType, ascii: bool) -> u64 {
    use ply::ScalarType::*;
    let scalar = |s: &ply::ScalarType| match s {
        Char | UChar => 1,
        Short | UShort => 2,
        Int | UInt | Float => 4,
        Double => 8,
    };
    match t {
        _ if ascii => 2,
        ply::PropertyType::Scalar(s) => scalar(s),
        // An empty list is its count alone.
        ply::PropertyType::List(count, _) => scalar(count),
    }
}

/// A property type as a PLY header spells it (`int`, `list of float`).
pub(super) fn type_name(t: &ply::PropertyType) -> String {
    let scalar = |s: &ply::ScalarType| format!("{s:?}").to_ascii_lowercase();
    match t {
        ply::PropertyType::Scalar(s) => scalar(s),
        ply::PropertyType::List(_, s) => format!("a list of {}", scalar(s)),
    }
}
