//! Records shared byte for byte with the CUDA kernels, declared once in Rust.
//!
//! [`blob_record!`](crate::blob_record) declares a `#[repr(C)]`, [`Pod`] struct and
//! records its fields ([`Record`]): names, C types ([`CType`], from each Rust type's
//! [`FieldType`]), offsets and docs. The code generators (`blob::codegen`) turn that
//! into CUDA structs with size and offset asserts, so a header generated from it can
//! never disagree with the host about a byte. The blob's records (`blob::layout`) are
//! declared this way, and so is the renderer's `LaunchParams`; the macro is exported
//! for other crates and names everything it uses by `$crate::` paths.
//!
//! Device pointers are [`DevicePtr`] / [`DevicePtrMut`]: a `u64` on the host, `const
//! T*` / `T*` in CUDA, where `T` is anything with a [`CudaName`]: a record, a CUDA
//! vector or scalar type, or a marker for a type only the kernels define.

use core::fmt;
use core::marker::PhantomData;

use bytemuck::{Pod, Zeroable};

/// What the macro's expansion needs from this crate's dependencies.
#[doc(hidden)]
pub mod __private {
    pub use bytemuck::{Pod, Zeroable};
}

/// A C type as the CUDA header spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    Float4,
    Uint4,
    Uint,
    Float,
    /// `unsigned long long`: 64-bit counters and sizes.
    ULongLong,
    /// A device pointer, `const pointee*` (or `pointee*` when `mutable`).
    Ptr {
        pointee: &'static str,
        mutable: bool,
    },
    /// `elem name[len]`: a fixed array (padding).
    Array {
        elem: &'static CType,
        len: usize,
    },
}

impl CType {
    /// The CUDA spelling of the type (an array as `elem[len]`, as in the format tables).
    pub fn cuda_name(self) -> String {
        match self {
            CType::Float4 => "float4".to_owned(),
            CType::Uint4 => "uint4".to_owned(),
            CType::Uint => "unsigned int".to_owned(),
            CType::Float => "float".to_owned(),
            CType::ULongLong => "unsigned long long".to_owned(),
            CType::Ptr { pointee, mutable: false } => format!("const {pointee}*"),
            CType::Ptr { pointee, mutable: true } => format!("{pointee}*"),
            CType::Array { elem, len } => format!("{}[{len}]", elem.cuda_name()),
        }
    }

    /// A member declaration of this type, without the `;`: `float4 name`, `unsigned int name[2]`.
    pub fn declare(self, name: &str) -> String {
        match self {
            CType::Array { elem, len } => format!("{} {name}[{len}]", elem.cuda_name()),
            other => format!("{} {name}", other.cuda_name()),
        }
    }

    /// Size in bytes on the device (64-bit pointers).
    pub const fn size(self) -> usize {
        match self {
            CType::Float4 | CType::Uint4 => 16,
            CType::Uint | CType::Float => 4,
            CType::ULongLong | CType::Ptr { .. } => 8,
            CType::Array { elem, len } => elem.size() * len,
        }
    }

    /// Alignment in bytes on the device.
    pub const fn align(self) -> usize {
        match self {
            CType::Float4 | CType::Uint4 => 16,
            CType::Uint | CType::Float => 4,
            CType::ULongLong | CType::Ptr { .. } => 8,
            CType::Array { elem, .. } => elem.align(),
        }
    }
}

/// A type the CUDA side knows by a name: what a device pointer can point to.
///
/// Implemented for the CUDA vector and scalar types with a Rust twin, and by
/// [`blob_record!`](crate::blob_record) for every record. For a type that only the
/// kernels define (say `DeviceNode`), implement it on an uninhabited marker:
/// `enum DeviceNode {}` with `CUDA_NAME = "DeviceNode"`.
pub trait CudaName {
    /// The type's name in CUDA.
    const CUDA_NAME: &'static str;
}

impl CudaName for [f32; 4] {
    const CUDA_NAME: &'static str = "float4";
}
impl CudaName for [u32; 4] {
    const CUDA_NAME: &'static str = "uint4";
}
impl CudaName for f32 {
    const CUDA_NAME: &'static str = "float";
}
impl CudaName for u32 {
    const CUDA_NAME: &'static str = "unsigned int";
}
impl CudaName for u64 {
    const CUDA_NAME: &'static str = "unsigned long long";
}

/// Maps a Rust field type to the CUDA type with the same bytes and alignment.
pub trait FieldType {
    const C_TYPE: CType;
}
impl FieldType for [f32; 4] {
    const C_TYPE: CType = CType::Float4;
}
impl FieldType for [u32; 4] {
    const C_TYPE: CType = CType::Uint4;
}
impl FieldType for u32 {
    const C_TYPE: CType = CType::Uint;
}
impl FieldType for f32 {
    const C_TYPE: CType = CType::Float;
}
impl FieldType for u64 {
    const C_TYPE: CType = CType::ULongLong;
}
// `[u32; 4]` is a `uint4`; shorter runs are plain arrays (padding to a lane boundary).
macro_rules! uint_arrays {
    ($($len:literal)*) => {$(
        impl FieldType for [u32; $len] {
            const C_TYPE: CType = CType::Array { elem: &CType::Uint, len: $len };
        }
    )*};
}
uint_arrays!(1 2 3);
// Short runs of floats: a vertex's position, its texture coordinates.
macro_rules! float_arrays {
    ($($len:literal)*) => {$(
        impl FieldType for [f32; $len] {
            const C_TYPE: CType = CType::Array { elem: &CType::Float, len: $len };
        }
    )*};
}
float_arrays!(2 3);
// Runs of float4 lanes (per-light parameters in the launch parameters).
impl<const N: usize> FieldType for [[f32; 4]; N] {
    const C_TYPE: CType = CType::Array { elem: &CType::Float4, len: N };
}
// Device addresses of records whose type the kernels pick (one section per kind).
impl<const N: usize> FieldType for [u64; N] {
    const C_TYPE: CType = CType::Array { elem: &CType::ULongLong, len: N };
}

/// A device address the kernels read through as `const T*`; on the host, a `u64`.
#[repr(transparent)]
pub struct DevicePtr<T>(u64, PhantomData<fn() -> T>);

/// A device address the kernels write through as `T*`; on the host, a `u64`.
#[repr(transparent)]
pub struct DevicePtrMut<T>(u64, PhantomData<fn() -> T>);

macro_rules! device_ptr {
    ($ptr:ident, $mutable:literal) => {
        impl<T> $ptr<T> {
            /// Address 0.
            pub const NULL: Self = Self::new(0);

            /// The pointer to device address `addr`.
            pub const fn new(addr: u64) -> Self {
                Self(addr, PhantomData)
            }

            /// The device address.
            pub const fn addr(self) -> u64 {
                self.0
            }
        }
        impl<T> From<u64> for $ptr<T> {
            fn from(addr: u64) -> Self {
                Self::new(addr)
            }
        }
        impl<T> Clone for $ptr<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $ptr<T> {}
        impl<T> Default for $ptr<T> {
            fn default() -> Self {
                Self::NULL
            }
        }
        impl<T> PartialEq for $ptr<T> {
            fn eq(&self, other: &Self) -> bool {
                self.0 == other.0
            }
        }
        impl<T> Eq for $ptr<T> {}
        impl<T: CudaName> fmt::Debug for $ptr<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "({}) {:#x}", <Self as FieldType>::C_TYPE.cuda_name(), self.0)
            }
        }
        // SAFETY: a `u64` (repr(transparent); the PhantomData is zero-sized): any bits are valid.
        unsafe impl<T: 'static> Zeroable for $ptr<T> {}
        // SAFETY: as above, and it is Copy and 'static.
        unsafe impl<T: 'static> Pod for $ptr<T> {}
        impl<T: CudaName> FieldType for $ptr<T> {
            const C_TYPE: CType = CType::Ptr { pointee: T::CUDA_NAME, mutable: $mutable };
        }
    };
}
device_ptr!(DevicePtr, false);
device_ptr!(DevicePtrMut, true);

/// One field of a record, for the header generator and the format docs.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: CType,
    pub offset: usize,
    pub doc: &'static str,
}

/// A record type shared with the kernels (a blob section's element, or launch parameters).
pub trait Record: Pod + CudaName {
    /// The struct's name in CUDA (the same as [`CudaName::CUDA_NAME`]).
    const C_NAME: &'static str;
    const DOC: &'static str;
    const FIELDS: &'static [Field];
}

/// Declares a record shared with the kernels: a `#[repr(C)]` struct that is
/// [`Pod`](bytemuck::Pod) (checked: every field is Pod and there is no padding) and
/// implements [`Record`] and [`CudaName`].
///
/// ```
/// use scene_compiler::blob::record::{DevicePtr, Record};
///
/// scene_compiler::blob_record! {
///     /// Doc comments become the CUDA comments and the format tables' text.
///     #[align(16)]
///     pub struct Example as "Example" {
///         /// A lane of four floats: `float4` in CUDA.
///         pub lane: [f32; 4],
///         /// `const float4*` in CUDA.
///         pub data: DevicePtr<[f32; 4]>,
///         /// Stored as a plain `u64` on the host, typed `float4*` for the kernels
///         /// (same size and alignment, checked).
///         pub out: u64 as scene_compiler::blob::record::DevicePtrMut<[f32; 4]>,
///     }
/// }
/// assert_eq!(Example::FIELDS[1].ty.cuda_name(), "const float4*");
/// assert_eq!(Example::FIELDS[2].ty.cuda_name(), "float4*");
/// assert_eq!(size_of::<Example>(), 32);
/// ```
#[macro_export]
macro_rules! blob_record {
    (
        $(#[doc = $doc:literal])*
        $(#[align($align:literal)])?
        pub struct $name:ident as $cname:literal {
            $( $(#[doc = $fdoc:literal])* pub $field:ident : $ty:ty $(as $cty:ty)?, )*
        }
    ) => {
        $(#[doc = $doc])*
        #[repr(C $(, align($align))?)]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name { $( $(#[doc = $fdoc])* pub $field: $ty, )* }

        // SAFETY (both): repr(C), every field is Pod, and the fields add up to the
        // struct's size, so it has no padding: the checks `bytemuck`'s derive makes.
        unsafe impl $crate::blob::record::__private::Zeroable for $name {}
        unsafe impl $crate::blob::record::__private::Pod for $name {}
        const _: () = {
            const fn pod<T: $crate::blob::record::__private::Pod>() {}
            $( pod::<$ty>(); )*
            assert!(
                ::core::mem::size_of::<$name>() == 0 $(+ ::core::mem::size_of::<$ty>())*,
                concat!(stringify!($name), " has padding: make it an explicit field")
            );
            $($(
                assert!(
                    ::core::mem::size_of::<$ty>() == ::core::mem::size_of::<$cty>()
                        && ::core::mem::align_of::<$ty>() == ::core::mem::align_of::<$cty>(),
                    concat!(stringify!($name), ".", stringify!($field), ": `", stringify!($ty),
                        "` and `", stringify!($cty), "` differ in size or alignment")
                );
            )?)*
        };

        impl $crate::blob::record::CudaName for $name {
            const CUDA_NAME: &'static str = $cname;
        }

        impl $crate::blob::record::Record for $name {
            const C_NAME: &'static str = $cname;
            const DOC: &'static str = concat!($($doc),*);
            const FIELDS: &'static [$crate::blob::record::Field] = &[$($crate::blob::record::Field {
                name: stringify!($field),
                ty: <$crate::__record_field_type!($ty $(as $cty)?) as $crate::blob::record::FieldType>::C_TYPE,
                offset: ::core::mem::offset_of!($name, $field),
                doc: concat!($($fdoc),*),
            }),*];
        }
    };
}

/// The type whose [`FieldType`] describes a field: its own, or the one after `as`.
#[doc(hidden)]
#[macro_export]
macro_rules! __record_field_type {
    ($ty:ty as $cty:ty) => {
        $cty
    };
    ($ty:ty) => {
        $ty
    };
}

pub use crate::blob_record;

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, offset_of, size_of};

    /// A device-only type, for pointers.
    pub enum Opaque {}
    impl CudaName for Opaque {
        const CUDA_NAME: &'static str = "Opaque";
    }

    blob_record! {
        /// Every kind of field.
        #[align(16)]
        pub struct Mixed as "MixedRecord" {
            /// A lane.
            pub lane: [f32; 4],
            pub nodes: DevicePtr<Opaque>,
            pub out: DevicePtrMut<[f32; 4]>,
            pub counter: u64 as DevicePtrMut<u64>,
            pub big: u64,
            pub small: u32,
            pub padding: [u32; 3],
        }
    }

    #[test]
    fn fields_get_their_cuda_types_and_offsets() {
        let spelled: Vec<_> =
            Mixed::FIELDS.iter().map(|f| (f.name, f.ty.declare(f.name), f.offset)).collect();
        let expected = [
            ("lane", "float4 lane", 0),
            ("nodes", "const Opaque* nodes", 16),
            ("out", "float4* out", 24),
            ("counter", "unsigned long long* counter", 32),
            ("big", "unsigned long long big", 40),
            ("small", "unsigned int small", 48),
            ("padding", "unsigned int padding[3]", 52),
        ];
        let expected: Vec<_> = expected.iter().map(|&(n, d, o)| (n, d.to_owned(), o)).collect();
        assert_eq!(spelled, expected);
        assert_eq!(Mixed::FIELDS[6].ty.cuda_name(), "unsigned int[3]");
        assert_eq!((size_of::<Mixed>(), align_of::<Mixed>()), (64, 16));
        assert_eq!(offset_of!(Mixed, padding), 52);
        assert_eq!(<Mixed as CudaName>::CUDA_NAME, Mixed::C_NAME);
        assert_eq!(Mixed::DOC, " Every kind of field.");
    }

    #[test]
    fn c_sizes_and_alignments_match_the_rust_fields() {
        for f in Mixed::FIELDS {
            assert_eq!(f.offset % f.ty.align(), 0, "{}", f.name);
        }
        let covered: usize = Mixed::FIELDS.iter().map(|f| f.ty.size()).sum();
        assert_eq!(covered, size_of::<Mixed>());
    }

    #[test]
    fn device_pointers_are_plain_u64s() {
        let p = DevicePtr::<Opaque>::new(0x7f00_0000_1000);
        assert_eq!(bytemuck::bytes_of(&p), &0x7f00_0000_1000u64.to_ne_bytes());
        assert_eq!(DevicePtrMut::<u64>::default(), DevicePtrMut::NULL);
        assert_eq!(format!("{:?}", DevicePtrMut::<u64>::from(0x100)), "(unsigned long long*) 0x100");
        let m = Mixed { nodes: DevicePtr::new(5), counter: 7, ..Mixed::default() };
        let back: &Mixed = bytemuck::from_bytes(bytemuck::bytes_of(&m));
        assert_eq!(back.nodes.addr(), 5);
        assert_eq!(back.counter, 7);
    }
}
