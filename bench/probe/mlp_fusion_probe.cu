// What one kernel for a layer's whole MLP would save in decode, FP16: gate_up and down_proj as the
// engine runs them (two GEMVs, PDL, the variants named on the command line, by default the H100
// table's for the model) against one fused kernel in which each block computes its share of the
// SwiGLU activation and at once multiplies it by down_proj's matching columns (stored transposed,
// so a block reads whole rows), adding its partial output into the layer's output by atomics:
// fp32 (whose rounding depends on the order the adds land in) or int64 fixed point (exact sums,
// the same bits in any order). The fused kernel drops one hand-off, down_proj's staging of the
// 4,864- or 18,944-wide activation and the activation's round trip through L2; it pays one atomic
// add of the hidden vector per block. Each layer has its own weights (a model's MLP weights, more
// bytes than the L2). The chains' final residuals are compared (relative to their largest
// element): a broken fused kernel fails the bench instead of being timed; two passes of each chain
// are compared bit for bit. µs per layer, the weights' GB/s and its ratio to the device-to-device
// copy measured in the same run.
//   bench_mlp_fusion_probe [--model qwen2-0.5b|qwen2-7b] [--gu r2p-whole+pdl] [--down r1p-bulk+pdl]
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bench_main.h"
#include "common/copy_ceiling.h"
#include "common/graph_timing.h"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/half_dot.cuh"
#include "engine/cuda/pdl.cuh"

namespace ec::bench {
namespace {

using engine::cuda::DeviceBuffer;
using engine::cuda::dot8;
using engine::cuda::f16x2;
using engine::cuda::GemvArgs;
using engine::cuda::GemvConfig;
using engine::cuda::launch_pdl;
using engine::cuda::LaunchShape;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxRows = 256;      // activation rows a fused block may own
constexpr int kUnitsInFlight = 4;  // 16-byte weight units a lane loads per row before its products
constexpr int kDownRowsInFlight = 8;
constexpr float kEps = 1e-6f;

struct Shape {
  const char* model;
  int hidden, inter, layers;
  const char* gu;
  const char* down;
};

// The H100 table's FP16 variants for these shapes (data/tuning/nvidia-h100-80gb-hbm3-cc9.0.json).
constexpr Shape kShapes[] = {
    {"qwen2-0.5b", 896, 4864, 24, "r2p-whole+pdl", "r1p-bulk+pdl"},
    {"qwen2-7b", 3584, 18944, 28, "r2p-bulk-u2+pdl", "r2p-bulk+pdl"},
};

// A weight in [-scale, scale) from a hash of its place: the same value wherever it is stored.
__device__ __forceinline__ float hashed(uint64_t key, float scale) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ull;
  key ^= key >> 33;
  return (static_cast<float>(key & 0xffffffu) / 8388608.0f - 1.0f) * scale;
}

// Layer l's weights: gate and up rows [2 · inter][hidden], down [hidden][inter] and its transpose
// [inter][hidden] (the same values), the RMSNorm gain [hidden].
__global__ void fill_layer(__half* gu, __half* down, __half* down_t, float* gain, int hidden,
                           int inter, int layer) {
  const uint64_t base = static_cast<uint64_t>(layer) << 40;
  const size_t n = static_cast<size_t>(inter) * hidden;
  const float gu_scale = 1.7f / sqrtf(static_cast<float>(hidden));
  const float down_scale = 1.7f / sqrtf(static_cast<float>(inter));
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    gu[i] = __float2half(hashed(base + i, gu_scale));
    gu[n + i] = __float2half(hashed(base + n + i, gu_scale));
    const size_t h = i / inter, j = i % inter;  // down[h][j]
    const __half w = __float2half(hashed(base + 2 * n + i, down_scale));
    down[i] = w;
    down_t[j * hidden + h] = w;
  }
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < static_cast<size_t>(hidden);
       i += size_t{gridDim.x} * blockDim.x) {
    gain[i] = 1.0f + hashed(base + 3 * n + i, 0.25f);
  }
}

struct FusedArgs {
  const __half* gu;      // [2 · inter][hidden]: gate rows, then up rows
  const __half* down_t;  // [inter][hidden]
  const float* gain;     // [hidden]
  const float* x;        // the layer's input as the layer before stored it
  const void* add;       // the layer before's MLP output, to add to x (null for the first)
  float* x_store;        // where block 0 stores x + add: the next layer's x
  void* out;             // this layer's MLP output, accumulated by atomics (zero at the start)
  void* zero;            // a later layer's `out`, zeroed here by block 0 (null: none)
  int hidden, inter;
  bool prefetch_down;  // the block's down_proj rows into L2 as it starts (where they fit)
};

__device__ __forceinline__ void add8(float* acc, float a, uint4 w) {
  const __half2* h = reinterpret_cast<const __half2*>(&w);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 f = __half22float2(h[k]);
    acc[2 * k] = fmaf(a, f.x, acc[2 * k]);
    acc[2 * k + 1] = fmaf(a, f.y, acc[2 * k + 1]);
  }
}

__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// The fixed-point accumulation: int64 in units of 2^-32, whose sums are exact and so the same in
// any order (bit-reproducible), for |outputs| below 2^31.
constexpr double kFixedOne = 4294967296.0;

// out[i..i + 7] += v by atomics, out holding fp32 (kFixed false; the order of the adds sets the
// rounding) or int64 fixed point.
template <bool kFixed>
__device__ __forceinline__ void atomic_add8(void* out, int i, const float* v) {
  if constexpr (kFixed) {
    auto* o = static_cast<unsigned long long*>(out) + i;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      atomicAdd(o + k, static_cast<unsigned long long>(
                           __double2ll_rn(static_cast<double>(v[k]) * kFixedOne)));
    }
    return;
  }
  float* f = static_cast<float*>(out) + i;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float4*>(f), make_float4(v[0], v[1], v[2], v[3]));
  atomicAdd(reinterpret_cast<float4*>(f + 4), make_float4(v[4], v[5], v[6], v[7]));
#else
  for (int k = 0; k < 8; ++k) atomicAdd(f + k, v[k]);
#endif
}

// acc += Σ act[r] · down_t[j0 + r][8 unit .. 8 unit + 7] over rows r = first, first + step, ...,
// kDownRowsInFlight rows' loads in flight.
__device__ __forceinline__ void down_rows(const FusedArgs& a, int j0, int rows, const float* act,
                                          int unit, int first, int step, float* acc) {
  for (int r0 = first; r0 < rows; r0 += step * kDownRowsInFlight) {
    uint4 w[kDownRowsInFlight];
#pragma unroll
    for (int k = 0; k < kDownRowsInFlight; ++k) {
      const int r = r0 + k * step;
      if (r < rows) {
        w[k] =
            reinterpret_cast<const uint4*>(a.down_t + static_cast<size_t>(j0 + r) * a.hidden)[unit];
      }
    }
#pragma unroll
    for (int k = 0; k < kDownRowsInFlight; ++k) {
      const int r = r0 + k * step;
      if (r < rows) add8(acc, act[r], w[k]);
    }
  }
}

// Element i of an output buffer, fp32 or int64 fixed point.
template <bool kFixed>
__device__ __forceinline__ float output_at(const void* out, int i) {
  if constexpr (kFixed) {
    return static_cast<float>(static_cast<double>(static_cast<const long long*>(out)[i]) /
                              kFixedOne);
  } else {
    return static_cast<const float*>(out)[i];
  }
}

// One layer's MLP: block b owns activation rows [b · inter / grid, (b + 1) · inter / grid).
// Shared memory: the normalised x [hidden], the block's activations [kMaxRows], and the partial
// outputs of the thread groups past the first [hidden each].
template <bool kFixed>
__global__ void __launch_bounds__(kThreads) fused_mlp(FusedArgs a) {
  extern __shared__ float4 smem4[];
  float* xs = reinterpret_cast<float*>(smem4);
  float* act = xs + a.hidden;
  float* part = act + kMaxRows;
  __shared__ float warp_ss[kWarps];
  const int t = static_cast<int>(threadIdx.x), lane = t & 31, warp = t >> 5;
  const int j0 = static_cast<int>(static_cast<long long>(blockIdx.x) * a.inter / gridDim.x);
  const int j1 = static_cast<int>(static_cast<long long>(blockIdx.x + 1) * a.inter / gridDim.x);
  const int rows = j1 - j0;
  pdl_trigger();
  // Weights do not depend on the layer before: the warp's first gate and up rows (and, where
  // asked, the block's down_proj rows) start towards L2 while the layer before finishes.
  const size_t row_bytes = static_cast<size_t>(a.hidden) * sizeof(__half);
  if (warp < rows) {
    const size_t n_bytes = static_cast<size_t>(a.inter) * row_bytes;
    const char* g = reinterpret_cast<const char*>(a.gu) + (j0 + warp) * row_bytes;
    for (size_t off = static_cast<size_t>(lane) * 128; off < row_bytes; off += 32 * 128) {
      prefetch_l2(g + off);
      prefetch_l2(g + n_bytes + off);
    }
  }
  if (a.prefetch_down) {
    const char* d = reinterpret_cast<const char*>(a.down_t) + j0 * row_bytes;
    for (size_t off = static_cast<size_t>(t) * 128; off < rows * row_bytes; off += kThreads * 128) {
      prefetch_l2(d + off);
    }
  }
  pdl_wait();
  // x = x + add, its RMS, x normalised times the gain.
  float ss = 0.0f;
  for (int i = t; i < a.hidden; i += kThreads) {
    const float v = a.x[i] + (a.add != nullptr ? output_at<kFixed>(a.add, i) : 0.0f);
    xs[i] = v;
    ss += v * v;
    if (blockIdx.x == 0) a.x_store[i] = v;
  }
  if (blockIdx.x == 0 && a.zero != nullptr) {
    for (int i = t; i < a.hidden; i += kThreads) {
      if constexpr (kFixed) {
        static_cast<long long*>(a.zero)[i] = 0;
      } else {
        static_cast<float*>(a.zero)[i] = 0.0f;
      }
    }
  }
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if (lane == 0) warp_ss[warp] = ss;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < kWarps; ++w) total += warp_ss[w];
  const float scale = rsqrtf(total / static_cast<float>(a.hidden) + kEps);
  for (int i = t; i < a.hidden; i += kThreads) xs[i] = xs[i] * scale * a.gain[i];
  __syncthreads();

  // gate_up: a warp a row pair (gate j, up j) at a time, kUnitsInFlight units a lane in flight.
  const int units = a.hidden / 8;
  const size_t n = static_cast<size_t>(a.inter) * a.hidden;
  for (int r = warp; r < rows; r += kWarps) {
    const uint4* g = reinterpret_cast<const uint4*>(a.gu + static_cast<size_t>(j0 + r) * a.hidden);
    const uint4* u =
        reinterpret_cast<const uint4*>(a.gu + n + static_cast<size_t>(j0 + r) * a.hidden);
    float gs = 0.0f, us = 0.0f;
    for (int c0 = 0; c0 < units; c0 += 32 * kUnitsInFlight) {
      uint4 wg[kUnitsInFlight], wu[kUnitsInFlight];
#pragma unroll
      for (int k = 0; k < kUnitsInFlight; ++k) {
        const int c = c0 + lane + 32 * k;
        if (c < units) {
          wg[k] = g[c];
          wu[k] = u[c];
        }
      }
#pragma unroll
      for (int k = 0; k < kUnitsInFlight; ++k) {
        const int c = c0 + lane + 32 * k;
        if (c < units) {
          const float4* xc = reinterpret_cast<const float4*>(xs + 8 * c);
          gs += dot8<f16x2>(wg[k], xc, 0);
          us += dot8<f16x2>(wu[k], xc, 0);
        }
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      gs += __shfl_xor_sync(0xffffffffu, gs, o);
      us += __shfl_xor_sync(0xffffffffu, us, o);
    }
    if (lane == 0) act[r] = gs / (1.0f + __expf(-gs)) * us;
  }
  __syncthreads();

  // down_proj's columns j0..j1, 8 outputs (one 16-byte unit of a row) a thread. Where the hidden
  // size leaves threads over (qwen2-0.5b: 112 units, 256 threads), `groups` threads share a unit,
  // each taking every groups-th row; their partial outputs meet in shared memory.
  const int groups = max(1, kThreads / units);
  if (groups > 1) {
    const int group = t / units, unit = t % units;
    const bool active = group < groups;
    float acc[8] = {};
    if (active) down_rows(a, j0, rows, act, unit, group, groups, acc);
    if (active && group > 0) {
#pragma unroll
      for (int k = 0; k < 8; ++k) part[(group - 1) * a.hidden + 8 * unit + k] = acc[k];
    }
    __syncthreads();
    if (active && group == 0) {
      for (int g = 1; g < groups; ++g) {
#pragma unroll
        for (int k = 0; k < 8; ++k) acc[k] += part[(g - 1) * a.hidden + 8 * unit + k];
      }
      atomic_add8<kFixed>(a.out, 8 * unit, acc);
    }
  } else {
    for (int unit = t; unit < units; unit += kThreads) {
      float acc[8] = {};
      down_rows(a, j0, rows, act, unit, 0, 1, acc);
      atomic_add8<kFixed>(a.out, 8 * unit, acc);
    }
  }
}

// One model's MLP weights for every layer, and the two chains' activations.
struct Model {
  Shape shape;
  std::vector<DeviceBuffer<__half>> gu, down, down_t;
  std::vector<DeviceBuffer<float>> gain;
  DeviceBuffer<float> x0, x, act;     // the engine chain: x in place, the activation between
  DeviceBuffer<float> base, out;      // the fused chain: each layer's x, each layer's MLP output
  DeviceBuffer<long long> out_fixed;  // the same outputs in fixed point

  explicit Model(const Shape& s) : shape(s) {
    const size_t n = static_cast<size_t>(s.inter) * s.hidden;
    for (int l = 0; l < s.layers; ++l) {
      gu.emplace_back(2 * n);
      down.emplace_back(n);
      down_t.emplace_back(n);
      gain.emplace_back(static_cast<size_t>(s.hidden));
      fill_layer<<<1024, kThreads>>>(gu.back().get(), down.back().get(), down_t.back().get(),
                                     gain.back().get(), s.hidden, s.inter, l);
      CUDA_CHECK_LAUNCH();
    }
    std::vector<float> start(static_cast<size_t>(s.hidden));
    for (size_t i = 0; i < start.size(); ++i) start[i] = std::sin(0.37 * static_cast<double>(i));
    x0.resize(start.size());
    x0.upload(std::span<const float>(start));
    x.resize(start.size());
    act.resize(static_cast<size_t>(s.inter));
    base.resize(static_cast<size_t>(s.layers + 1) * s.hidden);
    out.resize(static_cast<size_t>(s.layers) * s.hidden);
    out_fixed.resize(out.size());
    CUDA_CHECK(cudaMemcpy(base.get(), x0.get(), x0.bytes(), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  double layer_bytes() const { return 3.0 * shape.inter * shape.hidden * sizeof(__half); }
};

// Layer l as the engine runs it: gate_up (RMSNorm, SwiGLU) into act, down_proj plus the residual
// back into x.
void engine_layer(Model& m, int l, const GemvConfig& gu_cfg, const GemvConfig& down_cfg,
                  cudaStream_t stream) {
  const Shape& s = m.shape;
  const size_t n = static_cast<size_t>(s.inter) * s.hidden;
  GemvArgs gu;
  gu.format = quant::Format::fp16;
  gu.seg[0].w = m.gu[l].get();
  gu.seg[0].rows = s.inter;
  gu.seg[1].w = m.gu[l].get() + n;
  gu.seg[1].rows = s.inter;
  gu.n_seg = 2;
  gu.swiglu = true;
  gu.cols = s.hidden;
  gu.x = m.x.get();
  gu.norm = m.gain[l].get();
  gu.norm_eps = kEps;
  gu.y = m.act.get();
  engine::cuda::gemv(gu, gu_cfg, stream);
  GemvArgs down;
  down.format = quant::Format::fp16;
  down.seg[0].w = m.down[l].get();
  down.seg[0].rows = s.hidden;
  down.cols = s.inter;
  down.x = m.act.get();
  down.residual = m.x.get();
  down.y = m.x.get();
  engine::cuda::gemv(down, down_cfg, stream);
}

size_t fused_shared_bytes(const Shape& s) {
  const int groups = std::max(1, kThreads / (s.hidden / 8));
  return static_cast<size_t>(s.hidden + kMaxRows + (groups - 1) * s.hidden) * sizeof(float);
}

// How the fused kernel accumulates its output: fp32 atomics, or int64 fixed point.
enum class Sum { fp32, fixed };

// Layer l as one fused kernel of `blocks` blocks, launched with PDL as the engine's GEMVs are.
void fused_layer(Model& m, int l, int blocks, bool prefetch_down, Sum sum, cudaStream_t stream) {
  const Shape& s = m.shape;
  const size_t h = static_cast<size_t>(s.hidden);
  const bool fixed = sum == Sum::fixed;
  const auto out = [&](size_t layer) -> void* {
    return fixed ? static_cast<void*>(m.out_fixed.get() + layer * h)
                 : static_cast<void*>(m.out.get() + layer * h);
  };
  FusedArgs a{m.gu[l].get(),
              m.down_t[l].get(),
              m.gain[l].get(),
              m.base.get() + l * h,
              l > 0 ? out(static_cast<size_t>(l) - 1) : nullptr,
              m.base.get() + (l + 1) * h,
              out(static_cast<size_t>(l)),
              out(static_cast<size_t>((l + 1) % s.layers)),
              s.hidden,
              s.inter,
              prefetch_down};
  launch_pdl(
      fixed ? fused_mlp<true> : fused_mlp<false>,
      LaunchShape{dim3(static_cast<unsigned>(blocks)), dim3(kThreads), fused_shared_bytes(s)},
      stream, true, a);
}

// The engine chain's residual after one pass over the layers from x0.
std::vector<float> engine_pass(Model& m, const GemvConfig& gu_cfg, const GemvConfig& down_cfg,
                               cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpy(m.x.get(), m.x0.get(), m.x0.bytes(), cudaMemcpyDeviceToDevice));
  for (int l = 0; l < m.shape.layers; ++l) engine_layer(m, l, gu_cfg, down_cfg, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return m.x.download();
}

// The fused chain's residual after one pass over the layers from x0.
std::vector<float> fused_pass(Model& m, int blocks, Sum sum, cudaStream_t stream) {
  const Shape& s = m.shape;
  const size_t h = static_cast<size_t>(s.hidden);
  CUDA_CHECK(cudaMemset(m.out.get(), 0, m.out.bytes()));
  CUDA_CHECK(cudaMemset(m.out_fixed.get(), 0, m.out_fixed.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int l = 0; l < s.layers; ++l) fused_layer(m, l, blocks, true, sum, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> base = m.base.download();
  const std::vector<float> out = m.out.download();
  const std::vector<long long> out_fixed = m.out_fixed.download();
  std::vector<float> x(h);
  const size_t last = static_cast<size_t>(s.layers - 1) * h;
  for (size_t i = 0; i < h; ++i) {
    const float add = sum == Sum::fixed
                          ? static_cast<float>(static_cast<double>(out_fixed[last + i]) / kFixedOne)
                          : out[last + i];
    x[i] = base[static_cast<size_t>(s.layers) * h + i] + add;
  }
  return x;
}

// Throws where the fused chain's residual differs from the engine's by more than the summation
// orders can explain (1 % of the largest element; a broken kernel is off by the whole vector).
// Says whether two fused passes gave the same bits.
std::string check(Model& m, int blocks, Sum sum, const std::vector<float>& want,
                  cudaStream_t stream) {
  const std::vector<float> got = fused_pass(m, blocks, sum, stream);
  const std::vector<float> again = fused_pass(m, blocks, sum, stream);
  double top = 0.0, worst = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    top = std::max(top, std::abs(static_cast<double>(want[i])));
    worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]));
  }
  if (!(top > 0.0) || !(worst <= 1e-2 * top)) {
    throw std::runtime_error(std::string(m.shape.model) +
                             ": the fused chain's residual is off by " + std::to_string(worst) +
                             " against the engine's largest |x| " + std::to_string(top) + " (" +
                             std::to_string(blocks) + " blocks)");
  }
  const bool same = std::equal(got.begin(), got.end(), again.begin(),
                               [](float p, float q) { return std::memcmp(&p, &q, sizeof p) == 0; });
  char text[96];
  std::snprintf(text, sizeof text, "%.1e; two passes %s", worst / top,
                same ? "bit-identical" : "differ");
  return text;
}

int run(int argc, char** argv) {
  std::string only, gu_name, down_name;
  if (argc % 2 == 0) {
    throw std::runtime_error(std::string("flag ") + argv[argc - 1] + " without a value");
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--model")
      only = argv[i + 1];
    else if (flag == "--gu")
      gu_name = argv[i + 1];
    else if (flag == "--down")
      down_name = argv[i + 1];
    else
      throw std::runtime_error("unknown flag " + flag + " (--model, --gu, --down)");
  }
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double copy = copy_ceiling(stream);
  std::printf("%s, %d SMs, copy %.0f GB/s\n\n", prop.name, sms, copy / 1e9);
  std::printf(
      "| model | chain | µs a layer | GB/s | %% of copy | against the engine (max |Δ| / max |x|) "
      "|\n"
      "|---|---|---:|---:|---:|---|\n");
  bool any = false;
  for (const Shape& shape : kShapes) {
    if (!only.empty() && only != shape.model) continue;
    any = true;
    const GemvConfig gu_cfg = engine::cuda::parse_gemv_config(gu_name.empty() ? shape.gu : gu_name);
    const GemvConfig down_cfg =
        engine::cuda::parse_gemv_config(down_name.empty() ? shape.down : down_name);
    const size_t smem = fused_shared_bytes(shape);
    CUDA_CHECK(cudaFuncSetAttribute(fused_mlp<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
    CUDA_CHECK(cudaFuncSetAttribute(fused_mlp<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
    Model m(shape);
    const auto row = [&](const std::string& chain, double seconds, const std::string& note) {
      const double gbs = m.layer_bytes() / seconds;
      std::printf("| %s | %s | %.2f | %.0f | %.1f | %s |\n", shape.model, chain.c_str(),
                  seconds * 1e6, gbs / 1e9, 100.0 * gbs / copy, note.c_str());
    };
    row("the weights at copy speed", m.layer_bytes() / copy, "");
    const std::vector<float> want = engine_pass(m, gu_cfg, down_cfg, stream);
    const std::vector<float> want_again = engine_pass(m, gu_cfg, down_cfg, stream);
    const double engine_s = graph_seconds_per_launch(
        [&](int l, cudaStream_t s) { engine_layer(m, l, gu_cfg, down_cfg, s); }, shape.layers,
        stream);
    row("engine: gate_up " + engine::cuda::gemv_config_name(gu_cfg) + ", down " +
            engine::cuda::gemv_config_name(down_cfg),
        engine_s, want == want_again ? "two passes bit-identical" : "two passes differ");
    for (const int per_sm : {1, 2, 3, 4}) {
      const int blocks = sms * per_sm;
      if ((shape.inter + blocks - 1) / blocks > kMaxRows) continue;
      for (const Sum sum : {Sum::fp32, Sum::fixed}) {
        const std::string note = check(m, blocks, sum, want, stream);
        for (const bool prefetch_down : {false, true}) {
          const double fused_s = graph_seconds_per_launch(
              [&](int l, cudaStream_t s) { fused_layer(m, l, blocks, prefetch_down, sum, s); },
              shape.layers, stream);
          row("fused, " + std::to_string(blocks) + " blocks, " +
                  (sum == Sum::fixed ? "int64 fixed-point" : "fp32") + " atomics" +
                  (prefetch_down ? ", down_proj's rows prefetched" : ""),
              fused_s, note);
        }
      }
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (!any) throw std::runtime_error("--model " + only + ": expected qwen2-0.5b or qwen2-7b");
  return 0;
}

}  // namespace
}  // namespace ec::bench

int main(int argc, char** argv) {
  return ec::bench::bench_main("bench_mlp_fusion_probe", ec::bench::run, argc, argv);
}
