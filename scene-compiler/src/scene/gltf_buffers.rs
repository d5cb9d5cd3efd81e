//! A glTF file's buffers, loaded, with every buffer view that `EXT_meshopt_compression`
//! or `KHR_meshopt_compression` compresses decoded into place (what gltfpack `-c`
//! writes), so that accessors then read them as any other view.
//!
//! The extensions' rules (the Khronos READMEs, "JSON schema updates" and "Fallback
//! buffers"): a compressed view names the buffer, offset and length of its compressed
//! bytes, `count` elements of `byteStride` bytes, a `mode` (`ATTRIBUTES`, `TRIANGLES`,
//! `INDICES`) and for attributes a `filter` (`NONE`, `OCTAHEDRAL`, `QUATERNION`,
//! `EXPONENTIAL`, and KHR's `COLOR`) applied after decoding; its own buffer is usually
//! a placeholder without data (`fallback: true`, or no `uri`), which is not read: only
//! the ranges of its views are made, from the decoded bytes. Decoding is meshoptimizer's
//! (`meshopt`), whose decoders are safe on untrusted input (they may produce garbage,
//! which the readers' checks catch: indices past the vertices, non-finite values).
//!
//! Not here: reading accessors (`gltf_primitive`), checking them (`gltf_check`).

use std::collections::HashSet;
use std::path::Path;

use gltf::buffer::Data;
use gltf::json::Value;
use serde::Deserialize;

use crate::limits;

/// The two names of the meshopt compression extension, the same JSON under each.
const MESHOPT: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// The file's buffers in document order: loaded as the crate loads them (`.bin` files,
/// data URIs, the GLB chunk), placeholders made from their decoded views.
pub(super) fn load(
    document: &gltf::Document,
    folder: &Path,
    blob: Option<Vec<u8>>,
) -> Result<Vec<Data>, String> {
    let views = compressed_views(document)?;
    let placeholders = placeholders(document, &views, blob.is_some())?;
    let lengths = placeholder_lengths(document, &placeholders)?;
    let mut blob = blob;
    let mut buffers = Vec::with_capacity(document.buffers().len());
    for buffer in document.buffers() {
        if placeholders[buffer.index()] {
            buffers.push(Data(vec![0; lengths[buffer.index()]]));
            continue;
        }
        let data = Data::from_source_and_blob(buffer.source(), Some(folder), &mut blob)
            .map_err(|e| format!("buffers: {e}"))?;
        if data.len() < buffer.length() {
            let e = gltf::Error::BufferLength {
                buffer: buffer.index(),
                expected: buffer.length(),
                actual: data.len(),
            };
            return Err(format!("buffers: {e}"));
        }
        buffers.push(data);
    }
    decode(document, &views, &mut buffers)?;
    Ok(buffers)
}

/// One view's `EXT_meshopt_compression` (or KHR) object.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Compressed {
    buffer: usize,
    #[serde(default)]
    byte_offset: u64,
    byte_length: u64,
    byte_stride: u64,
    count: u64,
    mode: Mode,
    #[serde(default)]
    filter: Filter,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "UPPERCASE")]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "UPPERCASE")]
enum Filter {
    #[default]
    None,
    Octahedral,
    Quaternion,
    Exponential,
    Color,
}

/// A compressed view: its index, its extension's name and object.
struct View {
    index: usize,
    extension: &'static str,
    compressed: Compressed,
}

/// Every view with a meshopt extension, its object read and held to the extension's rules.
fn compressed_views(document: &gltf::Document) -> Result<Vec<View>, String> {
    let mut views = Vec::new();
    for view in document.views() {
        let Some((extension, value)) = MESHOPT.iter().find_map(|&e| Some((e, view.extension_value(e)?)))
        else {
            continue;
        };
        let at = || format!("buffer view {} ({extension})", view.index());
        let compressed: Compressed =
            gltf::json::deserialize::from_value(value.clone()).map_err(|e| format!("{}: {e}", at()))?;
        let c = &compressed;
        if c.filter == Filter::Color && extension != "KHR_meshopt_compression" {
            return Err(format!("{}: filter COLOR is KHR_meshopt_compression's only", at()));
        }
        rules(c, view.length() as u64, view.stride()).map_err(|e| format!("{}: {e}", at()))?;
        expansion(c).map_err(|e| format!("{}: {e}", at()))?;
        if c.buffer >= document.buffers().len() {
            return Err(format!(
                "{}: names buffer {}, but the file has {}",
                at(),
                c.buffer,
                document.buffers().len()
            ));
        }
        views.push(View { index: view.index(), extension, compressed });
    }
    let total: u64 = views.iter().map(|v| v.compressed.count * v.compressed.byte_stride).sum();
    if total > limits::MAX_INPUT_BYTES {
        return Err(format!(
            "its compressed buffer views decode to {total} bytes, more than the {} a model file may hold",
            limits::MAX_INPUT_BYTES
        ));
    }
    Ok(views)
}

/// The extension's validity rules for one view whose parent is `length` bytes long.
fn rules(c: &Compressed, length: u64, parent_stride: Option<usize>) -> Result<(), String> {
    let (stride, count) = (c.byte_stride, c.count);
    if stride.checked_mul(count) != Some(length) {
        return Err(format!("{count} elements of {stride} bytes do not fill the view's {length} bytes"));
    }
    if parent_stride.is_some_and(|s| s as u64 != stride) {
        return Err(format!("byteStride {stride} differs from the view's {}", parent_stride.unwrap_or(0)));
    }
    let stride_ok = match (c.mode, c.filter) {
        (Mode::Attributes, Filter::None | Filter::Exponential) => {
            stride % 4 == 0 && (4..=256).contains(&stride)
        }
        (Mode::Attributes, Filter::Octahedral | Filter::Color) => stride == 4 || stride == 8,
        (Mode::Attributes, Filter::Quaternion) => stride == 8,
        (Mode::Triangles | Mode::Indices, Filter::None) => stride == 2 || stride == 4,
        (mode, filter) => return Err(format!("mode {mode:?} takes no filter, but {filter:?} is given")),
    };
    if !stride_ok {
        return Err(format!(
            "byteStride {stride} is not one that mode {:?} with filter {:?} allows",
            c.mode, c.filter
        ));
    }
    if c.mode == Mode::Triangles && count % 3 != 0 {
        return Err(format!("mode TRIANGLES with {count} indices, not a multiple of 3"));
    }
    Ok(())
}

/// The most a stream can expand, checked before anything is allocated for it (a count
/// in the file is not trusted): meshoptimizer's attribute codec spends at least one
/// control byte on up to 256 elements of 4 bytes (version 1's zero channels; version 0
/// spends more), its triangle codec a byte per triangle, its index codec a byte per index.
fn expansion(c: &Compressed) -> Result<(), String> {
    let most = match c.mode {
        Mode::Attributes => c.byte_length.saturating_mul(1024),
        Mode::Triangles => c.byte_length.saturating_mul(3).saturating_mul(c.byte_stride),
        Mode::Indices => c.byte_length.saturating_mul(c.byte_stride),
    };
    let claimed = c.count.saturating_mul(c.byte_stride);
    if claimed > most {
        return Err(format!(
            "{} compressed bytes cannot hold {} elements of {} bytes ({:?} streams expand at most {}-fold)",
            c.byte_length,
            c.count,
            c.byte_stride,
            c.mode,
            most / c.byte_length.max(1)
        ));
    }
    Ok(())
}

/// Which buffers are not read: those marked `fallback`, and those without a `uri` that
/// no GLB chunk fills (a placeholder that is not buffer 0 of a GLB) which compressed
/// views decode into. Every view of a placeholder must be a compressed one.
fn placeholders(document: &gltf::Document, views: &[View], has_blob: bool) -> Result<Vec<bool>, String> {
    let compressed: HashSet<usize> = views.iter().map(|v| v.index).collect();
    let mut decoded_into = vec![false; document.buffers().len()];
    for view in document.views().filter(|w| compressed.contains(&w.index())) {
        decoded_into[view.buffer().index()] = true;
    }
    let placeholders: Vec<bool> = document
        .buffers()
        .map(|buffer| {
            let fallback = MESHOPT.iter().any(|&e| {
                buffer.extension_value(e).and_then(|v| v.get("fallback")).and_then(Value::as_bool)
                    == Some(true)
            });
            let empty =
                matches!(buffer.source(), gltf::buffer::Source::Bin) && (buffer.index() > 0 || !has_blob);
            fallback || (empty && decoded_into[buffer.index()])
        })
        .collect();
    for view in document.views() {
        let b = view.buffer().index();
        if placeholders[b] && !compressed.contains(&view.index()) {
            return Err(format!(
                "buffer view {} reads buffer {b}, a meshopt placeholder without data, but is not compressed",
                view.index()
            ));
        }
    }
    for v in views {
        if placeholders[v.compressed.buffer] {
            return Err(format!(
                "buffer view {} ({}) takes its compressed bytes from buffer {}, a placeholder without data",
                v.index, v.extension, v.compressed.buffer
            ));
        }
    }
    Ok(placeholders)
}

/// Each placeholder's length: as far as its views reach (within its `byteLength` and
/// the limit on any model file), zero for other buffers. Its zeros are allocated, not
/// written (a zeroed allocation), so a view far into a large placeholder costs only the
/// pages its decoded bytes fill.
fn placeholder_lengths(document: &gltf::Document, placeholders: &[bool]) -> Result<Vec<usize>, String> {
    let mut lengths = vec![0; placeholders.len()];
    for view in document.views().filter(|v| placeholders[v.buffer().index()]) {
        let buffer = view.buffer();
        let reach = view.offset() as u64 + view.length() as u64;
        if reach > buffer.length() as u64 || reach > limits::MAX_INPUT_BYTES {
            return Err(format!(
                "buffer view {} ({} bytes from byte {}) reaches past its buffer {}'s {} bytes",
                view.index(),
                view.length(),
                view.offset(),
                buffer.index(),
                buffer.length().min(limits::MAX_INPUT_BYTES as usize)
            ));
        }
        lengths[buffer.index()] = lengths[buffer.index()].max(reach as usize);
    }
    Ok(lengths)
}

/// Decodes every compressed view into its range of its parent buffer.
fn decode(document: &gltf::Document, views: &[View], buffers: &mut [Data]) -> Result<(), String> {
    for v in views {
        let view = document.views().nth(v.index).expect("a view of the document");
        let at = || format!("buffer view {} ({})", v.index, v.extension);
        let c = &v.compressed;
        let source = &buffers[c.buffer].0;
        let bytes = c
            .byte_offset
            .checked_add(c.byte_length)
            .filter(|&end| end <= source.len() as u64)
            .map(|end| &source[c.byte_offset as usize..end as usize])
            .ok_or_else(|| {
                format!(
                    "{}: {} compressed bytes from byte {} reach past buffer {}'s {} bytes",
                    at(),
                    c.byte_length,
                    c.byte_offset,
                    c.buffer,
                    source.len()
                )
            })?;
        let decoded = decode_view(c, bytes).map_err(|e| format!("{}: {e}", at()))?;
        let parent = &mut buffers[view.buffer().index()].0;
        let range = view.offset()..view.offset().saturating_add(view.length());
        let length = parent.len();
        let target = parent.get_mut(range).ok_or_else(|| {
            format!(
                "{}: its {} bytes from byte {} reach past its {length}-byte buffer",
                at(),
                view.length(),
                view.offset()
            )
        })?;
        target.copy_from_slice(&decoded);
    }
    Ok(())
}

/// One view's bytes, decoded by its mode and filter: `count * byteStride` of them.
fn decode_view(c: &Compressed, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let (count, stride) = (c.count as usize, c.byte_stride as usize);
    let failed = |e: meshopt::Error| format!("its {:?} stream cannot be decoded ({e})", c.mode);
    let u16s = |v: Vec<u16>| v.into_iter().flat_map(u16::to_le_bytes).collect();
    let u32s = |v: Vec<u32>| v.into_iter().flat_map(u32::to_le_bytes).collect();
    Ok(match (c.mode, stride) {
        (Mode::Attributes, _) => {
            let mut data = attributes(bytes, count, stride)?.map_err(failed)?;
            match (c.filter, stride) {
                (Filter::None, _) => {}
                (Filter::Octahedral, 4) => filtered::<[i8; 4]>(&mut data, meshopt::decode_filter_oct),
                (Filter::Octahedral, _) => filtered::<[i16; 4]>(&mut data, meshopt::decode_filter_oct),
                (Filter::Quaternion, _) => filtered::<[i16; 4]>(&mut data, meshopt::decode_filter_quat),
                (Filter::Exponential, _) => filtered::<[u32; 1]>(&mut data, meshopt::decode_filter_exp::<1>),
                (Filter::Color, 4) => filtered::<[u8; 4]>(&mut data, meshopt::decode_filter_color),
                (Filter::Color, _) => filtered::<[u16; 4]>(&mut data, meshopt::decode_filter_color),
            }
            data
        }
        (Mode::Triangles, 2) => u16s(meshopt::decode_index_buffer::<u16>(bytes, count).map_err(failed)?),
        (Mode::Triangles, _) => u32s(meshopt::decode_index_buffer::<u32>(bytes, count).map_err(failed)?),
        (Mode::Indices, 2) => u16s(meshopt::decode_index_sequence::<u16>(bytes, count).map_err(failed)?),
        (Mode::Indices, _) => u32s(meshopt::decode_index_sequence::<u32>(bytes, count).map_err(failed)?),
    })
}

/// Applies a meshopt filter to `data` seen as elements of `T` (copied to aligned memory
/// and back).
fn filtered<T: bytemuck::Pod>(data: &mut [u8], filter: impl FnOnce(&mut [T])) {
    let mut typed = vec![T::zeroed(); data.len() / size_of::<T>()];
    bytemuck::cast_slice_mut::<T, u8>(&mut typed).copy_from_slice(data);
    filter(&mut typed);
    data.copy_from_slice(bytemuck::cast_slice(&typed));
}

/// An element of `N` bytes, for meshopt's vertex decoder (which takes the element size
/// from the type).
#[derive(Clone, Copy)]
struct Element<const N: usize>([u8; N]);

impl<const N: usize> Default for Element<N> {
    fn default() -> Self {
        Element([0; N])
    }
}

/// `count` elements of `N` bytes from an attribute stream.
fn attributes_of<const N: usize>(bytes: &[u8], count: usize) -> Result<Vec<u8>, meshopt::Error> {
    let elements = meshopt::decode_vertex_buffer::<Element<N>>(bytes, count)?;
    Ok(elements.into_iter().flat_map(|e| e.0).collect())
}

/// `count` elements of `stride` bytes (a multiple of 4, 4 to 256, as [`rules`] checked)
/// from an attribute stream.
fn attributes(bytes: &[u8], count: usize, stride: usize) -> Result<Result<Vec<u8>, meshopt::Error>, String> {
    macro_rules! by_stride {
        ($($n:literal)*) => {
            match stride {
                $($n => Ok(attributes_of::<$n>(bytes, count)),)*
                _ => Err(format!("byteStride {stride} is not a multiple of 4 from 4 to 256")),
            }
        };
    }
    by_stride!(4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112 116 120
        124 128 132 136 140 144 148 152 156 160 164 168 172 176 180 184 188 192 196 200 204 208 212 216 220
        224 228 232 236 240 244 248 252 256)
}
