//! The kernels' compile-time features, one line each in [`FEATURES`]: what a scene
//! uses decides which it needs ([`scene_features`]), and the CUDA backend compiles one
//! kernel module per set of features (`-DPT_FEATURES=<bits>`), so a scene pays only for
//! the code it uses (docs/performance.md, "Choices in the code": carried by scenes that
//! did not use it, the triangle code cost RTIOW a tenth, the texture code a mesh scene
//! 8 %). The kernels read them as `constexpr bool`s from `kernels/features.cuh`,
//! generated from this list (`cargo run -p tools --bin layout-header`).
//!
//! A few features depend on the job instead ([`Needs::Job`]: the AOVs of `--aov` and
//! `--denoise`): the backend adds them to the scene's when a job asks
//! ([`job_features`]). Next-event estimation is not one of them: it changes with
//! `--no-nee` and between scenes with and without lights often enough that every module
//! has both `render` and `render_lit`. The job's sampler is not a feature either, but it
//! does pick the module: a module is a [`Variant`], the features and the job's sampler
//! (`PT_SAMPLER`, the kernels' `kSobol`), so that the independent sampler's module
//! carries no Sobol code and a Sobol job pays no branch per draw.

use std::fmt::Write;

use scene_compiler::BlobView;
use scene_compiler::blob::generated_banner;
use scene_compiler::blob::layout::{ALPHA_OPAQUE, MATERIAL_PRINCIPLED, PrimKind};
use scene_compiler::scene::SamplerKind;

use crate::job::RenderJob;

/// A part of the kernels that only some scenes or jobs need.
pub struct Feature {
    /// Its name in logs and `bench` output.
    pub name: &'static str,
    /// The `constexpr bool` the kernels test.
    pub constant: &'static str,
    pub used_by: Needs,
}

/// Who decides whether a module needs a feature.
pub enum Needs {
    /// The scene: known at upload.
    Scene(fn(&BlobView<'_>) -> bool),
    /// The job: known at each render.
    Job(fn(&RenderJob) -> bool),
}

/// Every feature; its index is its bit in `PT_FEATURES`.
pub const FEATURES: &[Feature] = &[
    Feature {
        name: "meshes",
        constant: "kMeshes",
        used_by: Needs::Scene(|b| b.header.prim_count(PrimKind::Triangle) > 0),
    },
    Feature {
        name: "appearance",
        constant: "kAppearance",
        used_by: Needs::Scene(|b| !b.textures.is_empty() || b.header.env_size[0] != 0),
    },
    Feature {
        name: "principled",
        constant: "kPrincipled",
        used_by: Needs::Scene(|b| b.materials.iter().any(|m| m.kind == MATERIAL_PRINCIPLED)),
    },
    Feature {
        name: "alpha",
        constant: "kAlpha",
        used_by: Needs::Scene(|b| b.materials.iter().any(|m| m.alpha_mode != ALPHA_OPAQUE)),
    },
    // The suns in the sky of escaping rays: carried by scenes without one, that test
    // cost RTIOW 1.3 % at 1920x1080 and the environment scene 6.6 % (H100, 2026-11-26).
    Feature { name: "suns", constant: "kSuns", used_by: Needs::Scene(|b| !b.suns().is_empty()) },
    // The two-level walk: leaves of instances and their bottom levels (instances.cuh).
    Feature {
        name: "instances",
        constant: "kInstances",
        used_by: Needs::Scene(|b| b.header.prim_count(PrimKind::Instance) > 0),
    },
    // The AOV sums beside the film's (the AOVs' path state and accumulation): RTIOW's
    // frame time does not pay for them when no job asks.
    Feature { name: "aovs", constant: "kAovs", used_by: Needs::Job(|job| job.aovs) },
    // 64-byte nodes instead of 128-byte mirrored ones (kernels/device_nodes.cuh): for
    // trees too big for the L2 cache, where a node's bytes cost more than its
    // instructions.
    Feature {
        name: "compact_nodes",
        constant: "kCompactNodes",
        used_by: Needs::Scene(|b| b.header.prim_count(PrimKind::Triangle) >= COMPACT_NODES_FROM_TRIANGLES),
    },
];

/// The triangles from which a scene's nodes are compact. Measured (H100, 2026-11-28,
/// docs/performance.md "Compact nodes for big meshes"): a 328k-triangle mesh renders
/// as fast either way, 1.31M and 21M triangles 3 % and 5 % faster compact, the million
/// instances of a 1.31M-triangle tree 6 %; small meshes and forests of small trees 1-4 %
/// slower. Counted once per mesh, however many instances place it.
pub const COMPACT_NODES_FROM_TRIANGLES: u32 = 1 << 20;

/// The features a scene needs, as `PT_FEATURES` bits.
pub fn scene_features(blob: &BlobView<'_>) -> u32 {
    bits(|needs| matches!(needs, Needs::Scene(used) if used(blob)))
}

/// The features a job needs besides its scene's, as `PT_FEATURES` bits.
pub fn job_features(job: &RenderJob) -> u32 {
    bits(|needs| matches!(needs, Needs::Job(used) if used(job)))
}

/// The bits of every job feature: what a module keeps of its features for another scene.
pub fn job_feature_mask() -> u32 {
    bits(|needs| matches!(needs, Needs::Job(_)))
}

fn bits(on: impl Fn(&Needs) -> bool) -> u32 {
    FEATURES.iter().enumerate().filter(|(_, f)| on(&f.used_by)).fold(0, |bits, (i, _)| bits | 1 << i)
}

/// "meshes+appearance", or "none".
pub fn names(bits: u32) -> String {
    let on: Vec<_> =
        FEATURES.iter().enumerate().filter(|(i, _)| bits & 1 << i != 0).map(|(_, f)| f.name).collect();
    if on.is_empty() { "none".to_owned() } else { on.join("+") }
}

/// Every feature on: what the compile tests build.
pub fn all() -> u32 {
    (1 << FEATURES.len()) - 1
}

/// The job's sampler as the kernels' `PT_SAMPLER`.
pub fn sampler_code(sampler: SamplerKind) -> u32 {
    match sampler {
        SamplerKind::Independent => 0,
        SamplerKind::Sobol => 1,
    }
}

/// What one kernel module is compiled for: the scene's features (`PT_FEATURES`) and the
/// job's sampler (`PT_SAMPLER`). The CUDA backend keeps the module of the last upload's
/// features and the last job's sampler, and loads another (from the disk cache after the
/// first time) when either changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    pub features: u32,
    pub sampler: SamplerKind,
}

impl Variant {
    /// The module of the features `features` with the independent sampler.
    pub fn of_features(features: u32) -> Variant {
        Variant { features, sampler: SamplerKind::Independent }
    }

    /// "meshes+appearance" ([`names`]), "+ Sobol" when it samples with Sobol points.
    pub fn name(&self) -> String {
        match self.sampler {
            SamplerKind::Independent => names(self.features),
            sampler => format!("{} + {}", names(self.features), sampler.name()),
        }
    }

    /// Its NVRTC defines.
    pub fn defines(&self) -> [String; 2] {
        [format!("-DPT_FEATURES={}u", self.features), format!("-DPT_SAMPLER={}u", sampler_code(self.sampler))]
    }
}

/// The full text of `kernels/features.cuh`.
pub fn cuda_header() -> String {
    let mut out = generated_banner("renderer/src/backend/features.rs");
    out.push_str(
        "// The host passes -DPT_FEATURES=<bits>; without it (tools compiling a file alone) none.\n",
    );
    out.push_str("#ifndef PT_FEATURES\n#define PT_FEATURES 0u\n#endif\n");
    // A bit no feature owns would be ignored, not compiled: refused instead.
    let _ = writeln!(
        out,
        "static_assert((PT_FEATURES & ~{}u) == 0u, \"PT_FEATURES has unknown bits\");\n",
        all()
    );
    for (i, f) in FEATURES.iter().enumerate() {
        let _ = writeln!(
            out,
            "static constexpr bool {} = (PT_FEATURES & {}u) != 0u; // {}",
            f.constant,
            1u32 << i,
            f.name
        );
    }
    out.push_str(
        "\n// The job's sampler (not a scene feature; -DPT_SAMPLER=<code>, default the independent one).\n",
    );
    out.push_str("#ifndef PT_SAMPLER\n#define PT_SAMPLER 0u\n#endif\n");
    let codes: Vec<String> =
        SamplerKind::ALL.iter().map(|&s| format!("PT_SAMPLER == {}u", sampler_code(s))).collect();
    let _ = writeln!(out, "static_assert({}, \"PT_SAMPLER is no sampler's code\");", codes.join(" || "));
    let _ = writeln!(
        out,
        "static constexpr bool kSobol = PT_SAMPLER == {}u; // sampler: Sobol",
        sampler_code(SamplerKind::Sobol)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_bits_agree() {
        assert_eq!(names(0), "none");
        assert_eq!(names(all()), FEATURES.iter().map(|f| f.name).collect::<Vec<_>>().join("+"));
        assert!(FEATURES.len() < 32);
        let sobol = Variant { features: 0, sampler: SamplerKind::Sobol };
        assert_eq!(sobol.name(), "none + Sobol");
        assert_eq!(Variant::of_features(all()).name(), names(all()));
        assert_eq!(sobol.defines(), ["-DPT_FEATURES=0u".to_owned(), "-DPT_SAMPLER=1u".to_owned()]);
    }

    /// Compact nodes from 2^20 triangles stored in the blob: a 1.31M-triangle mesh has
    /// them, a 328k-triangle one placed 8 times (2.6M triangles placed) does not.
    #[test]
    fn compact_nodes_follow_the_triangles_stored() {
        use glam::Vec3;
        use scene_compiler::procedural::icosphere;
        use scene_compiler::scene::{MaterialKind, Mesh, MeshData, PlacedInstance, Sky, Transform};
        use scene_compiler::testing::{pinhole, scene};
        use scene_compiler::{CompileOptions, compile_scene};
        let bit = |name| 1 << FEATURES.iter().position(|f| f.name == name).expect("the feature");
        let features_of = |subdivisions: u32, copies: usize| {
            let ico = icosphere(subdivisions, 1.0);
            let data = MeshData { positions: ico.positions, triangles: ico.triangles, ..MeshData::default() };
            let placed = |i: usize| PlacedInstance {
                transform: Transform {
                    translate: Vec3::new(3.0 * i as f32, 0.0, 0.0),
                    ..Transform::default()
                },
                material: None,
            };
            let mut s = scene(
                pinhole(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 40.0),
                Sky::Gradient { bottom: Vec3::ONE, top: Vec3::ONE },
                &[MaterialKind::Lambert { albedo: Vec3::splat(0.5) }],
                &[],
            );
            s.meshes = vec![Mesh {
                material: Some(0),
                instances: if copies > 1 { (0..copies).map(placed).collect() } else { Vec::new() },
                data: std::sync::Arc::new(data),
                ..Mesh::default()
            }];
            let blob = compile_scene(&s, &CompileOptions::default()).blob;
            scene_features(&BlobView::parse(&blob).expect("a valid blob"))
        };
        assert_ne!(features_of(8, 1) & bit("compact_nodes"), 0, "1.31M triangles");
        let placed = features_of(7, 8);
        assert_ne!(placed & bit("instances"), 0, "placed as instances");
        assert_eq!(placed & bit("compact_nodes"), 0, "8 instances of 328k triangles");
    }
}
