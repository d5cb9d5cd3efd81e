//! The CPU backend against closed forms, independent computations, other renderers'
//! references and itself (determinism, sample splits, several CPU "devices"), one module
//! per subject, in one test binary: each of the ten it replaces linked the renderer
//! again.

#[path = "../cpu_support/mod.rs"]
mod cpu_support;

mod analytic;
mod boxes;
mod denoise;
mod determinism;
mod environment;
mod gltfpack;
mod instances;
mod lights;
mod meshes;
mod mis;
mod multi;
mod principled;
mod random_scenes;
mod references;
mod rng;
mod robust;
mod sobol;
mod tangents;
mod textures;
mod traverse;
