// The wavefront schedule (PT_WAVEFRONT=1): the same paths as render.cu's megakernel,
// split into a closest-hit launch that holds no path state and a shading launch, with
// the live paths compacted into a queue between them (Laine, Karras & Aila,
// "Megakernels Considered Harmful", HPG 2013). A fixed pool of path slots, sized so
// their state stays in L2, runs the launch's work items: item w is sample
// first_sample + w / pixels of pixel w % pixels, pixels taken in 8-row bands of
// columns so that a warp's 32 camera rays cover a 4 x 8 tile. A slot whose path ends
// adds its sample to the film and takes the next item, so every slot stays busy until
// the pool is empty. Each item seeds its own random stream exactly as the megakernel
// does, so both schedules draw the same samples.
//
// The host (renderer/src/backend/cuda/wavefront.rs) launches wf_start, then pairs of
// wf_trace and wf_shade, reading the live count back every few pairs.
#pragma once

#include "arch.cuh"
#include "film.cuh"
#include "params.cuh"
#include "path.cuh"

// Per slot, five float4 lanes: (origin, bsdf_pdf), (dir, depth), (throughput, rng),
// (radiance, work item), (bounce point, 0); then each slot's hit (t bits, prim).
struct WavefrontState {
    float4* __restrict__ lanes;
    uint2* __restrict__ hits;
    unsigned int slots;
};

__device__ __forceinline__ WavefrontState wavefront_state(float4* state, unsigned int slots) {
    return WavefrontState{state, reinterpret_cast<uint2*>(state + 5u * slots), slots};
}

__device__ __forceinline__ void store_path(const WavefrontState& w, unsigned int slot, const Path& p,
                                           unsigned int item) {
    w.lanes[slot] = make_float4(p.origin.x, p.origin.y, p.origin.z, p.bsdf_pdf);
    w.lanes[w.slots + slot] = make_float4(p.dir.x, p.dir.y, p.dir.z, __uint_as_float(p.depth));
    w.lanes[2u * w.slots + slot] = make_float4(p.throughput.x, p.throughput.y, p.throughput.z,
                                               __uint_as_float(p.rng.state));
    w.lanes[3u * w.slots + slot] = make_float4(p.radiance.x, p.radiance.y, p.radiance.z, __uint_as_float(item));
    w.lanes[4u * w.slots + slot] = make_float4(p.bounce_point.x, p.bounce_point.y, p.bounce_point.z, 0.0f);
}

__device__ __forceinline__ Path load_path(const WavefrontState& w, unsigned int slot, unsigned int& item) {
    const float4 a = w.lanes[slot];
    const float4 b = w.lanes[w.slots + slot];
    const float4 c = w.lanes[2u * w.slots + slot];
    const float4 d = w.lanes[3u * w.slots + slot];
    const float4 e = w.lanes[4u * w.slots + slot];
    Path p;
    p.origin = make_float3(a.x, a.y, a.z);
    p.bsdf_pdf = a.w;
    p.dir = make_float3(b.x, b.y, b.z);
    p.depth = __float_as_uint(b.w);
    p.throughput = make_float3(c.x, c.y, c.z);
    p.rng.state = __float_as_uint(c.w);
    p.radiance = make_float3(d.x, d.y, d.z);
    item = __float_as_uint(d.w);
    p.bounce_point = make_float3(e.x, e.y, e.z);
    return p;
}

// Work item `item`'s pixel: (x, y) and its index in the film.
__device__ __forceinline__ uint3 item_pixel(unsigned int item) {
    const unsigned int pixels = params.width * params.height;
    const unsigned int p = item % pixels;
    const unsigned int band_pixels = params.width * 8u;
    const unsigned int band = p / band_pixels;
    const unsigned int rows = min(8u, params.height - band * 8u);
    const unsigned int within = p - band * band_pixels;
    const unsigned int x = within / rows;
    const unsigned int y = band * 8u + within % rows;
    return make_uint3(x, y, y * params.width + x);
}

__device__ __forceinline__ Path start_item(unsigned int item) {
    const uint3 px = item_pixel(item);
    const unsigned int sample = params.first_sample + item / (params.width * params.height);
    return start_path(px.x, px.y, px.z, sample, pcg_hash(params.seed));
}

// This thread's place among the block's threads with `flag` set, offset by one
// atomicAdd of the block's total to `*counter` (one atomic per block, not per path).
// Every thread of the block must call it.
__device__ __forceinline__ unsigned int block_claim(bool flag, unsigned int* counter) {
    __shared__ unsigned int warp_offsets[PT_FILM_THREADS / 32];
    __shared__ unsigned int block_base;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int ballot = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_offsets[warp] = __popc(ballot);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int sum = 0;
        for (unsigned int i = 0; i < PT_FILM_THREADS / 32; ++i) {
            const unsigned int n = warp_offsets[i];
            warp_offsets[i] = sum;
            sum += n;
        }
        block_base = sum > 0 ? atomicAdd(counter, sum) : 0u;
    }
    __syncthreads();
    const unsigned int rank = block_base + warp_offsets[warp] + __popc(ballot & ((1u << lane) - 1u));
    // The next call reuses the shared words.
    __syncthreads();
    return rank;
}

// counters[0], [1]: the live paths in queue 0 and 1; counters[2]: the next work item.
__device__ __forceinline__ void wavefront_start(float4* state, unsigned int* queues, unsigned int* counters,
                                                unsigned int slots, unsigned int items) {
    const WavefrontState w = wavefront_state(state, slots);
    const unsigned int slot = blockIdx.x * PT_FILM_THREADS + threadIdx.x;
    const unsigned int live = min(slots, items);
    if (slot == 0) {
        counters[0] = live;
        counters[1] = 0;
        counters[2] = live;
    }
    if (slot >= live) return;
    store_path(w, slot, start_item(slot), slot);
    queues[slot] = slot;
}

// The closest hit of every live path in queue `parity`; clears the other queue's count
// for the shading launch that follows.
template <bool kMeshes>
__device__ __forceinline__ void wavefront_trace(float4* state, const unsigned int* queues, unsigned int* counters,
                                                unsigned int slots, unsigned int parity) {
    const WavefrontState w = wavefront_state(state, slots);
    const unsigned int i = blockIdx.x * PT_FILM_THREADS + threadIdx.x;
    if (i == 0) counters[parity ^ 1u] = 0;
    const unsigned int live = counters[parity];
    unsigned int rays = 0;
    if (i < live) {
        const unsigned int slot = queues[parity * slots + i];
        const float4 a = w.lanes[slot];
        const float4 b = w.lanes[w.slots + slot];
        const Hit hit = traverse<kMeshes>(make_float3(a.x, a.y, a.z), make_float3(b.x, b.y, b.z));
        w.hits[slot] = make_uint2(__float_as_uint(hit.t), hit.prim);
        rays = 1;
    }
    count_rays(rays);
}

// Shades every live path of queue `parity` at its hit: a path that goes on, or a slot
// whose path ended and that took a new work item, joins the other queue.
template <bool kNee, bool kMeshes, bool kAppearance>
__device__ __forceinline__ void wavefront_shade(float4* state, unsigned int* queues, unsigned int* counters,
                                                unsigned int slots, unsigned int parity, unsigned int items) {
    const WavefrontState w = wavefront_state(state, slots);
    const unsigned int i = blockIdx.x * PT_FILM_THREADS + threadIdx.x;
    const unsigned int live = counters[parity];
    const bool active = i < live;
    unsigned int rays = 0;
    unsigned int slot = 0;
    unsigned int item = 0;
    Path p;
    bool goes_on = false;
    if (active) {
        slot = queues[parity * slots + i];
        p = load_path(w, slot, item);
        const uint2 h = w.hits[slot];
        goes_on = shade_path<kNee, kMeshes, kAppearance>(p, Hit{__uint_as_float(h.x), h.y}, rays) &&
                  ++p.depth < params.max_depth;
        if (!goes_on) {
            const float3 v = sample_value(p);
            float4* px = params.accum + item_pixel(item).z;
            atomicAdd(&px->x, v.x);
            atomicAdd(&px->y, v.y);
            atomicAdd(&px->z, v.z);
        }
    }
    const bool wants = active && !goes_on;
    const unsigned int next = block_claim(wants, &counters[2]);
    if (wants && next < items) {
        item = next;
        p = start_item(item);
        goes_on = true;
    }
    const unsigned int at = block_claim(goes_on, &counters[parity ^ 1u]);
    if (goes_on) {
        store_path(w, slot, p, item);
        queues[(parity ^ 1u) * slots + at] = slot;
    }
    count_rays(rays);
}
