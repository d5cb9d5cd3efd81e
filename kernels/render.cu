// The path tracer's kernels: the one translation unit NVRTC compiles (headers are
// header-only device code, so everything inlines). docs/path-tracing.md is the
// algorithm; renderer/src/backend/cuda/ launches these.
//
// Compile-time switches (renderer: env RENDERER_KERNEL_DEFINES, RENDERER_CUDA_BLOCK):
//   PT_BLOCK_W, PT_BLOCK_H   render block shape (arch.cuh)
//   PT_PATH_REGENERATION=0   one sample after another instead of path regeneration
//   PT_MIN_BLOCKS_PER_SM=n   __launch_bounds__ occupancy hint (arch.cuh)
//   PT_WIDE_BVH=1            walk compressed 8-wide BVH nodes (traverse_wide.cuh)
//   PT_COMPACT_NODES=1|0     walk 64-byte (1) or 128-byte (0) binary nodes whatever the scene's
//                            features say (device_nodes.cuh)
//   PT_FEATURES=bits         the scene features compiled in (features.cuh; set by the host)
//   PT_SAMPLER=code          the job's sampler, 1 for Sobol (features.cuh kSobol; set by the host)
//   PT_WARP_REFILL=k         with path regeneration: a lane whose path ended waits until k lanes
//                            of its warp are idle, then they start their next samples together
//                            (issue 40, lead 2); 0 starts each one at once. Default: 24 in
//                            modules with triangles, 0 without (docs/performance.md, "Warp-wide refill")
//   PT_CAMERA_PACKETS=1      with path regeneration: the lanes of a warp whose paths start in the
//                            same iteration walk the tree together for their camera rays, as one
//                            packet (issue 40, lead 1; traverse_packet.cuh)
//   PT_SORTED_BOUNCES=1      with path regeneration: each bounce's closest-hit rays sorted across
//                            the block before they are traced (issue 40, lead 3; sorted_bounces.cuh)

#include "arch.cuh"
#include "film.cuh"
#include "params.cuh"
#include "path.cuh"
#include "rng.cuh"
#include "denoise.cuh"
#include "view_transform.cuh"
#include "sampler.cuh"
#include "sorted_bounces.cuh"
#include "traverse_packet.cuh"

// Path regeneration is the default: it beat one sample after another at every size
// measured (docs/performance.md, "Choices in the code").
#ifndef PT_PATH_REGENERATION
#define PT_PATH_REGENERATION 1
#endif

#ifndef PT_CAMERA_PACKETS
#define PT_CAMERA_PACKETS 0
#endif
#ifndef PT_SORTED_BOUNCES
#define PT_SORTED_BOUNCES 0
#endif
static constexpr bool kCameraPackets = PT_CAMERA_PACKETS != 0;
static constexpr bool kSortedBounces = PT_SORTED_BOUNCES != 0;
static_assert(!(kCameraPackets || kSortedBounces) || (PT_PATH_REGENERATION && !PT_WIDE_BVH),
              "camera packets and sorted bounces walk the binary nodes, with path regeneration");
static_assert(!(kCameraPackets && kSortedBounces), "camera packets and sorted bounces are two schedules: pick one");

#if PT_PATH_REGENERATION
// Warp-wide refill pays on triangle scenes (the 1.31M icosphere 10 % faster, the meshes
// asset 7 %, the forest 3 %, the PBR showcase unchanged) and costs the sphere grids
// (1M: 2-17 %); RTIOW is within noise either way (docs/performance.md).
#ifdef PT_WARP_REFILL
static constexpr unsigned int kWarpRefill = PT_WARP_REFILL;
#else
static constexpr unsigned int kWarpRefill = kMeshes ? 24u : 0u;
#endif

// Path regeneration with warp-wide refill (issue 40, lead 2): a lane whose path ended
// idles until kWarpRefill lanes of its warp are idle (or every lane with work left
// is), then the idle lanes start their next samples in the same iteration, so their
// camera rays (neighbouring pixels) walk the tree together. `warp`: the lanes of this
// warp that render a pixel; each takes part in every vote until all are done. The
// same samples in the same order per pixel: the same image.
//
// With kCameraPackets, the lanes whose paths start in the same iteration trace their
// camera rays as one packet (traverse_packet.cuh).
template <bool kNee>
__device__ __forceinline__ float3 render_pixel_refill(unsigned int x, unsigned int y, unsigned int pixel_index,
                                                      unsigned int& rays, AovSum& aov, unsigned int warp) {
    float3 sum = make_float3(0.0f, 0.0f, 0.0f);
    if (params.samples == 0) return sum;
    const unsigned int seed_hash = pcg_hash(params.seed);
    unsigned int s = 0;
    Path p = start_path(x, y, pixel_index, params.first_sample, seed_hash);
    bool waiting = false, finished = false;
    for (;;) {
        const bool tracing = !waiting && !finished && p.depth < params.max_depth;
        const unsigned int packet = kCameraPackets ? __ballot_sync(warp, tracing && p.depth == 0) : 0u;
        if (!waiting && !finished) {
            bool extended = false;
            if (tracing) {
                ++rays;
                const Hit hit = kCameraPackets && p.depth == 0 ? traverse_packet(p.origin, p.dir, packet)
                                                               : traverse(p.origin, p.dir);
                extended = extend_path_at<kNee>(p, hit, rays);
            }
            if (extended) {
                ++p.depth;
            } else {
                add_sample(p, sum, aov);
                if (++s == params.samples) {
                    finished = true;
                } else {
                    waiting = true;
                }
            }
        }
        const unsigned int idle = __ballot_sync(warp, waiting || finished);
        const unsigned int done = __ballot_sync(warp, finished);
        if (done == warp) break;
        if (waiting && (__popc(idle) >= kWarpRefill || idle == warp)) {
            p = start_path(x, y, pixel_index, params.first_sample + s, seed_hash);
            waiting = false;
        }
    }
    return sum;
}

// Path regeneration (Novák, Havran & Dachsbacher 2010): the bounce loop and the sample
// loop are one loop, and a lane whose path ended starts its next sample at once. A warp
// then runs for the largest total number of segments among its lanes instead of the sum
// over samples of the longest path of each.
template <bool kNee>
__device__ __forceinline__ float3 render_pixel(unsigned int x, unsigned int y, unsigned int pixel_index,
                                               unsigned int& rays, AovSum& aov) {
    float3 sum = make_float3(0.0f, 0.0f, 0.0f);
    if (params.samples == 0) return sum;
    const unsigned int seed_hash = pcg_hash(params.seed);
    unsigned int s = 0;
    Path p = start_path(x, y, pixel_index, params.first_sample, seed_hash);
    for (;;) {
        if (p.depth < params.max_depth && extend_path<kNee>(p, rays)) {
            ++p.depth;
            continue;
        }
        add_sample(p, sum, aov);
        if (++s == params.samples) break;
        p = start_path(x, y, pixel_index, params.first_sample + s, seed_hash);
    }
    return sum;
}

// Path regeneration with sorted bounces (issue 40, lead 3): every thread of the block
// takes part in each bounce, whose closest-hit rays are traced in the block's sorted
// order (sorted_trace) and shaded by their own threads; a path that ended starts its
// pixel's next sample at once, as in render_pixel. `inside`: whether this thread has a
// pixel (one without still joins every bounce). The same samples in the same order per
// pixel: the same image.
template <bool kNee>
__device__ __forceinline__ float3 render_pixel_sorted(bool inside, unsigned int x, unsigned int y,
                                                      unsigned int pixel_index, unsigned int& rays, AovSum& aov) {
    float3 sum = make_float3(0.0f, 0.0f, 0.0f);
    const unsigned int seed_hash = pcg_hash(params.seed);
    const SortFrame frame = sort_frame();
    unsigned int s = 0;
    Path p = start_path(x, y, pixel_index, params.first_sample, seed_hash);
    bool finished = !inside || params.samples == 0;
    __shared__ unsigned int more[2];
    // Cleared before the first bounce's barriers, which come before any thread sets it.
    if (threadIdx.x == 0 && threadIdx.y == 0) more[0] = 0;
    unsigned int iteration = 0;
    for (;;) {
        const bool tracing = !finished && p.depth < params.max_depth;
        const Hit hit = sorted_trace(tracing, p.origin, p.dir, frame);
        if (!finished) {
            if (tracing) ++rays;
            if (tracing && extend_path_at<kNee>(p, hit, rays)) {
                ++p.depth;
            } else {
                add_sample(p, sum, aov);
                if (++s == params.samples) {
                    finished = true;
                } else {
                    p = start_path(x, y, pixel_index, params.first_sample + s, seed_hash);
                }
            }
        }
        // Whether any thread's pixel has samples left, through shared memory and a plain
        // barrier: __syncthreads_or's reduction barrier needs each warp converged, which the
        // branches above do not guarantee, even after a __syncwarp (compute-sanitizer
        // synccheck: "Divergent thread(s) in warp"; an illegal instruction on the forest).
        // Two flags, used in turn: iteration i clears the flag of iteration i + 1, which
        // every thread last read before the sort's barriers.
        if (threadIdx.x == 0 && threadIdx.y == 0) more[(iteration + 1) & 1] = 0;
        if (!finished) more[iteration & 1] = 1;
        __syncthreads();
        if (!more[iteration & 1]) break;
        ++iteration;
    }
    return sum;
}
#else
// One thread per pixel, its samples one after another: the simplest fast schedule.
template <bool kNee>
__device__ __forceinline__ float3 render_pixel(unsigned int x, unsigned int y, unsigned int pixel_index,
                                               unsigned int& rays, AovSum& aov) {
    const unsigned int seed_hash = pcg_hash(params.seed);
    float3 sum = make_float3(0.0f, 0.0f, 0.0f);
    for (unsigned int s = 0; s < params.samples; ++s) {
        sum += trace_sample<kNee>(x, y, pixel_index, params.first_sample + s, seed_hash, rays, aov);
    }
    return sum;
}
#endif

// Adds params.samples samples to every pixel of the film: one thread per pixel, blocks
// of PT_BLOCK_W x PT_BLOCK_H pixels (neighbouring rays take similar BVH paths).
template <bool kNee>
__device__ __forceinline__ void render_film() {
    const unsigned int x = blockIdx.x * PT_BLOCK_W + threadIdx.x;
    const unsigned int y = blockIdx.y * PT_BLOCK_H + threadIdx.y;
    unsigned int rays = 0;
    const bool inside = x < params.width && y < params.height;
    const unsigned int pixel_index = y * params.width + x;
    AovSum aov = aov_zero();
    // The AOV rays of the launch's samples that have them, before any path: every lane of
    // the block traces as many.
    if (kAovs && inside) {
        trace_pixel_aov_rays(aov, x, y, pixel_index, params.first_sample, params.samples, pcg_hash(params.seed), rays);
    }
    // No early return: count_rays needs every lane of the warp, the sorted bounces every
    // thread of the block.
#if PT_PATH_REGENERATION
    float3 sum;
    if (kSortedBounces) {
        sum = render_pixel_sorted<kNee>(inside, x, y, pixel_index, rays, aov);
    } else if (kWarpRefill || kCameraPackets) {
        const unsigned int warp = __ballot_sync(0xffffffffu, inside);
        if (inside) sum = render_pixel_refill<kNee>(x, y, pixel_index, rays, aov, warp);
    } else if (inside) {
        sum = render_pixel<kNee>(x, y, pixel_index, rays, aov);
    }
#else
    float3 sum;
    if (inside) sum = render_pixel<kNee>(x, y, pixel_index, rays, aov);
#endif
    if (inside) {
        accumulate(pixel_index, sum);
        if (kAovs) accumulate_aov(pixel_index, aov);
    }
    count_rays(rays);
}

// The two render kernels of a module: without next-event estimation (scenes without
// lights, and --no-nee) and with it over params.light_count > 0 lights. Everything else
// a scene may need (triangles, textures, the principled material...) is a feature of the
// module (features.cuh): the host compiles one module per set of features a scene uses,
// so a scene pays only for its own.
extern "C" __global__ void __launch_bounds__(PT_BLOCK_THREADS, PT_MIN_BLOCKS_PER_SM) render() {
    render_film<false>();
}
extern "C" __global__ void __launch_bounds__(PT_BLOCK_THREADS, PT_MIN_BLOCKS_PER_SM) render_lit() {
    render_film<true>();
}

// The render kernel's nodes from the blob's two node sections: node i of `count`
// gets boxes[i]'s rows (in a MirroredNode each followed by its mirror) and links[i]
// (device_nodes.cuh says why).
extern "C" __global__ void __launch_bounds__(FILM_THREADS)
    repack_nodes(const NodeBoxesRecord* __restrict__ boxes, const NodeLinksRecord* __restrict__ links,
                 DeviceNode* __restrict__ nodes, unsigned int count) {
    const unsigned int i = blockIdx.x * FILM_THREADS + threadIdx.x;
    if (i >= count) return;
    const NodeBoxesRecord b = boxes[i];
    const float4 axes[3] = {b.x, b.y, b.z};
    DeviceNode node = {};
    if constexpr (kCompactLayout) {
        for (int a = 0; a < 3; ++a) node.rows[a] = axes[a];
    } else {
        for (int a = 0; a < 3; ++a) {
            node.rows[2 * a] = axes[a];
            node.rows[2 * a + 1] = make_float4(axes[a].z, axes[a].w, axes[a].x, axes[a].y);
        }
    }
    node.links = make_uint4(links[i].left, links[i].right, 0u, 0u);
    nodes[i] = node;
}

// Each triangle's corners from the blob's triangles and vertices: triangle i of `count`
// gets its three vertices' positions as rows 3i..3i+2 (w 0), what the hit test reads
// (LaunchParams::triangle_corners; scene.rs, gather_corners, says why).
extern "C" __global__ void __launch_bounds__(FILM_THREADS)
    gather_corners(const TriangleRecord* __restrict__ triangles, const float4* __restrict__ vertices,
                   float4* __restrict__ corners, unsigned int count) {
    const unsigned int i = blockIdx.x * FILM_THREADS + threadIdx.x;
    if (i >= count) return;
    for (int k = 0; k < 3; ++k) {
        const float4 v = vertices[triangles[i].v[k]];
        corners[3 * i + k] = make_float4(v.x, v.y, v.z, 0.0f);
    }
}

// The film's average as RGBA8 (alpha 255): `inv_samples` = 1 / samples per pixel, then
// times `exposure_scale` (2^exposure, computed on the host), then the view transform
// `view` (BLOB_VIEW_*; view_transform.cuh).
extern "C" __global__ void __launch_bounds__(FILM_THREADS)
    tonemap(const float4* __restrict__ accum, uchar4* __restrict__ rgba, unsigned int pixels, float inv_samples,
            float exposure_scale, unsigned int view) {
    const unsigned int i = blockIdx.x * FILM_THREADS + threadIdx.x;
    if (i >= pixels) return;
    const float4 sum = accum[i];
    const float3 exposed = make_float3(sum.x * inv_samples * exposure_scale, sum.y * inv_samples * exposure_scale,
                                       sum.z * inv_samples * exposure_scale);
    rgba[i] = view_transform_rgba8(exposed, view);
}

// Test hook pinning the device RNG to the spec: for each (pixel_index, sample_index,
// seed, unused) writes (pcg_hash(pixel_index), the stream's initial state, its first
// next_u32, the bits of its second draw as next_f32).
extern "C" __global__ void __launch_bounds__(FILM_THREADS)
    rng_probe(const uint4* __restrict__ inputs, uint4* __restrict__ outputs, unsigned int count) {
    const unsigned int i = blockIdx.x * FILM_THREADS + threadIdx.x;
    if (i >= count) return;
    const uint4 in = inputs[i];
    Rng rng = rng_init(in.x, in.y, pcg_hash(in.z));
    const unsigned int state = rng.state;
    const unsigned int first = next_u32(rng);
    const float second = next_f32(rng);
    outputs[i] = make_uint4(pcg_hash(in.x), state, first, __float_as_uint(second));
}

// Test hook pinning the device Sobol sampler to the CPU's (sampler.rs): for each
// (index, dim, pixel_seed, unused) writes (sobol_sample(index, dim, pixel_seed), the
// unscrambled sobol(index, dim % 4), nested_uniform_scramble(index, pixel_seed), the
// bits of the sample as the float a Sobol module draws). In every module, whichever
// sampler it renders with.
extern "C" __global__ void __launch_bounds__(FILM_THREADS)
    sobol_probe(const uint4* __restrict__ inputs, uint4* __restrict__ outputs, unsigned int count) {
    const unsigned int i = blockIdx.x * FILM_THREADS + threadIdx.x;
    if (i >= count) return;
    const uint4 in = inputs[i];
    const unsigned int value = sobol_sample(in.x, in.y, in.z);
    const float f = (float)(value >> 8u) * 0x1p-24f;
    outputs[i] = make_uint4(value, sobol(in.x, in.y % SOBOL_GROUP_DIMS), nested_uniform_scramble(in.x, in.z),
                            __float_as_uint(f));
}
