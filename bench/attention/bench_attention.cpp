// Decode attention benchmark: for a preset's head shape and several context lengths, the fused
// kernel (RoPE + KV store + cluster-merged slices, attention_decode.cu) at 1 to 8 slices against
// the two-kernel path it replaces in decoding (rope_store, then the split attention of
// attention.cu). Each row is validated against the two-kernel path's output first, then timed as a
// chain of launches replayed from one CUDA graph. GB/s counts the cached keys and values a token
// attends over once, next to the device-to-device copy ceiling measured in the same run.
//   bench_attention [--presets qwen2-0.5b,qwen2-7b] [--lengths 16,272,1024,4096]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/bench_main.h"
#include "common/comma_list.h"
#include "common/copy_ceiling.h"
#include "common/graph_timing.h"
#include "common/rel_error.h"
#include "core/half.h"
#include "engine/cuda/attention.cuh"
#include "engine/cuda/attention_decode.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/rope.cuh"
#include "model/presets.h"

namespace ec::bench {
namespace {

using engine::cuda::DeviceBuffer;

constexpr int kChain = 64;  // launches per graph replay

// Deterministic values in [-scale, scale).
std::vector<float> values(size_t n, uint32_t seed, float scale) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 1u;
  for (float& f : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    f = (static_cast<float>(x >> 8) / 8388608.0f - 1.0f) * scale;
  }
  return v;
}

// Median µs per launch of `launch`, kChain launches back to back in one CUDA graph.
double time_chain(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream) {
  return 1e6 * graph_seconds_per_launch([&](int, cudaStream_t s) { launch(s); }, kChain, stream);
}

void bench_preset(const model::ModelConfig& c, int length, double ceiling, cudaStream_t stream) {
  const int D = c.head_dim, heads = c.num_heads, kv = c.num_kv_heads;
  const int capacity = length + 8, pos = length - 1;
  const int qkv_dim = (heads + 2 * kv) * D;
  const auto qkv_host = values(static_cast<size_t>(qkv_dim), 1, 1.5f);
  std::vector<uint16_t> cache_host(static_cast<size_t>(kv) * capacity * D);
  const auto cache_vals = values(cache_host.size(), 2, 1.5f);
  for (size_t i = 0; i < cache_host.size(); ++i) cache_host[i] = float_to_half(cache_vals[i]);
  std::vector<float> cos, sin;
  engine::cuda::rope_tables(D, c.rope_theta, capacity, cos, sin);
  auto d_cos = engine::cuda::to_device(std::span<const float>(cos));
  auto d_sin = engine::cuda::to_device(std::span<const float>(sin));
  auto d_start = engine::cuda::to_device(std::span<const int>(&pos, 1));
  auto qkv_fused = engine::cuda::to_device(std::span<const float>(qkv_host));
  auto qkv_split = engine::cuda::to_device(std::span<const float>(qkv_host));
  auto k_cache = engine::cuda::to_device(std::span<const uint16_t>(cache_host));
  auto v_cache = engine::cuda::to_device(std::span<const uint16_t>(cache_host));
  DeviceBuffer<float> out(static_cast<size_t>(heads) * D);
  const int splits = engine::cuda::attention_splits(1, kv, capacity);
  DeviceBuffer<float> partial(engine::cuda::attention_partial_floats(1, heads, D, splits));
  DeviceBuffer<unsigned> counters(static_cast<size_t>(kv));
  CUDA_CHECK(cudaMemset(counters.get(), 0, counters.bytes()));
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(D)));

  engine::cuda::RopeStoreArgs r;
  r.qkv = qkv_split.get();
  r.stride = qkv_dim;
  r.n_tokens = 1;
  r.n_heads = heads;
  r.kv_heads = kv;
  r.head_dim = D;
  r.start = d_start.get();
  r.cos = d_cos.get();
  r.sin = d_sin.get();
  r.k_cache = k_cache.get();
  r.v_cache = v_cache.get();
  r.capacity = capacity;
  engine::cuda::AttentionArgs at;
  at.q = qkv_split.get();
  at.q_stride = qkv_dim;
  at.k_cache = k_cache.get();
  at.v_cache = v_cache.get();
  at.capacity = capacity;
  at.n_heads = heads;
  at.kv_heads = kv;
  at.head_dim = D;
  at.n_tokens = 1;
  at.start = d_start.get();
  at.scale = scale;
  at.out = out.get();
  at.partial = partial.get();
  at.counters = counters.get();
  at.splits = splits;
  const auto two_kernels = [&](cudaStream_t s) {
    engine::cuda::rope_store(r, s);
    engine::cuda::attention(at, s);
  };
  // The reference: one pass of the two-kernel path on fresh q (rope_store rotates it in place).
  two_kernels(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> want = out.download();

  const double kv_bytes = 2.0 * length * kv * D * 2;  // keys and values attended over, fp16
  const auto row = [&](const std::string& name, double us, double err) {
    const double gbs = kv_bytes / (us * 1e-6) / 1e9;
    std::printf("| %s | %d | %s | %.2f | %.1f | %.2f | %.1e |\n", c.name.c_str(), length,
                name.c_str(), us, gbs, 100.0 * gbs * 1e9 / ceiling, err);
  };
  // Timed on rotated-again q: the values change from launch to launch, the work does not.
  row("rope_store + split attention (" + std::to_string(splits) + " slices)",
      time_chain(two_kernels, stream), 0.0);

  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  for (int s = 1; s <= engine::cuda::kDecodeAttentionMaxSplits; s *= 2) {
    if (!engine::cuda::decode_attention_supported(D, s, major)) continue;
    engine::cuda::DecodeAttentionArgs f;
    f.qkv = qkv_fused.get();
    f.n_heads = heads;
    f.kv_heads = kv;
    f.head_dim = D;
    f.start = d_start.get();
    f.cos = d_cos.get();
    f.sin = d_sin.get();
    f.k_cache = k_cache.get();
    f.v_cache = v_cache.get();
    f.capacity = capacity;
    f.scale = scale;
    f.out = out.get();
    f.splits = s;
    engine::cuda::decode_attention(f, true, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const double err = rel_error(out.download(), want);
    const auto fused = [&](cudaStream_t st) { engine::cuda::decode_attention(f, true, st); };
    row("fused, " + std::to_string(s) + " slices (PDL)", time_chain(fused, stream), err);
  }
}

int run(int argc, char** argv) {
  std::string presets = "qwen2-0.5b,qwen2-7b", lengths = "16,272,1024,4096";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--presets") presets = argv[i + 1];
    if (k == "--lengths") lengths = argv[i + 1];
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const double ceiling = copy_ceiling(stream);
  std::printf("device %s; device-to-device copy (read+write) %.0f GB/s\n", prop.name,
              ceiling / 1e9);
  std::printf(
      "\n| model | context | kernel | us | GB/s (K+V) | %% of copy | rel err vs two-kernel "
      "|\n|---|---|---|---|---|---|---|\n");
  for (const std::string& p : comma_list(presets)) {
    for (const std::string& l : comma_list(lengths)) {
      bench_preset(model::preset_or_throw(p), std::stoi(l), ceiling, stream);
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}

}  // namespace
}  // namespace ec::bench

int main(int argc, char** argv) {
  return ec::bench::bench_main("bench_attention", ec::bench::run, argc, argv);
}
