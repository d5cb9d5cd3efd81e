//! What `tobj` (4.0.5) trusts in an OBJ or MTL file and a hostile one can break,
//! checked on the text before tobj reads it (issue 37):
//!
//! - An MTL colour line with fewer than three numbers (`Kd 1 1`): tobj's
//!   `parse_float3` collects what is there and unwraps its conversion to `[f32; 3]`, a
//!   panic: [`mtl`].
//! - Face indices: tobj turns a relative (negative) index into an absolute one with
//!   `(count as isize + x) as usize` and then computes `vt * 2 + 1`, `vn * 3 + 2`
//!   unchecked, which overflows (a panic in a debug build, such as the fuzz targets')
//!   for an index before the first element or near `isize::MAX`: [`obj`].

/// The largest face index an OBJ file may write: more than the format's triangles
/// could ever name, far below where tobj's index arithmetic overflows.
const MAX_INDEX: i64 = 1 << 32;

/// Each `Ka`, `Kd`, `Ks` and `Ke` line has three values.
pub(super) fn mtl(text: &str) -> Result<(), String> {
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if let Some(key @ ("Ka" | "Kd" | "Ks" | "Ke")) = words.next() {
            let values = words.take(3).count();
            if values < 3 {
                return Err(format!("line {}: `{key}` has {values} value(s), it needs three (r g b)", n + 1));
            }
        }
    }
    Ok(())
}

/// Every index of a face, line or point element is a number that names an element
/// written before it when relative, and is at most [`MAX_INDEX`] when absolute. (An
/// absolute index past the elements is left to tobj, which refuses it.)
pub(super) fn obj(text: &str) -> Result<(), String> {
    // Positions, texture coordinates, normals written so far.
    let mut counts = [0i64; 3];
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => counts[0] += 1,
            Some("vt") => counts[1] += 1,
            Some("vn") => counts[2] += 1,
            Some("f" | "l" | "p") => {
                for word in words {
                    for (k, part) in word.split('/').enumerate().filter(|(_, p)| !p.is_empty()) {
                        let what =
                            ["vertex", "texture coordinate", "normal"].get(k).copied().unwrap_or("index");
                        let bad = |why: &str| Err(format!("line {}: {what} index `{part}` {why}", n + 1));
                        let Ok(x) = part.parse::<i64>() else { return bad("is not an integer") };
                        let count = counts.get(k).copied().unwrap_or(0);
                        if x < 0 && count + x < 0 {
                            return bad(&format!("reaches before the first of the {count} written above it"));
                        }
                        if x > MAX_INDEX {
                            return bad("is out of range");
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_colours_and_wild_indices_are_named() {
        assert!(mtl("newmtl a\nKd 1 1 1\nKe 0 0 0 extra\n").is_ok());
        assert!(mtl("newmtl a\nKd 1 1\n").unwrap_err().contains("line 2: `Kd` has 2 value(s)"));
        assert!(mtl("Ka\n").is_err());
        assert!(obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf -1 -2 -3\n").is_ok());
        assert!(obj("v 0 0 0\nf 1 -2 1\n").unwrap_err().contains("line 2: vertex index `-2`"));
        assert!(obj("v 0 0 0\nvt 0 0\nf 1/-2 1/1 1/1\n").unwrap_err().contains("texture coordinate"));
        assert!(obj("f 9223372036854775807 1 1\n").is_err());
        assert!(obj("f 1/x/1 1 1\n").is_err());
    }
}
