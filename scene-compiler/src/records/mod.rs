//! The records the blob is made of (`layout.rs`: `#[repr(C)]`, `Pod`, one definition
//! each; `record.rs`: the `Record` trait and `blob_record!` that declare them) and the
//! CUDA text made from them (`codegen.rs`). Below the shapes, the BVH and the blob,
//! which all use them: the blob writer and reader use the shapes and the BVH in turn.

pub mod codegen;
pub mod layout;
pub mod normal;
pub mod record;

pub use codegen::{cuda_struct, generated_banner};
