// What one dependent step between the phases of a decode step costs on this GPU, with the work a
// GEMV does on the way in: every block reads the whole activation vector the previous phase wrote
// and sums it over the block (as x is staged and RMS-reduced), and each block writes its own slice
// of the next vector. Four ways to chain the phases:
//   kernel       — one kernel per phase, replayed from a CUDA graph, as the decode step runs;
//   kernel+pdl   — the same with programmatic dependent launch (the next kernel's blocks wait in
//                  griddepcontrol.wait instead of being launched after the previous grid ends);
//   grid barrier — one resident kernel, the phases separated by cooperative groups' grid.sync():
//                  what a persistent decode step would pay between phases;
//   + weights    — the same, one block an SM, while each block copies its share of the next
//                  layer's weights (every five phases, as a layer has five: q|k|v, attention, o,
//                  gate_up, down) into shared memory a layer ahead, from a buffer larger than the
//                  L2: what a persistent step that keeps a small model's weights off the critical
//                  path would pay between phases. Three ways to copy: by cp.async (16 bytes a
//                  thread) all at a layer's first phase; the same, a fifth at each phase (fewer
//                  bytes in flight at once); and by bulk copies (one thread issues 16 KB a copy,
//                  completing on an mbarrier, so the other threads issue no loads for it). Each
//                  block checks every byte it copied.
// Every phase checks its sum (x holds integers, so the sum is exact in any order) and the final
// vector is checked on the host: a broken chain fails the bench instead of timing it.
//   bench_hop_probe [--phases 400] [--layer-kb 64]
// --layer-kb: a block's share of a layer's weights, in KB (64: qwen2-0.5b in NF4, 8.4 MB a layer
// over 132 SMs); the block holds two layers' shares, so at most 112.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bench_main.h"
#include "common/graph_timing.h"
#include "engine/cuda/bulk_copy.cuh"
#include "engine/cuda/cp_async.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/pdl.cuh"

namespace ec::bench {
namespace {

using engine::cuda::DeviceBuffer;
using engine::cuda::launch_pdl;
using engine::cuda::LaunchShape;
namespace cu = engine::cuda;

constexpr int kThreads = 256;  // the GEMVs' block size

// The sum of v over the block, the same in every thread.
__device__ float block_sum(float v) {
  __shared__ float part[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  float s = 0.0f;
  for (int w = 0; w < kThreads / 32; ++w) s += part[w];
  __syncthreads();
  return s;
}

// Phase k (0-based): x holds k in every element. Checks that the block sees all of it, then writes
// k + 1 into the block's slice of y.
__device__ void phase(const float* x, float* y, int cols, int k, unsigned* errors) {
  float v = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < cols; i += kThreads) v += x[i];
  const float s = block_sum(v);
  if (threadIdx.x == 0 && s != static_cast<float>(k) * static_cast<float>(cols)) {
    atomicAdd(errors, 1u);
  }
  const int per = (cols + static_cast<int>(gridDim.x) - 1) / static_cast<int>(gridDim.x);
  const int lo = static_cast<int>(blockIdx.x) * per;
  const int hi = min(cols, lo + per);
  for (int i = lo + static_cast<int>(threadIdx.x); i < hi; i += kThreads) {
    y[i] = static_cast<float>(k + 1);
  }
}

template <bool kPdl>
__global__ void __launch_bounds__(kThreads)
    phase_kernel(const float* x, float* y, int cols, int k, unsigned* errors) {
  if constexpr (kPdl) {
    pdl_wait();
    pdl_trigger();
  }
  phase(x, y, cols, k, errors);
}

// Puts both vectors back to 0 (the start of a replay of the kernel chain).
__global__ void zero_kernel(float* buffers, int n) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<int>(gridDim.x * blockDim.x)) {
    buffers[i] = 0.0f;
  }
}

__global__ void __launch_bounds__(kThreads)
    resident_kernel(float* buffers, int cols, int phases, unsigned* errors) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int k = 0; k < phases; ++k) {
    phase(buffers + (k % 2) * cols, buffers + ((k + 1) % 2) * cols, cols, k, errors);
    grid.sync();
  }
}

// The weights of the "+ weights" chain: `layers` layers of `units` 16-byte units a block, every
// byte 1; layer l of the chain copies layer l % layers, so the copies come from DRAM once the
// buffer is larger than the L2.
struct LayerWeights {
  const uint4* data;
  int layers;
  int units;
};

constexpr int kLayerPhases = 5;
constexpr uint32_t kWeightWord = 0x01010101u;

// How the resident chain copies a layer: not at all (the grid barrier alone), all at once by
// cp.async, a fifth a phase by cp.async, or all at once by bulk copies.
enum class Copy : int { none, at_once, spread, bulk };
constexpr Copy kCopies[] = {Copy::at_once, Copy::spread, Copy::bulk};

// Starts the copy of units [lo, hi) of this block's share of chain layer `layer` into `to`: as
// one cp.async group (16 bytes a thread at a time), or (kBulk) by thread 0 as bulk copies
// completing on mbarrier `bar`. Every thread's earlier reads of `to` are ordered before the copy by
// the grid barrier between, and thread 0's fence orders them before the async proxy's writes.
template <bool kBulk>
__device__ void copy_layer(const LayerWeights& w, int layer, int lo, int hi, uint4* to,
                           uint32_t bar) {
  const uint4* from =
      w.data + (static_cast<size_t>(layer % w.layers) * gridDim.x + blockIdx.x) * w.units;
  if constexpr (kBulk) {
    if (threadIdx.x == 0) {
      constexpr int kPiece = 1024;  // units: 16 KB a copy
      cu::fence_proxy_async_shared();
      cu::mbar_expect_bytes(bar, static_cast<uint32_t>(hi - lo) * 16u);
      for (int i = lo; i < hi; i += kPiece) {
        cu::bulk_copy(cu::smem_addr(to + i), from + i,
                      static_cast<uint32_t>(min(kPiece, hi - i)) * 16u, bar);
      }
    }
  } else {
    for (int i = lo + static_cast<int>(threadIdx.x); i < hi; i += kThreads) {
      cu::cp_async16(to + i, from + i);
    }
    cu::cp_async_commit();
  }
}

// The words of a copied share that are not the buffer's bytes (each thread's count).
__device__ unsigned wrong_words(const uint4* share, int units) {
  unsigned bad = 0;
  for (int i = static_cast<int>(threadIdx.x); i < units; i += kThreads) {
    const uint4 v = share[i];
    bad +=
        (v.x != kWeightWord) + (v.y != kWeightWord) + (v.z != kWeightWord) + (v.w != kWeightWord);
  }
  return bad;
}

// The resident chain with a layer's weights copied a layer ahead: while layer l's phases run,
// layer l + 1's copy goes into the other half of shared memory (started at layer l's first phase,
// or a fifth at each of its phases), and at layer l's first phase its own copy, started a layer
// before, is waited for and read.
template <Copy kCopy>
__global__ void __launch_bounds__(kThreads)
    resident_weights_kernel(float* buffers, int cols, int phases, LayerWeights w,
                            unsigned* errors) {
  constexpr bool kBulk = kCopy == Copy::bulk;
  extern __shared__ uint4 shares[];          // [2][w.units]
  __shared__ __align__(8) uint64_t bars[2];  // kBulk: the copies into half h complete on bars[h]
  const uint32_t bar[2] = {cu::smem_addr(&bars[0]), cu::smem_addr(&bars[1])};
  if (kBulk && threadIdx.x == 0) {
    cu::mbar_init(bar[0]);
    cu::mbar_init(bar[1]);
    cu::mbar_init_fence();
  }
  __syncthreads();
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const auto half = [&](int layer) { return shares + static_cast<size_t>(layer % 2) * w.units; };
  copy_layer<kBulk>(w, 0, 0, w.units, shares, bar[0]);
  for (int k = 0; k < phases; ++k) {
    const int layer = k / kLayerPhases, step = k % kLayerPhases;
    if (step == 0) {  // layer's own copy, complete before any of the next layer's starts
      if constexpr (kBulk) {
        // Layer l's copy is half l % 2's (l / 2 + 1)-th completion: phase parity (l / 2) & 1.
        cu::mbar_wait(bar[layer % 2], static_cast<uint32_t>(layer / 2) & 1u);
      } else {
        cu::cp_async_wait<0>();
      }
      __syncthreads();
      const unsigned bad = wrong_words(half(layer), w.units);
      if (bad != 0) atomicAdd(errors, bad);
    }
    if (kCopy == Copy::spread) {
      const int per = (w.units + kLayerPhases - 1) / kLayerPhases;
      copy_layer<false>(w, layer + 1, min(w.units, step * per), min(w.units, (step + 1) * per),
                        half(layer + 1), 0);
    } else if (step == 0) {
      copy_layer<kBulk>(w, layer + 1, 0, w.units, half(layer + 1), bar[(layer + 1) % 2]);
    }
    phase(buffers + (k % 2) * cols, buffers + ((k + 1) % 2) * cols, cols, k, errors);
    grid.sync();
  }
  // The copy started last is never read; the block waits for it before its shared memory goes.
  if constexpr (kBulk) {
    const int last = (phases - 1) / kLayerPhases + 1;
    cu::mbar_wait(bar[last % 2], static_cast<uint32_t>(last / 2) & 1u);
  } else {
    cu::cp_async_wait<0>();
  }
}

using WeightsKernel = void (*)(float*, int, int, LayerWeights, unsigned*);

WeightsKernel weights_kernel(Copy copy) {
  switch (copy) {
    case Copy::spread:
      return resident_weights_kernel<Copy::spread>;
    case Copy::bulk:
      return resident_weights_kernel<Copy::bulk>;
    case Copy::none:
    case Copy::at_once:
      break;
  }
  return resident_weights_kernel<Copy::at_once>;
}

struct Chain {
  DeviceBuffer<float> buffers;  // x and y of a phase, alternating
  DeviceBuffer<unsigned> errors;
  int cols;
  explicit Chain(int c) : buffers(2 * static_cast<size_t>(c)), errors(1), cols(c) {}
  void reset() {
    CUDA_CHECK(cudaMemset(buffers.get(), 0, buffers.bytes()));
    CUDA_CHECK(cudaMemset(errors.get(), 0, errors.bytes()));
  }
  // Fails unless every phase saw the whole vector and the last one wrote `phases` everywhere.
  void check(int phases, const char* how) const {
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> all = buffers.download();
    const float* last = all.data() + static_cast<size_t>(phases % 2) * cols;
    const unsigned bad = errors.download()[0];
    const bool written = std::all_of(last, last + cols,
                                     [phases](float v) { return v == static_cast<float>(phases); });
    if (bad != 0 || !written) {
      throw std::runtime_error(std::string(how) + " at " + std::to_string(cols) + " features: " +
                               std::to_string(bad) + " wrong phase sums or copied words" +
                               (written ? "" : ", and the last vector is not the expected one"));
    }
  }
};

// Seconds per phase with one kernel per phase, replayed from a graph (graph_seconds_per_launch
// replays it eight times; each replay begins with a kernel that puts the vector back to 0, so
// phase k always finds k).
double kernel_chain(Chain& c, int blocks, bool pdl, int phases, cudaStream_t stream) {
  const auto launch = [&](int k, cudaStream_t s) {
    const LaunchShape shape{dim3(static_cast<unsigned>(blocks)), dim3(kThreads)};
    const float* x = c.buffers.get() + static_cast<size_t>(k % 2) * c.cols;
    float* y = c.buffers.get() + static_cast<size_t>((k + 1) % 2) * c.cols;
    if (k == 0) {
      zero_kernel<<<64, kThreads, 0, s>>>(c.buffers.get(), 2 * c.cols);
      CUDA_CHECK_LAUNCH();
    }
    launch_pdl(pdl ? phase_kernel<true> : phase_kernel<false>, shape, s, pdl, x, y, c.cols, k,
               c.errors.get());
  };
  c.reset();
  const double t = graph_seconds_per_launch(launch, phases, stream);
  c.check(phases, pdl ? "kernel+pdl" : "kernel");
  return t;
}

// Seconds per phase in one resident kernel with a grid barrier after each phase: the median of 7
// launches after a warm-up. Unless `copy` is none, the "+ weights" chain copying w as `copy` says,
// in shared memory of two shares a block.
double barrier_chain(Chain& c, int blocks, int phases, Copy copy, const LayerWeights& w,
                     cudaStream_t stream) {
  cudaEvent_t a = nullptr, b = nullptr;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int rep = 0; rep < 8; ++rep) {
    c.reset();
    float* buffers = c.buffers.get();
    int cols = c.cols, n = phases;
    unsigned* errors = c.errors.get();
    LayerWeights weights = w;
    void* args[] = {&buffers, &cols, &n, &errors};
    void* weight_args[] = {&buffers, &cols, &n, &weights, &errors};
    CUDA_CHECK(cudaEventRecord(a, stream));
    if (copy == Copy::none) {
      CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(resident_kernel),
                                             dim3(static_cast<unsigned>(blocks)), dim3(kThreads),
                                             args, 0, stream));
    } else {
      CUDA_CHECK(cudaLaunchCooperativeKernel(
          reinterpret_cast<const void*>(weights_kernel(copy)), dim3(static_cast<unsigned>(blocks)),
          dim3(kThreads), weight_args, 2 * static_cast<size_t>(w.units) * sizeof(uint4), stream));
    }
    CUDA_CHECK(cudaEventRecord(b, stream));
    CUDA_CHECK(cudaEventSynchronize(b));
    c.check(phases, copy == Copy::none ? "grid barrier" : "grid barrier + weights");
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    if (rep > 0) t.push_back(ms * 1e-3 / phases);
  }
  (void)cudaEventDestroy(a);
  (void)cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int run(int argc, char** argv) {
  int phases = 400, layer_kb = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--phases") phases = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--layer-kb") layer_kb = std::atoi(argv[i + 1]);
  }
  if (layer_kb <= 0 || layer_kb > 112) {
    std::fprintf(stderr, "bench_hop_probe: --layer-kb must be an integer in 1..112\n");
    return 1;
  }
  // At most 800: the last sum, phases · 18,944, must stay below 2^24, where a float still holds
  // every integer, or the exact check of each phase's sum would fail on rounding.
  if (phases <= 0 || phases > 800) {
    std::fprintf(stderr, "bench_hop_probe: --phases must be an integer in 1..800\n");
    return 1;
  }
  int device = 0, sms = 0, cooperative = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, resident_kernel, kThreads, 0));
  // The "+ weights" chain: one block an SM, two shares of shared memory each, a buffer of at least
  // 512 MB (ten times the L2 of an H100 or H200).
  LayerWeights weights{nullptr, 0, layer_kb * 1024 / 16};
  const size_t weight_smem = 2 * static_cast<size_t>(weights.units) * sizeof(uint4);
  int weights_per_sm = 1;
  for (const Copy copy : kCopies) {
    const WeightsKernel kernel = weights_kernel(copy);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(weight_smem)));
    int per = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, kThreads, weight_smem));
    weights_per_sm = std::min(weights_per_sm, per);
  }
  const bool copy_weights = cooperative != 0 && weights_per_sm >= 1;
  const size_t layer_bytes = static_cast<size_t>(sms) * weights.units * sizeof(uint4);
  weights.layers = static_cast<int>((size_t{512} << 20) / layer_bytes + 1);
  DeviceBuffer<uint4> weight_buffer;  // only where the weights chains run
  if (copy_weights) {
    weight_buffer.resize(static_cast<size_t>(weights.layers) * sms * weights.units);
    CUDA_CHECK(cudaMemset(weight_buffer.get(), 1, weight_buffer.bytes()));
    weights.data = weight_buffer.get();
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::printf(
      "\nµs per phase (%d phases; each block reads the whole vector, sums it, writes its slice;\n"
      "+ weights: %d KB a block copied into shared memory every %d phases, %.1f MB a layer)\n\n"
      "| features | blocks | kernel | kernel+pdl | grid barrier | + weights, cp.async "
      "| + weights, a fifth a phase | + weights, bulk |\n|---|---|---|---|---|---|---|---|\n",
      phases, layer_kb, kLayerPhases, static_cast<double>(layer_bytes) / 1e6);
  // 896, 3,584 and 18,944: what qwen2-0.5b's and qwen2-7b's GEMVs read (hidden, and 7B's down).
  for (const int cols : {896, 3584, 18944}) {
    Chain chain(cols);
    for (const int blocks_per_sm : {1, 2}) {
      const int blocks = sms * blocks_per_sm;
      const double plain = kernel_chain(chain, blocks, false, phases, stream);
      const double pdl = kernel_chain(chain, blocks, true, phases, stream);
      std::string barrier = "—", copied[3] = {"—", "—", "—"};
      char text[32];
      if (cooperative != 0 && blocks_per_sm <= per_sm) {
        std::snprintf(text, sizeof text, "%.2f",
                      barrier_chain(chain, blocks, phases, Copy::none, weights, stream) * 1e6);
        barrier = text;
      }
      // A share is an SM's: the weights chains run one block an SM (the buffer holds that many).
      if (copy_weights && blocks_per_sm == 1) {
        for (int i = 0; i < 3; ++i) {
          std::snprintf(text, sizeof text, "%.2f",
                        barrier_chain(chain, blocks, phases, kCopies[i], weights, stream) * 1e6);
          copied[i] = text;
        }
      }
      std::printf("| %d | %d | %.2f | %.2f | %s | %s | %s | %s |\n", cols, blocks, plain * 1e6,
                  pdl * 1e6, barrier.c_str(), copied[0].c_str(), copied[1].c_str(),
                  copied[2].c_str());
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}

}  // namespace
}  // namespace ec::bench

int main(int argc, char** argv) {
  return ec::bench::bench_main("bench_hop_probe", ec::bench::run, argc, argv);
}
