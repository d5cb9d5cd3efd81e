//! The kernels compile with NVRTC for every GPU generation we support, in both
//! schedules, and a broken kernel is reported at its file and line. No GPU needed,
//! only libnvrtc: the NVRTC tests are ignored unless asked for, so a machine without
//! it counts them as not run; CI installs NVRTC from PyPI and runs them with
//! `--ignored` (.ci/run), as does the GPU machine (tools/gpu-run.sh).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use renderer::backend::cuda::{KernelOptions, KernelSources, Nvrtc};
use renderer::backend::features::{self, Variant};
use scene_compiler::scene::SamplerKind;

/// Turing (T4), Ampere (A10/RTX 30), Hopper (H100/H200).
const ARCHS: [&str; 3] = ["sm_75", "sm_86", "sm_90"];
/// The most kernel compiles run at once.
const COMPILE_THREADS: usize = 4;

/// NVRTC, or a failed test that says where to get it.
fn nvrtc() -> Nvrtc {
    Nvrtc::load().unwrap_or_else(|e| panic!("this test needs NVRTC: {e:#}"))
}

fn options(defines: &[&str]) -> KernelOptions {
    KernelOptions {
        defines: defines.iter().map(|d| (*d).to_owned()).collect(),
        cache_dir: None,
        ..Default::default()
    }
}

/// The repository root: `$RENDERER_REPO_ROOT` (set by tools/gpu-run.sh), else the source tree.
fn repo_root() -> PathBuf {
    std::env::var_os("RENDERER_REPO_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
}

#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn kernels_compile_for_every_architecture_and_schedule() {
    let nvrtc = nvrtc();
    let (major, minor) = nvrtc.version();
    println!("NVRTC {major}.{minor} from {}", nvrtc.name());
    // A kernel variant under development compiles from its own folder (no GPU needed
    // to see its registers and spills): RENDERER_TEST_KERNELS=dir.
    let sources = match std::env::var_os("RENDERER_TEST_KERNELS") {
        Some(dir) => KernelSources::from_dir(Path::new(&dir)).expect("reading $RENDERER_TEST_KERNELS"),
        None => KernelSources::embedded(),
    };
    // Every scene feature on and every one off, with each sampler; the schedules with all on.
    let all = Variant::of_features(features::all());
    let none = Variant::of_features(0);
    let sobol = |v: Variant| Variant { sampler: SamplerKind::Sobol, ..v };
    let builds: [(&[&str], Variant); 9] = [
        (&[], all),
        (&[], none),
        (&[], sobol(all)),
        (&[], sobol(none)),
        (&["PT_PATH_REGENERATION=0"], all),
        (&["PT_PATH_REGENERATION=0"], sobol(all)),
        (&["PT_WIDE_BVH=1"], all),
        (&["PT_CAMERA_PACKETS=1"], all),
        (&["PT_SORTED_BOUNCES=1"], all),
    ];
    let jobs: Vec<(&str, &[&str], Variant)> = ARCHS
        .iter()
        .flat_map(|&arch| builds.iter().map(move |&(defines, variant)| (arch, defines, variant)))
        .collect();
    // NVRTC compiles distinct programs concurrently, and one compile is one core's work
    // (about 22 s on the 2-core dev machine, about 450 MB): up to COMPILE_THREADS at
    // once, which took the 27 from 10 minutes to 6.3 there. Reported in order below,
    // whatever order they finish in.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(COMPILE_THREADS);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
    let results: Vec<_> = pool.install(|| {
        jobs.par_iter()
            .map(|&(arch, defines, variant)| {
                nvrtc.compile(&sources, &options(defines).nvrtc_args(arch, variant))
            })
            .collect()
    });
    for ((arch, defines, variant), cubin) in jobs.into_iter().zip(results) {
        let cubin = cubin.unwrap_or_else(|e| panic!("{arch} {defines:?} {}: {e:#}", variant.name()));
        assert!(!cubin.image.is_empty());
        // RENDERER_TEST_CUBINS=dir keeps the cubins, for nvdisasm (tools/kernel-sass.sh).
        if let Some(dir) = std::env::var_os("RENDERER_TEST_CUBINS") {
            let name = format!(
                "{arch}{}-{}.cubin",
                defines.iter().map(|d| format!("-{d}")).collect::<String>(),
                variant.name().replace(" + ", "+")
            );
            std::fs::write(Path::new(&dir).join(name), &cubin.image).expect("writing a cubin");
        }
        // Warnings are bugs waiting to happen; the log should hold only ptxas info.
        assert!(
            !cubin.log.contains("warning"),
            "{arch} {defines:?} {} compiled with warnings:\n{}",
            variant.name(),
            cubin.log
        );
        println!("--- {arch} {defines:?} {}", variant.name());
        for line in cubin
            .log
            .lines()
            .filter(|l| l.contains("entry function") || l.contains("registers") || l.contains("spill"))
        {
            println!("{line}");
        }
    }
}

#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn a_kernel_error_names_its_file_and_line() {
    let nvrtc = nvrtc();
    let mut sources = KernelSources::embedded();
    let scatter =
        sources.files.iter_mut().find(|f| f.name == "scatter.cuh").expect("scatter.cuh is embedded");
    let mut lines: Vec<&str> = scatter.text.lines().collect();
    lines.insert(9, "this is not C++;");
    scatter.text = lines.join("\n");
    let error = nvrtc
        .compile(&sources, &options(&[]).nvrtc_args("sm_90", Variant::of_features(features::all())))
        .expect_err("the broken kernel compiled");
    let message = format!("{error:#}");
    assert!(message.contains("kernels/scatter.cuh:10: error"), "no file:line in:\n{message}");
}

#[test]
fn every_file_in_kernels_is_embedded() {
    let on_disk = KernelSources::from_dir(&repo_root().join("kernels")).expect("reading kernels/");
    let embedded = KernelSources::embedded();
    let names = |s: &KernelSources| s.files.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&on_disk),
        names(&embedded),
        "renderer/build.rs embeds what KernelSources::from_dir reads"
    );
    assert_eq!(on_disk.files, embedded.files);
}
