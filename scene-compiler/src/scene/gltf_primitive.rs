//! One glTF primitive's vertices and indices in the mesh's own space, as floats and
//! `u32`s, whatever their storage: glTF's floats, or the integers `KHR_mesh_quantization`
//! allows (`i8`, `u8`, `i16`, `u16`; normalized to [-1, 1] or [0, 1] as glTF's accessor
//! rules say, or taken as whole numbers when not normalized: gltfpack's positions, whose
//! scale and offset its node transform holds). Read through the crate's accessor
//! iterators (strides, sparse accessors) from buffers whose compressed views
//! `gltf_buffers` has decoded.
//!
//! Not a primitive compressed by `KHR_draco_mesh_compression`: `gltf_draco` decodes it.
//!
//! Not here: placing the vertices with their node's transform (`mesh_file`).

use glam::{Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Item, Iter};
use gltf::buffer::Data;

use super::gltf_check;

/// A primitive's vertices (`normals`, `uvs`, `tangents` one per position when the
/// primitive has them) and its indices, if it has any.
pub(super) struct Vertices {
    pub positions: Vec<Vec3>,
    pub normals: Option<Vec<Vec3>>,
    pub uvs: Option<Vec<Vec2>>,
    pub tangents: Option<Vec<Vec4>>,
    pub indices: Option<Vec<u32>>,
    /// The indices are a triangle list whatever the primitive's mode (Draco's faces).
    pub triangle_list: bool,
}

/// Reads (uncompressed) `primitive`'s POSITION, NORMAL, TEXCOORD_0, TANGENT and indices, each
/// checked first (`gltf_check::accessor`) so that the crate's iterators cannot panic.
/// `lengths` are the loaded buffers' lengths.
pub(super) fn read(
    primitive: &gltf::Primitive<'_>,
    document: &gltf::Document,
    buffers: &[Data],
    lengths: &[usize],
) -> Result<Vertices, String> {
    use gltf::Semantic;
    let accessor = |semantic: Semantic, allowed, what: &str| -> Result<Option<gltf::Accessor<'_>>, String> {
        let Some(a) = primitive.get(&semantic) else { return Ok(None) };
        gltf_check::accessor(&a, document, lengths, allowed, what)?;
        gltf_check::normalized_where_required(&a, what)?;
        Ok(Some(a))
    };
    let positions =
        accessor(Semantic::Positions, gltf_check::POSITIONS, "POSITION")?.ok_or("no POSITION accessor")?;
    let normals = accessor(Semantic::Normals, gltf_check::NORMALS, "NORMAL")?;
    let uvs = accessor(Semantic::TexCoords(0), gltf_check::TEX_COORDS, "TEXCOORD_0")?;
    let tangents = accessor(Semantic::Tangents, gltf_check::TANGENTS, "TANGENT")?;
    if let Some(a) = primitive.indices() {
        gltf_check::accessor(&a, document, lengths, gltf_check::INDICES, "indices")?;
    }
    let vec3 = |a: &gltf::Accessor<'_>, what| floats::<3>(a, buffers).ok_or_else(|| past(a, what));
    let positions: Vec<Vec3> = vec3(&positions, "POSITION")?.into_iter().map(Vec3::from_array).collect();
    let normals = match normals {
        Some(a) => Some(vec3(&a, "NORMAL")?.into_iter().map(Vec3::from_array).collect()),
        None => None,
    };
    let uvs = match uvs {
        Some(a) => Some(
            floats::<2>(&a, buffers)
                .ok_or_else(|| past(&a, "TEXCOORD_0"))?
                .into_iter()
                .map(Vec2::from_array)
                .collect(),
        ),
        None => None,
    };
    let tangents = match tangents {
        Some(a) => Some(
            floats::<4>(&a, buffers)
                .ok_or_else(|| past(&a, "TANGENT"))?
                .into_iter()
                .map(Vec4::from_array)
                .collect(),
        ),
        None => None,
    };
    let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(|d| &d.0[..]));
    let indices = match (reader.read_indices(), primitive.indices()) {
        (Some(indices), _) => Some(indices.into_u32().collect()),
        (None, Some(a)) => return Err(past(&a, "index")),
        (None, None) => None,
    };
    Ok(Vertices { positions, normals, uvs, tangents, indices, triangle_list: false })
}

/// The reader gives nothing for an accessor that reaches past its buffer (or has none).
fn past(a: &gltf::Accessor<'_>, what: &str) -> String {
    format!("{what} accessor {} reaches past its buffer", a.index())
}

/// An accessor's elements of `N` components as floats: glTF's floats as they are,
/// integers normalized or not as the accessor says (glTF 2.0, "Accessor data types":
/// `max(c / 127, -1)` for `i8`, `c / 255` for `u8`, `max(c / 32767, -1)` for `i16`,
/// `c / 65535` for `u16`). None when the data is not there.
pub(super) fn floats<const N: usize>(a: &gltf::Accessor<'_>, buffers: &[Data]) -> Option<Vec<[f32; N]>>
where
    [f32; N]: Item,
    [i8; N]: Item,
    [u8; N]: Item,
    [i16; N]: Item,
    [u16; N]: Item,
{
    let normalized = a.normalized();
    match a.data_type() {
        DataType::F32 => Some(elements::<f32, N>(a, buffers, |c| c)?),
        DataType::I8 if normalized => {
            elements::<i8, N>(a, buffers, |c| self::normalized(DataType::I8, c.into()))
        }
        DataType::U8 if normalized => {
            elements::<u8, N>(a, buffers, |c| self::normalized(DataType::U8, c.into()))
        }
        DataType::I16 if normalized => {
            elements::<i16, N>(a, buffers, |c| self::normalized(DataType::I16, c.into()))
        }
        DataType::U16 if normalized => {
            elements::<u16, N>(a, buffers, |c| self::normalized(DataType::U16, c.into()))
        }
        DataType::I8 => elements::<i8, N>(a, buffers, f32::from),
        DataType::U8 => elements::<u8, N>(a, buffers, f32::from),
        DataType::I16 => elements::<i16, N>(a, buffers, f32::from),
        DataType::U16 => elements::<u16, N>(a, buffers, f32::from),
        // `gltf_check::accessor` allows no other type for a vertex attribute.
        DataType::U32 => None,
    }
}

/// A normalized integer component `c` of type `data_type` as the float it stands for
/// (glTF 2.0, "Accessor data types"); a float as it is.
pub(super) fn normalized(data_type: DataType, c: f32) -> f32 {
    match data_type {
        DataType::I8 => (c / 127.0).max(-1.0),
        DataType::U8 => c / 255.0,
        DataType::I16 => (c / 32767.0).max(-1.0),
        DataType::U16 => c / 65535.0,
        DataType::U32 => c / 4_294_967_295.0,
        DataType::F32 => c,
    }
}

/// The accessor's elements, each component of type `T` mapped by `to_float`.
fn elements<T: Copy, const N: usize>(
    a: &gltf::Accessor<'_>,
    buffers: &[Data],
    to_float: fn(T) -> f32,
) -> Option<Vec<[f32; N]>>
where
    [T; N]: Item,
{
    let iter = Iter::<[T; N]>::new(a.clone(), |buffer: gltf::Buffer<'_>| {
        buffers.get(buffer.index()).map(|d| &d.0[..])
    })?;
    Some(iter.map(|v| v.map(to_float)).collect())
}
