//! Limits of the format and of a sensible scene, at the bottom of the crate: the BVH
//! builder, scene validation and the blob layout all obey these, and none of them
//! needs another's module to know them. The blob's link encoding
//! (`blob::layout`) is sized from [`MAX_LEAF_SIZE`] and [`MAX_PRIMS_PER_KIND`].

/// Largest BVH leaf, in primitives: a leaf link holds `count - 1` in 3 bits (the
/// builder's default is 4; SAH rarely wants more).
pub const MAX_LEAF_SIZE: u32 = 8;
/// Most primitives of one kind (spheres, ...) a blob holds: a link holds the index of
/// a leaf's first one in 25 bits.
pub const MAX_PRIMS_PER_KIND: u32 = 1 << 25;
/// Primitive kinds a link can name (3 bits); `blob::layout::PrimKind` lists those in use
/// (four: room for four more).
pub const MAX_PRIM_KINDS: u32 = 8;
/// Deepest BVH the loader accepts: the kernels' traversal stack has this many entries.
pub const MAX_BVH_DEPTH: u32 = 64;
/// Largest image side: 16K.
pub const MAX_IMAGE_SIDE: u32 = 16_384;
pub const MAX_SPP: u32 = 1 << 20;
pub const MAX_DEPTH: u32 = 1024;
/// 33.5M spheres: the most of one primitive kind a blob holds.
pub const MAX_SPHERES: usize = MAX_PRIMS_PER_KIND as usize;
/// The same for boxes (terrain columns included).
pub const MAX_BOXES: usize = MAX_PRIMS_PER_KIND as usize;
/// Triangles of all meshes together: one primitive kind's references. An instanced
/// mesh counts its triangles once, however many instances place it.
pub const MAX_TRIANGLES: usize = MAX_PRIMS_PER_KIND as usize;
/// Instances of all meshes together (one primitive kind's references).
pub const MAX_INSTANCES: usize = MAX_PRIMS_PER_KIND as usize;
pub const MAX_MATERIALS: usize = 1 << 20;
pub const MAX_LIGHTS: usize = 1 << 16;
/// Directional lights with a disc (`angular_radius_deg` > 0): rays that leave the scene
/// after a mirror, glass or the camera see each of them, and the kernels hold them in
/// their launch parameters.
pub const MAX_SUNS: usize = 4;
/// Texels of all texture images together (16 bytes each in the blob: 1 GiB).
pub const MAX_TEXELS: usize = 1 << 26;
/// Most texels of an environment image: 2^25, e.g. 8192 x 4096 (512 MiB of float4
/// texels in the blob, plus 256 MiB of sampling table); each side at most
/// [`MAX_IMAGE_SIDE`].
pub const MAX_ENV_TEXELS: u64 = 1 << 25;
/// The largest file a scene may name or be (scene text, model, image, sphere file):
/// 4 GiB, above the 3 GB that 2^25 spheres written as RON take. Larger files, and
/// files that are not regular files (devices, pipes), are refused before reading.
pub const MAX_INPUT_BYTES: u64 = 4 << 30;
/// The largest blob a reader accepts, 32 GiB: more than the format's limits allow
/// (2^25 primitives of each kind at their largest records, with their BVH nodes, plus
/// the texel and environment caps). A larger file is refused before it is allocated.
pub const MAX_BLOB_BYTES: u64 = 32 << 30;
