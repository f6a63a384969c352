// Benchmark of the engine's kernels outside the GEMV and attention benches: the decode step's
// embedding and argmax, prefill's element ops (RMSNorm, RoPE with the KV store, SwiGLU, the bias
// add after cuBLAS, LLM.int8()'s batch outlier columns and batch GEMV), and the load-time and
// prefill conversions (FP32 → fp16, the device quantizers, dequantization to fp16). Each row is
// checked against its CPU twin once, then timed as a chain of launches replayed from one CUDA
// graph; GB/s counts the least bytes the op must move once, next to the device-to-device copy
// ceiling measured in the same run. Activations this small stay in the L2 between launches, as
// they do in the engine, so a row can pass the copy ceiling.
//   bench_ops [--presets qwen2-0.5b,qwen2-7b] [--tokens 512]
#include <cuda_runtime_api.h>

#include <algorithm>
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
#include "engine/cpu/embedding.h"
#include "engine/cpu/rmsnorm.h"
#include "engine/cpu/rope.h"
#include "engine/cpu/swiglu.h"
#include "engine/cuda/argmax.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/embedding.cuh"
#include "engine/cuda/gemv_int8_llm.cuh"
#include "engine/cuda/quantize.cuh"
#include "engine/cuda/rmsnorm.cuh"
#include "engine/cuda/rope.cuh"
#include "engine/cuda/swiglu.cuh"
#include "engine/cuda/tensor_convert.cuh"
#include "engine/engine.h"
#include "model/presets.h"
#include "quant/dynamic_map.h"
#include "quant/int8_llm.h"
#include "quant/int8_rowwise.h"
#include "quant/nf4.h"
#include "quant/nf4_dq.h"

namespace ec::bench {
namespace {

using engine::cuda::DeviceBuffer;

// Deterministic values, roughly N(0, sd): the sum of four uniforms of a xorshift stream.
std::vector<float> values(size_t n, uint32_t seed, float sd) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 1u;
  for (float& f : v) {
    float s = 0.0f;
    for (int k = 0; k < 4; ++k) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      s += static_cast<float>(x >> 8) / 16777216.0f - 0.5f;
    }
    f = s * 1.7320508f * sd;  // four uniforms of variance 1/12 each: variance 1/3
  }
  return v;
}

template <class T>
DeviceBuffer<T> dev(const std::vector<T>& host) {
  return engine::cuda::to_device(std::span<const T>(host));
}

std::string dims(std::initializer_list<int64_t> d) {
  std::string s;
  for (const int64_t v : d) s += (s.empty() ? "" : "×") + std::to_string(v);
  return s;
}

// Runs and prints one row: `launch` once and `check` its output against the CPU twin (true when it
// is the twin's, bit for bit or within the op's bound), then `chain` launches per graph replay
// timed. `bytes` is the least traffic of one launch. Ops that work in place drift over the timed
// launches; their check comes first.
class Table {
 public:
  Table(double ceiling, cudaStream_t stream) : ceiling_(ceiling), stream_(stream) {}
  void row(const std::string& op, const std::string& shape, double bytes,
           const std::function<void(cudaStream_t)>& launch, const std::function<bool()>& check,
           int chain = 64) {
    launch(stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    const bool ok = check();
    failures_ += ok ? 0 : 1;
    const double s =
        graph_seconds_per_launch([&](int, cudaStream_t st) { launch(st); }, chain, stream_);
    const double gbs = bytes / s / 1e9;
    std::printf("| %s | %s | %.2f | %.0f | %.1f | %s |\n", op.c_str(), shape.c_str(), s * 1e6, gbs,
                100.0 * bytes / s / ceiling_, ok ? "ok" : "MISMATCH");
    std::fflush(stdout);
  }
  int failures() const { return failures_; }

 private:
  double ceiling_;
  cudaStream_t stream_;
  int failures_ = 0;
};

// The embedding lookup for one token (decode) and for a prefill chunk, and the decode step's greedy
// argmax over the vocabulary. The table holds 8,192 rows of the preset's width: a lookup reads only
// its tokens' rows.
void decode_ops(const model::ModelConfig& c, int tokens, Table& table) {
  const int rows = std::min(c.vocab_size, 8192), hidden = c.hidden_size;
  const auto bits = to_half_bits(values(static_cast<size_t>(rows) * hidden, 1, 0.02f));
  auto d_table = dev(bits);
  model::Tensor host;
  host.name = "embedding";
  host.dtype = DType::f16;
  host.shape = {rows, hidden};
  host.data = reinterpret_cast<const std::byte*>(bits.data());
  host.nbytes = bits.size() * 2;
  for (const int n : {1, tokens}) {
    std::vector<int32_t> ids(static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) ids[static_cast<size_t>(t)] = (t * 7919 + 13) % rows;
    auto d_ids = dev(ids);
    DeviceBuffer<float> out(static_cast<size_t>(n) * hidden);
    table.row(
        "embedding", dims({n, hidden}), double(n) * hidden * 6,
        [&](cudaStream_t s) {
          engine::cuda::embedding(d_table.get(), false, rows, hidden, d_ids.get(), n, out.get(), s);
        },
        [&] {
          std::vector<float> want(out.size());
          engine::cpu::embedding_lookup(host, ids, want.data());
          return out.download() == want;
        });
  }

  const int vocab = c.vocab_size;
  auto logits = values(static_cast<size_t>(vocab), 2, 3.0f);
  logits[static_cast<size_t>(vocab / 3)] = 20.0f;
  logits[static_cast<size_t>(vocab - 2)] = 20.0f;  // a tie: the first index wins, as torch.argmax
  auto d_logits = dev(logits);
  DeviceBuffer<float> part_value(engine::cuda::kArgmaxBlocks);
  DeviceBuffer<int> part_index(engine::cuda::kArgmaxBlocks);
  DeviceBuffer<unsigned> counter(1);
  DeviceBuffer<int32_t> out(1);
  CUDA_CHECK(cudaMemset(counter.get(), 0, counter.bytes()));
  engine::cuda::ArgmaxArgs a;
  a.logits = d_logits.get();
  a.n = vocab;
  a.part_value = part_value.get();
  a.part_index = part_index.get();
  a.counter = counter.get();
  a.out = out.get();
  table.row(
      "argmax", dims({vocab}), double(vocab) * 4,
      [&](cudaStream_t s) { engine::cuda::argmax(a, s); },
      [&] { return out.download()[0] == engine::argmax(logits); });
}

// Prefill's element ops over `n` tokens of the preset's shapes.
void prefill_ops(const model::ModelConfig& c, int n, Table& table) {
  const int hidden = c.hidden_size, inter = c.intermediate_size;
  const size_t nh = static_cast<size_t>(n) * hidden, ni = static_cast<size_t>(n) * inter;
  const double eps = c.rms_norm_eps;
  {
    const auto x = values(nh, 3, 2.0f), gain = values(static_cast<size_t>(hidden), 4, 0.2f);
    auto dx = dev(x), dgain = dev(gain);
    DeviceBuffer<float> dy(nh);
    table.row(
        "rmsnorm", dims({n, hidden}), double(nh) * 8 + hidden * 4.0,
        [&](cudaStream_t s) {
          engine::cuda::rmsnorm(dx.get(), dgain.get(), n, hidden, eps, dy.get(), s);
        },
        [&] {
          std::vector<float> want(nh);
          engine::cpu::rmsnorm(x.data(), gain.data(), n, hidden, eps, want.data());
          return rel_error(dy.download(), want) < 1e-6;
        });
  }
  {
    const int heads = c.num_heads, kv = c.num_kv_heads, d = c.head_dim;
    const int stride = (heads + 2 * kv) * d, capacity = n + 16, start = 7;
    const auto qkv = values(static_cast<size_t>(n) * stride, 5, 1.0f);
    std::vector<float> cos, sin;
    engine::cuda::rope_tables(d, c.rope_theta, capacity, cos, sin);
    auto d_qkv = dev(qkv), d_cos = dev(cos), d_sin = dev(sin);
    auto d_start = dev(std::vector<int>{start});
    DeviceBuffer<uint16_t> kc(static_cast<size_t>(kv) * capacity * d), vc(kc.size());
    engine::cuda::RopeStoreArgs a;
    a.qkv = d_qkv.get();
    a.stride = stride;
    a.n_tokens = n;
    a.n_heads = heads;
    a.kv_heads = kv;
    a.head_dim = d;
    a.start = d_start.get();
    a.cos = d_cos.get();
    a.sin = d_sin.get();
    a.k_cache = kc.get();
    a.v_cache = vc.get();
    a.capacity = capacity;
    // q and k rotated in place (read and written), v read, k and v stored as fp16, cos and sin.
    const double bytes =
        double(n) * ((heads + kv) * d * 8.0 + kv * d * 4.0 + 2 * kv * d * 2.0 + d * 4.0);
    table.row(
        "rope_store", dims({n, heads + 2 * kv, d}), bytes,
        [&](cudaStream_t s) { engine::cuda::rope_store(a, s); },
        [&] {
          const engine::cpu::RopeTable rope(d, c.rope_theta, capacity);
          std::vector<float> want = qkv;
          for (int t = 0; t < n; ++t) {
            rope.apply(want.data() + static_cast<size_t>(t) * stride, heads + kv, start + t);
          }
          const auto got = d_qkv.download();
          const auto kbits = kc.download();
          for (int t = 0; t < n; ++t) {
            for (int i = 0; i < heads * d; ++i) {  // q in place; k goes to the cache only
              const size_t at = static_cast<size_t>(t) * stride + static_cast<size_t>(i);
              if (got[at] != want[at]) return false;
            }
            for (int h = 0; h < kv; ++h) {
              for (int e = 0; e < d; ++e) {
                const size_t at = (static_cast<size_t>(h) * capacity + start + t) * d + e;
                const size_t k = static_cast<size_t>(t) * stride + (heads + h) * d + e;
                if (kbits[at] != float_to_half(want[k])) return false;
              }
            }
          }
          return true;
        });
  }
  {
    const auto g = values(ni, 6, 3.0f), u = values(ni, 7, 2.0f);
    auto dg = dev(g), du = dev(u);
    DeviceBuffer<float> dy(ni);
    table.row(
        "swiglu", dims({n, inter}), double(ni) * 12,
        [&](cudaStream_t s) { engine::cuda::swiglu(dg.get(), du.get(), int64_t(ni), dy.get(), s); },
        [&] {
          std::vector<float> want(ni);
          engine::cpu::swiglu(g.data(), u.data(), int64_t(ni), want.data());
          return rel_error(dy.download(), want) < 1e-6;
        });
  }
  {
    // q|k|v's bias after its cuBLAS product, rows of y one q|k|v apart.
    const int rows = (c.num_heads + 2 * c.num_kv_heads) * c.head_dim;
    const auto y = values(static_cast<size_t>(n) * rows, 8, 1.0f);
    const auto bias = values(static_cast<size_t>(rows), 9, 0.1f);
    auto dy = dev(y), dbias = dev(bias);
    table.row(
        "add_bias", dims({n, rows}), double(n) * rows * 8 + rows * 4.0,
        [&](cudaStream_t s) { engine::cuda::add_bias(dy.get(), dbias.get(), n, rows, rows, s); },
        [&] {
          std::vector<float> want = y;
          for (size_t i = 0; i < want.size(); ++i) want[i] += bias[i % static_cast<size_t>(rows)];
          return dy.download() == want;
        });
  }
}

// LLM.int8()'s prefill: the batch's outlier columns, then the batch GEMV (o_proj's shape) that
// reads them; both against the reference of src/quant, bit for bit.
void int8_llm_ops(const model::ModelConfig& c, int n, Table& table) {
  const int cols = c.hidden_size, rows = c.hidden_size;
  auto x = values(static_cast<size_t>(n) * cols, 10, 1.0f);
  for (int k = 0; k < 24; ++k) x[static_cast<size_t>(k % n) * cols + (k * 151) % cols] = 7.0f;
  auto dx = dev(x);
  DeviceBuffer<uint32_t> mask(static_cast<size_t>(cols / 32));
  const auto act =
      quant::quantize_activations_llm_int8(x, n, cols, quant::kLlmInt8Threshold, "bench x");
  table.row(
      "outlier_mask", dims({n, cols}), double(n) * cols * 4,
      [&](cudaStream_t s) {
        CUDA_CHECK(cudaMemsetAsync(mask.get(), 0, mask.bytes(), s));
        engine::cuda::int8_llm_outlier_mask(dx.get(), n, cols, mask.get(), s);
      },
      [&] {
        std::vector<uint32_t> want(mask.size(), 0u);
        for (const int64_t col : act.outlier_cols) {
          want[static_cast<size_t>(col / 32)] |= 1u << (col % 32);
        }
        return mask.download() == want;
      });

  const auto w = to_half_bits(values(static_cast<size_t>(rows) * cols, 11, 0.03f));
  const auto q = quant::quantize_int8_rowwise(half_bits_to_floats(w), rows, cols, "w",
                                              quant::Format::int8_llm);
  auto d_codes = dev(q.codes);
  auto d_scales = dev(q.scales);
  DeviceBuffer<float> y(static_cast<size_t>(n) * rows);
  engine::cuda::GemvArgs a;
  a.format = quant::Format::int8_llm;
  a.seg[0].w = d_codes.get();
  a.seg[0].scales = d_scales.get();
  a.seg[0].rows = rows;
  a.cols = cols;
  a.x = dx.get();
  a.y = y.get();
  a.outlier_mask = mask.get();
  engine::cuda::GemvConfig cfg;  // the batch kernel takes rows per warp, grid and PDL from it
  table.row(
      "int8_llm_batch", dims({n, rows, cols}),
      double(rows) * cols + double(rows) * 4 + double(n) * (cols + rows) * 4,
      [&](cudaStream_t s) { engine::cuda::launch_gemv_int8_llm(a, cfg, n, s); },
      [&] { return y.download() == quant::int8_llm_matmul_reference(x, n, q); }, 16);
}

// Load time (FP32 → fp16, the quantizers) and prefill's dequantization to fp16, on down_proj.
void weight_ops(const model::ModelConfig& c, Table& table) {
  const int64_t rows = c.hidden_size, cols = c.intermediate_size, n = rows * cols;
  const auto wf = values(static_cast<size_t>(n), 12, 0.03f);
  const auto w16 = to_half_bits(wf);
  const auto w16f = half_bits_to_floats(w16);
  const std::string shape = dims({rows, cols});
  constexpr int kChain = 8;
  {
    auto d = dev(wf);
    DeviceBuffer<uint16_t> out(static_cast<size_t>(n));
    table.row(
        "convert f32→f16", shape, double(n) * 6,
        [&](cudaStream_t s) {
          engine::cuda::convert_to_16bit(d.get(), DType::f32, n, out.get(), false, s);
        },
        [&] { return out.download() == w16; }, kChain);
  }
  auto d_w16 = dev(w16);
  const auto host_int8 = quant::quantize_int8_rowwise(w16f, rows, cols, "w");
  DeviceBuffer<int8_t> codes(static_cast<size_t>(n));
  DeviceBuffer<float> scales(static_cast<size_t>(rows));
  table.row(
      "quantize int8", shape, double(n) * 3 + double(rows) * 4,
      [&](cudaStream_t s) {
        engine::cuda::quantize_int8_rowwise(d_w16.get(), rows, cols, codes.get(), scales.get(), s);
      },
      [&] { return codes.download() == host_int8.codes && scales.download() == host_int8.scales; },
      kChain);
  const auto host_nf4 = quant::quantize_nf4(w16f, rows, cols, "w");
  DeviceBuffer<uint8_t> packed(host_nf4.packed.size());
  DeviceBuffer<float> absmax(host_nf4.absmax.size());
  table.row(
      "quantize nf4", shape, double(n) * 2.5 + double(absmax.size()) * 4,
      [&](cudaStream_t s) {
        engine::cuda::quantize_nf4(d_w16.get(), n, packed.get(), absmax.get(), s);
      },
      [&] { return packed.download() == host_nf4.packed && absmax.download() == host_nf4.absmax; },
      kChain);

  DeviceBuffer<uint16_t> out(static_cast<size_t>(n));
  const auto dequant_row = [&](const char* op, quant::Format f,
                               const engine::cuda::GemvSegment& seg, double in_bytes,
                               const std::vector<float>& want) {
    table.row(
        op, shape, in_bytes + double(n) * 2,
        [&](cudaStream_t s) { engine::cuda::dequantize_to_f16(f, seg, cols, out.get(), s); },
        [&] { return out.download() == to_half_bits(want); }, kChain);
  };
  engine::cuda::GemvSegment s8;
  s8.w = codes.get();
  s8.scales = scales.get();
  s8.rows = static_cast<int>(rows);
  dequant_row("dequant int8", quant::Format::int8_wo, s8, double(n) + double(rows) * 4,
              quant::dequantize_int8_rowwise(host_int8));
  engine::cuda::GemvSegment s4;
  s4.w = packed.get();
  s4.scales = absmax.get();
  s4.rows = static_cast<int>(rows);
  dequant_row("dequant nf4", quant::Format::nf4, s4, double(n) / 2 + double(absmax.size()) * 4,
              quant::dequantize_nf4(host_nf4));
  const auto host_dq = quant::quantize_nf4_dq(w16f, rows, cols, "w");
  const auto& map = quant::signed_dynamic_map();
  auto d_packed = dev(host_dq.packed);
  auto d_codes = dev(host_dq.absmax_codes);
  auto d_scales = dev(host_dq.absmax_scales);
  auto d_map = dev(std::vector<float>(map.begin(), map.end()));
  engine::cuda::GemvSegment sdq;
  sdq.w = d_packed.get();
  sdq.scales = d_scales.get();
  sdq.absmax_codes = d_codes.get();
  sdq.absmax_offset = host_dq.absmax_offset;
  sdq.absmax_map = d_map.get();
  sdq.rows = static_cast<int>(rows);
  dequant_row("dequant nf4-dq", quant::Format::nf4_dq, sdq,
              double(n) / 2 + double(host_dq.absmax_codes.size()) +
                  double(host_dq.absmax_scales.size()) * 4,
              quant::dequantize_nf4_dq(host_dq));
}

int run(int argc, char** argv) {
  std::string presets = "qwen2-0.5b,qwen2-7b";
  int tokens = 512;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--presets" && i + 1 < argc) {
      presets = argv[++i];
    } else if (arg == "--tokens" && i + 1 < argc) {
      tokens = std::stoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_ops [--presets qwen2-0.5b,qwen2-7b] [--tokens 512]\n");
      return 2;
    }
  }
  if (tokens < 1) {
    std::fprintf(stderr, "bench_ops: --tokens must be at least 1, not %d\n", tokens);
    return 2;
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double ceiling = copy_ceiling(stream);
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s: device-to-device copy %.0f GB/s; prefill rows at %d tokens\n\n", prop.name,
              ceiling / 1e9, tokens);
  Table table(ceiling, stream);
  for (const std::string& name : comma_list(presets)) {
    const model::ModelConfig& c = model::preset_or_throw(name);
    std::printf(
        "%s\n\n| op | shape | µs | GB/s | %% of copy | vs CPU twin |\n"
        "|---|---|---:|---:|---:|---|\n",
        name.c_str());
    decode_ops(c, tokens, table);
    prefill_ops(c, tokens, table);
    int8_llm_ops(c, std::min(tokens, 16), table);
    weight_ops(c, table);
    std::printf("\n");
  }
  (void)cudaStreamDestroy(stream);
  if (table.failures() > 0) {
    std::fprintf(stderr, "bench_ops: %d rows differ from their CPU twin\n", table.failures());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace ec::bench

int main(int argc, char** argv) {
  return ec::bench::bench_main("bench_ops", ec::bench::run, argc, argv);
}
