//! The compiler's tests through its public API, one module per subject. One test
//! binary instead of ten: each linked the compiler, proptest and the image codecs
//! again (most of the README test command's build time).

mod common;

mod assets;
mod blob;
mod boxes;
mod bvh;
#[cfg(feature = "cli")]
mod cli;
mod environment;
mod gltf_instances;
mod gltfpack;
mod hostile_blobs;
mod hostile_gltf;
mod hostile_models;
mod hostile_scenes;
mod instance_files;
mod meshes;
mod model_materials;
mod moves;
mod scale;
mod scene_errors;
mod scene_roundtrip;
mod sphere_files;
mod tangents;
mod terrain;
mod textures;
