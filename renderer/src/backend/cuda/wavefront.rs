//! The wavefront schedule on the host (kernels/wavefront.cuh says what runs on the
//! device): for kernels built with `PT_WAVEFRONT=1`, a frame is `wf_start`, then pairs
//! of `wf_trace` and `wf_shade` over a fixed pool of path slots, with the count of
//! live paths read back every [`PAIRS_PER_CHECK`] pairs to know when the work is done.

use std::sync::Arc;

use anyhow::Context;
use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, CudaStream, PushKernelArg};

use super::film_launch;

/// Launch pairs between read-backs of the live count: a read-back waits for the GPU,
/// and a pair with no live path costs only two near-empty launches.
const PAIRS_PER_CHECK: u32 = 8;
/// Bytes of state per slot: five float4 lanes and a hit (kernels/wavefront.cuh).
const SLOT_BYTES: usize = 5 * 16 + 8;

/// The wavefront kernels, present when the module was built with them.
pub struct WavefrontKernels {
    start: CudaFunction,
    trace: CudaFunction,
    trace_meshes: CudaFunction,
    /// By `nee << 2 | meshes << 1 | appearance`, as the render kernels.
    shade: [CudaFunction; 8],
    /// Path slots (`device_wf_slots`, kernels/render.cu).
    pub slots: u32,
}

impl WavefrontKernels {
    /// The kernels of `module`, which has `slots` path slots.
    pub fn load(module: &Arc<CudaModule>, slots: u32) -> anyhow::Result<WavefrontKernels> {
        let function = |name: &str| {
            module.load_function(name).with_context(|| format!("kernel `{name}` not in the module"))
        };
        Ok(WavefrontKernels {
            start: function("wf_start")?,
            trace: function("wf_trace")?,
            trace_meshes: function("wf_trace_meshes")?,
            shade: [
                function("wf_shade")?,
                function("wf_shade_appearance")?,
                function("wf_shade_meshes")?,
                function("wf_shade_full")?,
                function("wf_shade_lit")?,
                function("wf_shade_lit_appearance")?,
                function("wf_shade_lit_meshes")?,
                function("wf_shade_lit_full")?,
            ],
            slots,
        })
    }
}

/// The slots' state, their two queues and the three counters, made on first use.
pub struct WavefrontBuffers {
    state: CudaSlice<u8>,
    queues: CudaSlice<u32>,
    counters: CudaSlice<u32>,
}

impl WavefrontBuffers {
    pub fn new(stream: &Arc<CudaStream>, slots: u32) -> anyhow::Result<WavefrontBuffers> {
        let slots = slots as usize;
        Ok(WavefrontBuffers {
            state: stream
                .alloc_zeros::<u8>(slots * SLOT_BYTES)
                .context("allocating the wavefront's path slots")?,
            queues: stream.alloc_zeros::<u32>(2 * slots).context("allocating the wavefront's queues")?,
            counters: stream.alloc_zeros::<u32>(4).context("allocating the wavefront's counters")?,
        })
    }
}

/// Which variant of the shading kernel a scene runs (as the render kernels).
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub nee: bool,
    pub meshes: bool,
    pub appearance: bool,
}

/// Runs `items` work items (pixels × samples) with the launch parameters already in
/// the module's `params`; returns when every path has ended.
pub fn run(
    stream: &Arc<CudaStream>,
    kernels: &WavefrontKernels,
    buffers: &mut WavefrontBuffers,
    variant: Variant,
    items: u32,
) -> anyhow::Result<()> {
    let slots = kernels.slots;
    let cfg = film_launch(slots);
    let mut launch = stream.launch_builder(&kernels.start);
    launch
        .arg(&mut buffers.state)
        .arg(&mut buffers.queues)
        .arg(&mut buffers.counters)
        .arg(&slots)
        .arg(&items);
    // SAFETY: wf_start(float4*, unsigned*, unsigned*, unsigned slots, unsigned items): the
    // buffers were sized for `slots` (WavefrontBuffers::new), the counters hold 4.
    unsafe { launch.launch(cfg) }.context("launching wf_start")?;
    let trace = if variant.meshes { &kernels.trace_meshes } else { &kernels.trace };
    let shade = &kernels.shade[(usize::from(variant.nee) << 2)
        | (usize::from(variant.meshes) << 1)
        | usize::from(variant.appearance)];
    let mut parity = 0u32;
    loop {
        for _ in 0..PAIRS_PER_CHECK {
            let mut launch = stream.launch_builder(trace);
            launch
                .arg(&mut buffers.state)
                .arg(&buffers.queues)
                .arg(&mut buffers.counters)
                .arg(&slots)
                .arg(&parity);
            // SAFETY: wf_trace(float4*, const unsigned*, unsigned*, unsigned, unsigned), buffers as above.
            unsafe { launch.launch(cfg) }.context("launching wf_trace")?;
            let mut launch = stream.launch_builder(shade);
            launch
                .arg(&mut buffers.state)
                .arg(&mut buffers.queues)
                .arg(&mut buffers.counters)
                .arg(&slots)
                .arg(&parity)
                .arg(&items);
            // SAFETY: wf_shade(float4*, unsigned*, unsigned*, unsigned, unsigned, unsigned), as above.
            unsafe { launch.launch(cfg) }.context("launching wf_shade")?;
            parity ^= 1;
        }
        let counters = stream.clone_dtoh(&buffers.counters).context("reading the wavefront's live count")?;
        if counters[parity as usize] == 0 {
            return Ok(());
        }
    }
}
