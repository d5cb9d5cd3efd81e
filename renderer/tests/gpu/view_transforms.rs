//! The `tonemap` kernel against the host's [`Tonemap`] (`backend/tonemap.rs`): every
//! view and a few exposures on a ramp of colours from black to far past white, within
//! one 8-bit step (the kernels' fast-math `sqrtf`, `log2f` and `powf` against the CPU's
//! exact ones). Ignored unless asked for, as every GPU test.

use crate::gpu_support;

use gpu_support::{compile, cuda, rtiow_scene, view};
use renderer::backend::{Backend, FilmShape, FilmSums, Tonemap};
use scene_compiler::scene::ViewTransform;

/// Linear colours from 0 to 2^12 in eighth stops, grey and tinted (the tints mix
/// channels through AgX's matrices), with some exact zeros.
fn ramp() -> Vec<[f32; 3]> {
    let mut out = vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, 4.0]];
    for step in -160..=96 {
        let c = (step as f32 / 8.0).exp2();
        out.extend([[c, c, c], [c, 0.5 * c, 0.1 * c], [0.05 * c, 0.3 * c, c], [c, 0.0, 0.0]]);
    }
    out
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_tonemap_kernel_matches_the_host_for_every_view() {
    let mut gpu = cuda();
    let blob = compile(&rtiow_scene());
    gpu.upload(&view(&blob)).expect("upload");
    let colours = ramp();
    let width = colours.len() as u32;
    // One sample per pixel: the sums are the averages, on both sides exactly.
    let shape = FilmShape { width, height: 1, samples: 1, end: 1 };
    gpu.restore_film(&FilmSums { shape, sums: colours.clone(), aovs: Vec::new() }).expect("restore the film");
    for view in ViewTransform::ALL {
        for exposure in [0.0, 1.0, -2.5, 6.0] {
            let tonemap = Tonemap { exposure, view };
            let device = gpu.read_rgba8(tonemap).expect("read_rgba8");
            let host = tonemap.image(colours.iter().copied());
            assert_eq!(device.len(), host.len());
            let mut worst = 0;
            for (i, (d, h)) in device.chunks_exact(4).zip(host.chunks_exact(4)).enumerate() {
                assert_eq!(d[3], 255);
                for c in 0..3 {
                    let diff = (i32::from(d[c]) - i32::from(h[c])).abs();
                    worst = worst.max(diff);
                    assert!(
                        diff <= 1,
                        "{tonemap:?}: {:?} gives {d:?} on the GPU, {h:?} on the host",
                        colours[i]
                    );
                }
            }
            println!("{view:?} at {exposure:+} stops: largest difference {worst}");
        }
    }
}
