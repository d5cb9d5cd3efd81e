//! What the `gltf` crate (1.4) trusts in a file and a hostile one can break, checked
//! before the crate gets to it, so that a bad model is an error at the mesh's line and
//! never a panic (issue 37). Each check names the crate code it protects:
//!
//! - `gltf-json`'s validation indexes the accessors with a primitive's `POSITION`
//!   before it checks that the index is in range (`mesh.rs`, `primitive_validate_hook`):
//!   [`before_validation`].
//! - `Reader::read_indices` (and `read_tex_coords`) reach `unreachable!()` for a
//!   component type the spec does not allow there (float or i16 indices); the accessor
//!   iterator asserts that an element fits its `byteStride`; offsets and counts are
//!   added and multiplied unchecked (an overflow panic in a debug build, such as the
//!   fuzz targets'); a sparse accessor's index type is unwrapped unchecked: [`accessor`].
//! - `Image::source` unwraps the `mimeType` of an image in a buffer view, and the `uri`
//!   of one without a view: [`images`].
//! - A node listed as a child twice (glTF allows one parent) makes the node tree a DAG
//!   whose walk is exponential in its depth (a 9 KB file, 5.9 GB): [`node_tree`].

use std::collections::HashSet;
use std::path::Path;

use gltf::accessor::{DataType, Dimensions};
use gltf::json;

/// Index checks that the crate's own validation needs done first (it indexes with them).
pub(super) fn before_validation(root: &json::Root) -> Result<(), String> {
    let accessors = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if let Some(bad) = primitive.attributes.values().map(|i| i.value()).find(|&i| i >= accessors) {
                return Err(format!(
                    "mesh {m} primitive {p}: an attribute names accessor {bad}, but the file has {accessors}"
                ));
            }
        }
    }
    Ok(())
}

/// The extensions a file may require that this reader reads itself: the crate's
/// validation refuses every required extension it does not know, so these are taken out
/// of `extensionsRequired` by [`required_extensions`] before it validates.
pub(super) const READ_HERE: &[&str] = &[
    "KHR_mesh_quantization",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "KHR_draco_mesh_compression",
    "EXT_mesh_gpu_instancing",
];

/// Every extension the file requires is one we read (the crate's enabled ones, or
/// [`READ_HERE`], which are removed from the list so that the crate's validation accepts
/// them); any other is refused by name, with what is read.
pub(super) fn required_extensions(root: &mut json::Root) -> Result<(), String> {
    let known = |e: &str| READ_HERE.contains(&e) || json::extensions::ENABLED_EXTENSIONS.contains(&e);
    if let Some(unknown) = root.extensions_required.iter().find(|e| !known(e)) {
        let mut read: Vec<&str> =
            READ_HERE.iter().chain(json::extensions::ENABLED_EXTENSIONS).copied().collect();
        read.sort_unstable();
        return Err(format!(
            "the file requires the glTF extension `{unknown}`, which is not read here (required extensions read: {})",
            read.join(", ")
        ));
    }
    root.extensions_required.retain(|e| !READ_HERE.contains(&e.as_str()));
    Ok(())
}

/// Every image is in a buffer view with a `mimeType`, or at a `uri`.
pub(super) fn images(root: &json::Root) -> Result<(), String> {
    for (i, image) in root.images.iter().enumerate() {
        match (&image.buffer_view, &image.mime_type, &image.uri) {
            (Some(_), None, _) => {
                return Err(format!(
                    "image {i} is in a buffer view but has no `mimeType` (glTF requires one)"
                ));
            }
            (None, _, None) => return Err(format!("image {i} has neither a `bufferView` nor a `uri`")),
            _ => {}
        }
    }
    Ok(())
}

/// Every buffer in a file beside the model is a regular file of a sane size
/// (`files::open_input`): the crate reads it whole, a link to `/dev/zero` without end.
/// A name that does not exist as written is left to the crate (which decodes `%20` and
/// the like, and reports a missing file).
pub(super) fn buffer_files(root: &json::Root, folder: &Path) -> Result<(), String> {
    for (i, buffer) in root.buffers.iter().enumerate() {
        let Some(uri) = buffer.uri.as_deref().filter(|u| !u.starts_with("data:")) else { continue };
        match crate::files::open_input(&folder.join(uri), crate::limits::MAX_INPUT_BYTES) {
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                return Err(format!("buffer {i} (`{uri}`): {e}"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// glTF's node hierarchy is a forest: a node has at most one parent, and a scene's root
/// nodes are nobody's children, each listed once. (A loop of single parents is left to
/// the walk's depth limit.) Indices are validated already.
pub(super) fn node_tree(root: &json::Root) -> Result<(), String> {
    let mut parent: Vec<Option<usize>> = vec![None; root.nodes.len()];
    for (n, node) in root.nodes.iter().enumerate() {
        for child in node.children.iter().flatten() {
            let c = child.value();
            let Some(slot) = parent.get_mut(c) else {
                return Err(format!("node {n} names child {c}, past the file's {} nodes", root.nodes.len()));
            };
            if let Some(p) = slot.replace(n) {
                let how = if p == n { format!("twice by node {n}") } else { format!("by nodes {p} and {n}") };
                return Err(format!(
                    "node {c} is listed as a child {how}: a glTF node has at most one parent"
                ));
            }
        }
    }
    for (s, scene) in root.scenes.iter().enumerate() {
        let mut roots = HashSet::new();
        for r in scene.nodes.iter().map(|r| r.value()) {
            if let Some(Some(p)) = parent.get(r) {
                return Err(format!("scene {s} has node {r} as a root, but it is a child of node {p}"));
            }
            if !roots.insert(r) {
                return Err(format!("scene {s} lists root node {r} twice"));
            }
        }
    }
    Ok(())
}

/// The element types a reader of `what` accepts, as (component type, dimensions): glTF's
/// floats and the integers `KHR_mesh_quantization` adds (normalized or not for positions
/// and texture coordinates; normals and tangents must be normalized, which
/// [`normalized_where_required`] checks).
pub(super) const POSITIONS: &[(DataType, Dimensions)] = &[
    (DataType::F32, Dimensions::Vec3),
    (DataType::I8, Dimensions::Vec3),
    (DataType::U8, Dimensions::Vec3),
    (DataType::I16, Dimensions::Vec3),
    (DataType::U16, Dimensions::Vec3),
];
pub(super) const NORMALS: &[(DataType, Dimensions)] =
    &[(DataType::F32, Dimensions::Vec3), (DataType::I8, Dimensions::Vec3), (DataType::I16, Dimensions::Vec3)];
pub(super) const TANGENTS: &[(DataType, Dimensions)] =
    &[(DataType::F32, Dimensions::Vec4), (DataType::I8, Dimensions::Vec4), (DataType::I16, Dimensions::Vec4)];
pub(super) const TEX_COORDS: &[(DataType, Dimensions)] = &[
    (DataType::F32, Dimensions::Vec2),
    (DataType::I8, Dimensions::Vec2),
    (DataType::U8, Dimensions::Vec2),
    (DataType::I16, Dimensions::Vec2),
    (DataType::U16, Dimensions::Vec2),
];

/// A NORMAL or TANGENT accessor of integers is normalized (`KHR_mesh_quantization`
/// allows no other): its values are unit vector components, not grid steps.
pub(super) fn normalized_where_required(a: &gltf::Accessor<'_>, what: &str) -> Result<(), String> {
    let must = matches!(what, "NORMAL" | "TANGENT");
    if must && a.data_type() != DataType::F32 && !a.normalized() {
        return Err(format!(
            "{what} accessor {} holds {:?} that are not normalized; glTF (KHR_mesh_quantization) requires normalized integers there",
            a.index(),
            a.data_type()
        ));
    }
    Ok(())
}
pub(super) const INDICES: &[(DataType, Dimensions)] = &[
    (DataType::U8, Dimensions::Scalar),
    (DataType::U16, Dimensions::Scalar),
    (DataType::U32, Dimensions::Scalar),
];

/// An accessor the crate's readers can iterate without panicking: an element type in
/// `allowed`, at least one element, a stride no smaller than an element, and every
/// byte range (its own, its view's, a sparse part's) computable without overflow and
/// inside its view and buffer. `buffers` are the loaded buffers' lengths.
pub(super) fn accessor(
    a: &gltf::Accessor<'_>,
    document: &gltf::Document,
    buffers: &[usize],
    allowed: &[(DataType, Dimensions)],
    what: &str,
) -> Result<(), String> {
    let name = format!("{what} accessor {}", a.index());
    let (data_type, dimensions) = (a.data_type(), a.dimensions());
    if !allowed.contains(&(data_type, dimensions)) {
        return Err(format!(
            "{name} holds {data_type:?} {dimensions:?}, which glTF does not allow for {what}"
        ));
    }
    if a.count() == 0 {
        return Err(format!("{name} has no elements (glTF requires count >= 1)"));
    }
    let size = a.size();
    if let Some(view) = a.view() {
        let at = view_bytes(&view, buffers).map_err(|e| format!("{name}: {e}"))?;
        elements(a.offset(), view.stride(), size, a.count(), at).map_err(|e| format!("{name}: {e}"))?;
    }
    let Some(sparse) = document.as_json().accessors.get(a.index()).and_then(|json| json.sparse.as_ref())
    else {
        return Ok(());
    };
    let count = sparse.count.0 as usize;
    if count == 0 {
        return Err(format!("{name} is sparse with no elements"));
    }
    let index_size = match sparse.indices.component_type {
        json::validation::Checked::Valid(json::accessor::IndexComponentType(t)) => match t {
            json::accessor::ComponentType::U8 => 1,
            json::accessor::ComponentType::U16 => 2,
            json::accessor::ComponentType::U32 => 4,
            other => {
                return Err(format!("{name} has sparse indices of type {other:?}; glTF allows u8, u16, u32"));
            }
        },
        json::validation::Checked::Invalid => {
            return Err(format!("{name} has sparse indices of no known type"));
        }
    };
    for (view, offset, size, part) in [
        (sparse.indices.buffer_view.value(), sparse.indices.byte_offset.0, index_size, "sparse indices"),
        (sparse.values.buffer_view.value(), sparse.values.byte_offset.0, size, "sparse values"),
    ] {
        let view =
            document.views().nth(view).ok_or_else(|| format!("{name}: its {part} name no buffer view"))?;
        let at = view_bytes(&view, buffers).map_err(|e| format!("{name}'s {part}: {e}"))?;
        elements(offset as usize, view.stride(), size, count, at)
            .map_err(|e| format!("{name}'s {part}: {e}"))?;
    }
    Ok(())
}

/// A view's byte length, after checking that it lies inside its loaded buffer.
fn view_bytes(view: &gltf::buffer::View<'_>, buffers: &[usize]) -> Result<usize, String> {
    let buffer = buffers.get(view.buffer().index()).copied().unwrap_or(0);
    match view.offset().checked_add(view.length()) {
        Some(end) if end <= buffer => Ok(view.length()),
        _ => Err(format!(
            "buffer view {} ({} bytes from {}) reaches past its {buffer}-byte buffer",
            view.index(),
            view.length(),
            view.offset()
        )),
    }
}

/// `count` elements of `size` bytes, `stride` apart (packed when `None`), from `offset`
/// within a view of `available` bytes.
fn elements(
    offset: usize,
    stride: Option<usize>,
    size: usize,
    count: usize,
    available: usize,
) -> Result<(), String> {
    let stride = stride.unwrap_or(size);
    if stride < size {
        return Err(format!("its byteStride {stride} is smaller than an element ({size} bytes)"));
    }
    let end =
        stride.checked_mul(count - 1).and_then(|b| b.checked_add(size)).and_then(|b| b.checked_add(offset));
    match end {
        Some(end) if end <= available => Ok(()),
        _ => Err(format!(
            "{count} elements of {size} bytes, {stride} apart from byte {offset}, do not fit its {available}-byte buffer view"
        )),
    }
}
