// Where the NF4 decode GEMV spends its time: the production kernel and three stripped copies of
// its dot product on qwen2-7b's gate_up and down shapes, timed against the device-to-device copy
// measured in the same run. The stripped dots compute nothing useful (they are never validated or
// used); they only remove one part of the work at a time:
//   load    — the weights and scales are loaded, the dot is one XOR per word (memory floor);
//   lookup  — the 16 table reads per chunk, no x and no products;
//   math    — x and the 16 fp16 products per chunk, each code pair taken from the word itself
//             instead of the table;
//   full    — the production dot (nf4::Nf4Policy).
//   bench_nf4_probe [--reps 20] [--role gate_up|down] [--config r2p-u2] [--part full]
// (the filters pick one kernel, e.g. for a profiler run)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/bench_main.h"
#include "common/copy_ceiling.h"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/gemv_dispatch.cuh"
#include "engine/cuda/gemv_nf4_policy.cuh"

namespace ec::bench {
namespace {

using engine::cuda::DeviceBuffer;
using engine::cuda::GemvArgs;
using engine::cuda::GemvConfig;
using engine::cuda::GemvPipeline;

enum class Part { load, lookup, math, full };

// Byte k of v as a code pair without the table: one byte_perm, as the lookup's index takes.
__device__ __forceinline__ __half2 word_pair(uint32_t v, unsigned k) {
  const uint32_t bits = __byte_perm(v, 0u, 0x4440u | k) | 0x38003800u;
  return *reinterpret_cast<const __half2*>(&bits);
}

template <Part M>
struct ProbePolicy : engine::cuda::nf4::Nf4Policy {
  __device__ static float dot(uint4 w, const float4* x4, int rot, const unsigned char* fsmem,
                              int lane) {
    if constexpr (M == Part::full) {
      return Nf4Policy::dot(w, x4, rot, fsmem, lane);
    } else if constexpr (M == Part::load) {
      return __uint_as_float((w.x ^ w.y ^ w.z ^ w.w) & 0x3c003c00u);
    } else if constexpr (M == Part::lookup) {
      const LaneTable table = lane_table(fsmem, lane);
      const uint32_t words[4] = {w.x, w.y, w.z, w.w};
      uint32_t acc = 0;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (unsigned k = 0; k < 4; ++k) {
          const __half2 p = pair(table, words[i], k);
          acc ^= *reinterpret_cast<const uint32_t*>(&p);
        }
      }
      return __uint_as_float(acc & 0x3c003c00u);
    } else {
      return dot_pairs(w, x4, rot, [](uint32_t v, unsigned k) { return word_pair(v, k); });
    }
  }
};

__global__ void fill_bytes(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = static_cast<uint8_t>(h);
  }
}

__global__ void fill_floats(float* p, size_t n, float lo, float span) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = lo + span * static_cast<float>((i * 7919u) % 1000u) / 1000.0f;
  }
}

struct Nf4Matrix {
  DeviceBuffer<uint8_t> codes;
  DeviceBuffer<float> scales;
  int rows = 0, cols = 0;
  Nf4Matrix(int r, int c, uint32_t seed) : codes(size_t(r) * c / 2), scales(size_t(r) * c / 64) {
    rows = r;
    cols = c;
    fill_bytes<<<1024, 256>>>(codes.get(), codes.size(), seed);
    fill_floats<<<256, 256>>>(scales.get(), scales.size(), 0.01f, 0.05f);
    CUDA_CHECK_LAUNCH();
  }
  engine::cuda::GemvSegment segment() const {
    engine::cuda::GemvSegment s;
    s.w = codes.get();
    s.scales = scales.get();
    s.rows = rows;
    return s;
  }
  size_t bytes() const { return codes.bytes() + scales.bytes(); }
};

struct Shape {
  const char* role;
  int rows, cols;
  bool swiglu;
};

template <class F>
double time_us(const std::vector<GemvArgs>& sets, const GemvConfig& cfg, int reps,
               cudaStream_t stream) {
  for (const GemvArgs& a : sets) engine::cuda::detail::dispatch_rows<F>(a, cfg, stream);
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < reps; ++i) {
    engine::cuda::detail::dispatch_rows<F>(sets[size_t(i) % sets.size()], cfg, stream);
  }
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  return static_cast<double>(ms) * 1e3 / reps;
}

int run(int argc, char** argv) {
  int reps = 20;
  std::string only_role, only_config, only_part;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--reps") reps = std::atoi(argv[i + 1]);
    if (k == "--role") only_role = argv[i + 1];
    if (k == "--config") only_config = argv[i + 1];
    if (k == "--part") only_part = argv[i + 1];
  }
  if (reps < 1) {
    std::fprintf(stderr, "bench_nf4_probe: --reps must be a positive integer\n");
    return 2;
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double ceiling = copy_ceiling(stream) / 1e9;
  std::printf("device-to-device copy (read+write) %.0f GB/s\n\n", ceiling);
  std::printf("| role | config | part | us | GB/s | %% of copy |\n|---|---|---|---|---|---|\n");
  const Shape shapes[] = {{"gate_up", 18944, 3584, true}, {"down", 3584, 18944, false}};
  int timed = 0;  // kernels the filters left; none is an error (a profiler would see nothing)
  DeviceBuffer<float> x(18944), gain(18944), y(18944);
  fill_floats<<<64, 256>>>(x.get(), x.size(), -1.0f, 2.0f);
  fill_floats<<<64, 256>>>(gain.get(), gain.size(), 0.8f, 0.4f);
  CUDA_CHECK_LAUNCH();
  for (const Shape& sh : shapes) {
    if (!only_role.empty() && only_role != sh.role) continue;
    // Two copies of the weights (each larger than L2 at these shapes), used alternately.
    std::vector<Nf4Matrix> mats;
    const int per_set = sh.swiglu ? 2 : 1;
    for (int i = 0; i < 2 * per_set; ++i) mats.emplace_back(sh.rows, sh.cols, 17u + i);
    std::vector<GemvArgs> sets;
    size_t bytes = 0;
    for (int s = 0; s < 2; ++s) {
      GemvArgs a;
      a.format = quant::Format::nf4;
      a.n_seg = per_set;
      a.swiglu = sh.swiglu;
      for (int k = 0; k < per_set; ++k) a.seg[k] = mats[size_t(s * per_set + k)].segment();
      a.cols = sh.cols;
      a.x = x.get();
      a.norm = sh.swiglu ? gain.get() : nullptr;
      a.norm_eps = 1e-6;
      a.y = y.get();
      sets.push_back(a);
    }
    for (int k = 0; k < per_set; ++k) bytes += mats[size_t(k)].bytes();
    for (const GemvConfig& cfg : engine::cuda::gemv_candidates(sets[0])) {
      if (cfg.pipeline == GemvPipeline::l2_prefetch || !cfg.persistent) continue;
      const std::string name = engine::cuda::gemv_config_name(cfg);
      if (!only_config.empty() && only_config != name) continue;
      ++timed;
      const char* names[4] = {"load", "lookup", "math", "full"};
      const auto wanted = [&](int p) { return only_part.empty() || only_part == names[p]; };
      const double t[4] = {
          wanted(0) ? time_us<ProbePolicy<Part::load>>(sets, cfg, reps, stream) : 0.0,
          wanted(1) ? time_us<ProbePolicy<Part::lookup>>(sets, cfg, reps, stream) : 0.0,
          wanted(2) ? time_us<ProbePolicy<Part::math>>(sets, cfg, reps, stream) : 0.0,
          wanted(3) ? time_us<ProbePolicy<Part::full>>(sets, cfg, reps, stream) : 0.0};
      for (int p = 0; p < 4; ++p) {
        if (!wanted(p)) continue;
        const double gbps = double(bytes) / (t[p] * 1e-6) / 1e9;
        std::printf("| %s | %s | %s | %.1f | %.0f | %.1f |\n", sh.role, name.c_str(), names[p],
                    t[p], gbps, 100.0 * gbps / ceiling);
      }
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (timed == 0) {
    // The resident variants without an L2 prefetch only: -l2pf and one-block-per-group configs
    // are not probed.
    std::fprintf(stderr,
                 "bench_nf4_probe: no probed variant matches --role '%s' --config '%s' (resident "
                 "variants without -l2pf, as gemv_config_name() names them)\n",
                 only_role.c_str(), only_config.c_str());
    return 2;
  }
  return 0;
}

}  // namespace
}  // namespace ec::bench

int main(int argc, char** argv) {
  return ec::bench::bench_main("bench_nf4_probe", ec::bench::run, argc, argv);
}
