//! Writes a [`Scene`] as RON in the format of docs/scene-format.md: the model's serde
//! `Serialize` (what is written, and which values at their defaults are left out, is
//! the model's serde attributes and `model/text.rs`) through a serializer that lays the text
//! out.
//!
//! The layout is fixed and readable, not ron's pretty printer: the scene's fields one
//! per line, its camera and settings a field per line, its materials a `{ "name": ...
//! }` map with one material per line, one item per line in every list (a terrain, the
//! one item with a list of its own, a field per line), everything else on one line;
//! struct names left out except the scene's, variant names written. Floats use Rust's
//! shortest round-trip form, which ron reads back to the same bits, so `parse(to_ron(s))
//! == s` for a valid scene and `to_ron` of that is the same text again.

use std::fmt::{self, Display, Write};

use serde::Serialize;
use serde::ser;

use super::model::Scene;
use super::model::text;

/// Variants written as a block, a field per line, when they are items of a list.
const BLOCK_ITEMS: [&str; 1] = ["Heightmap"];

/// Spaces per level of nesting.
const INDENT: usize = 4;

/// The RON text of `scene`.
pub fn to_ron(scene: &Scene) -> String {
    let mut out = String::with_capacity(512 + 80 * scene.spheres.len());
    text::writing(&scene.materials, || scene.serialize(Writer { out: &mut out, at: At::Root }))
        .expect("every value of the model has a text form");
    out.push('\n');
    out
}

/// Where the value being written goes, which decides its layout.
#[derive(Clone, Copy)]
enum At {
    /// The scene itself: a block, with its name.
    Root,
    /// A field (or map value) of a block whose lines are at this indent: a struct,
    /// list or map written here is a block too, closing at this indent.
    InBlock(usize),
    /// An item of a list written as a block, on a line of its own at this indent.
    BlockItem(usize),
    /// Inside a line.
    Inline,
}

/// The serializer that lays the text out.
struct Writer<'o> {
    out: &'o mut String,
    at: At,
}

/// The only error: a value the format has no text for (a map with a key that is not a
/// string, bytes), which the model never holds.
#[derive(Debug)]
struct Unwritable(String);

impl Display for Unwritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unwritable {}

impl ser::Error for Unwritable {
    fn custom<T: Display>(msg: T) -> Unwritable {
        Unwritable(msg.to_string())
    }
}

type Result<T> = std::result::Result<T, Unwritable>;

impl<'o> Writer<'o> {
    fn write(self, value: impl Display) -> Result<()> {
        let _ = write!(self.out, "{value}");
        Ok(())
    }

    /// Opens a compound value: `name` (a variant's, or the scene's) and its opening
    /// bracket, laid out as a block (ending at `indent`) or inline.
    fn open(self, name: &str, open: char, close: char, block: Option<usize>) -> Compound<'o> {
        let _ = write!(self.out, "{name}{open}");
        if block.is_some() {
            self.out.push('\n');
        }
        Compound { out: self.out, block, close, count: 0 }
    }

    /// The indent a list, map or struct written here ends at, when it is a block.
    fn block(&self) -> Option<usize> {
        match self.at {
            At::Root => Some(0),
            At::InBlock(indent) => Some(indent),
            At::BlockItem(_) | At::Inline => None,
        }
    }
}

/// A list, tuple, map, struct or variant being written.
struct Compound<'o> {
    out: &'o mut String,
    /// The indent of its closing bracket, when it is a block.
    block: Option<usize>,
    close: char,
    /// Items written so far.
    count: usize,
}

impl Compound<'_> {
    /// Starts an item (after `name: ` when it has one) and says where its value goes.
    fn item(&mut self, name: Option<&str>, in_list: bool) -> At {
        let at = match self.block {
            Some(indent) => {
                let inner = indent + INDENT;
                let _ = write!(self.out, "{:inner$}", "");
                if in_list { At::BlockItem(inner) } else { At::InBlock(inner) }
            }
            None => {
                if self.count > 0 {
                    self.out.push_str(", ");
                }
                At::Inline
            }
        };
        if let Some(name) = name {
            let _ = write!(self.out, "{name}: ");
        }
        self.count += 1;
        at
    }

    fn value(&mut self, name: Option<&str>, in_list: bool, value: &(impl Serialize + ?Sized)) -> Result<()> {
        let at = self.item(name, in_list);
        value.serialize(Writer { out: self.out, at })?;
        if self.block.is_some() {
            self.out.push_str(",\n");
        }
        Ok(())
    }

    fn end(self) -> Result<()> {
        if let Some(indent) = self.block {
            let _ = write!(self.out, "{:indent$}", "");
        }
        self.out.push(self.close);
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.value(None, true, value)
    }

    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.value(None, true, value)
    }

    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.value(None, true, value)
    }

    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.value(None, true, value)
    }

    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.item(None, false);
        key.serialize(Writer { out: self.out, at: At::Inline })?;
        self.out.push_str(": ");
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let at = match self.block {
            Some(indent) => At::InBlock(indent + INDENT),
            None => At::Inline,
        };
        value.serialize(Writer { out: self.out, at })?;
        if self.block.is_some() {
            self.out.push_str(",\n");
        }
        Ok(())
    }

    /// An empty map is `{}`, whatever its layout.
    fn end(self) -> Result<()> {
        if self.count == 0 && self.block.is_some() {
            self.out.pop();
            self.out.push(self.close);
            return Ok(());
        }
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.value(Some(key), false, value)
    }

    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.value(Some(key), false, value)
    }

    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl<'o> ser::Serializer for Writer<'o> {
    type Ok = ();
    type Error = Unwritable;
    type SerializeSeq = Compound<'o>;
    type SerializeTuple = Compound<'o>;
    type SerializeTupleStruct = Compound<'o>;
    type SerializeTupleVariant = Compound<'o>;
    type SerializeMap = Compound<'o>;
    type SerializeStruct = Compound<'o>;
    type SerializeStructVariant = Compound<'o>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.write(v)
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        self.write(v)
    }

    fn serialize_i16(self, v: i16) -> Result<()> {
        self.write(v)
    }

    fn serialize_i32(self, v: i32) -> Result<()> {
        self.write(v)
    }

    fn serialize_i64(self, v: i64) -> Result<()> {
        self.write(v)
    }

    fn serialize_u8(self, v: u8) -> Result<()> {
        self.write(v)
    }

    fn serialize_u16(self, v: u16) -> Result<()> {
        self.write(v)
    }

    fn serialize_u32(self, v: u32) -> Result<()> {
        self.write(v)
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        self.write(v)
    }

    /// The shortest form that reads back to the same bits (`1.0`, `0.1`, `1e-7`).
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.write(format_args!("{v:?}"))
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        self.write(format_args!("{v:?}"))
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.write(format_args!("{v:?}"))
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        self.write(string(v))
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(Unwritable("bytes have no text form".into()))
    }

    fn serialize_none(self) -> Result<()> {
        self.write("None")
    }

    /// Written as the value alone: ron reads it back with `implicit_some`.
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        self.write("()")
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.write("()")
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.write(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let _ = write!(self.out, "{variant}(");
        value.serialize(Writer { out: self.out, at: At::Inline })?;
        self.out.push(')');
        Ok(())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'o>> {
        let block = self.block();
        Ok(self.open("", '[', ']', block))
    }

    fn serialize_tuple(self, _: usize) -> Result<Compound<'o>> {
        Ok(self.open("", '(', ')', None))
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'o>> {
        Ok(self.open("", '(', ')', None))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'o>> {
        Ok(self.open(variant, '(', ')', None))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'o>> {
        let block = self.block();
        Ok(self.open("", '{', '}', block))
    }

    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Compound<'o>> {
        let name = if matches!(self.at, At::Root) { name } else { "" };
        let block = self.block();
        Ok(self.open(name, '(', ')', block))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'o>> {
        let block = match self.at {
            At::BlockItem(indent) if BLOCK_ITEMS.contains(&variant) => Some(indent),
            _ => None,
        };
        Ok(self.open(variant, '(', ')', block))
    }
}

/// A RON string literal; escapes only what RON requires, keeps other Unicode as is.
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    /// A value alone, as a line of a list writes it.
    fn inline(value: &impl Serialize) -> String {
        let mut out = String::new();
        value.serialize(Writer { out: &mut out, at: At::Inline }).expect("writable");
        out
    }

    #[test]
    fn floats_use_the_shortest_round_trip_form() {
        let v3 = |v: Vec3| inline(&v.to_array());
        assert_eq!(v3(Vec3::new(1.0, 0.1, -0.0)), "(1.0, 0.1, -0.0)");
        assert_eq!(v3(Vec3::new(1e-7, 1e20, 16_384.0)), "(1e-7, 1e20, 16384.0)");
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(string("plain"), "\"plain\"");
        assert_eq!(string("a\"b\\c\nd\u{1}é"), r#""a\"b\\c\nd\u{1}é""#);
    }
}
