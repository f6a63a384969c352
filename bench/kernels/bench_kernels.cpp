// GEMV kernel benchmark (llm.c dev/cuda style): for every weight format and every Linear role of a
// preset's layer, validate each variant against its CPU twin on a slice of the matrix, then time
// it with the weights rotated over enough copies to defeat the 60 MB L2, replayed from a CUDA
// graph, and print GB/s next to the device-to-device copy ceiling measured in the same run
// (and cuBLAS GemmEx n=1 for FP16, the kernel to beat).
//   bench_kernels [--preset qwen2-7b] [--formats fp16,bf16,int8-wo,int8-llm,nf4,nf4-dq] [--json F]
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/bench_main.h"
#include "common/comma_list.h"
#include "common/copy_ceiling.h"
#include "common/graph_timing.h"
#include "common/rel_error.h"
#include "core/half.h"
#include "engine/cpu/gemv_half.h"
#include "engine/cpu/gemv_int8_wo.h"
#include "engine/cpu/gemv_nf4.h"
#include "engine/cpu/rmsnorm.h"
#include "engine/cpu/swiglu.h"
#include "engine/cpu/thread_pool.h"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/quantize.cuh"
#include "model/presets.h"
#include "quant/dynamic_map.h"
#include "quant/int8_llm.h"
#include "quant/nf4_dq.h"

namespace ec::bench {
namespace {

using engine::cuda::DeviceBuffer;
using engine::cuda::GemvArgs;
using engine::cuda::GemvConfig;
using engine::cuda::GemvSegment;

constexpr size_t kRotationBytes = size_t{1536} << 20;  // weights cycled per timing: 25× the L2
constexpr int64_t kCheckRows = 96;                     // rows validated against the CPU twin

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Roughly N(0, sd) and cheap: the sum of four 16-bit uniforms.
float gauss(uint64_t h, float sd) {
  const float s =
      static_cast<float>((h & 0xffff) + ((h >> 16) & 0xffff) + ((h >> 32) & 0xffff) + (h >> 48));
  return (s - 131070.0f) * (1.7320508f / 65536.0f) * sd;
}

struct Role {
  std::string name;
  std::vector<int64_t> rows;  // per segment
  int64_t cols;
  bool norm, residual, bias, swiglu;
};

std::vector<Role> roles_of(const model::ModelConfig& c) {
  const int64_t h = c.hidden_size, q = int64_t{c.num_heads} * c.head_dim,
                kv = int64_t{c.num_kv_heads} * c.head_dim, i = c.intermediate_size;
  return {{"qkv", {q, kv, kv}, h, true, false, c.attention_bias, false},
          {"o", {h}, q, false, true, false, false},
          {"gate_up", {i, i}, h, true, false, false, true},
          {"down", {h}, i, false, true, false, false},
          {"lm_head", {c.vocab_size}, h, true, false, false, false}};
}

// One segment of one format on the device, plus what its CPU twin needs.
struct DeviceMatrix {
  DeviceBuffer<uint8_t> w, codes;
  DeviceBuffer<float> scales;
  float offset = 0.0f;
  int64_t rows = 0, cols = 0;
  int64_t bytes = 0;
  GemvSegment seg(const float* map) const {
    GemvSegment s;
    s.w = w.get();
    s.scales = scales.size() ? scales.get() : nullptr;
    s.absmax_codes = codes.size() ? codes.get() : nullptr;
    s.absmax_offset = offset;
    s.absmax_map = map;
    s.rows = static_cast<int>(rows);
    return s;
  }
};

DeviceMatrix make_matrix(quant::Format f, const uint16_t* w16, int64_t rows, int64_t cols) {
  DeviceMatrix m;
  m.rows = rows;
  m.cols = cols;
  const int64_t n = rows * cols;
  if (f == quant::Format::fp16 || f == quant::Format::bf16) {
    // bf16 reads the same bits (other values, same bytes and the same CPU-twin check).
    m.w.resize(size_t(n) * 2);
    CUDA_CHECK(cudaMemcpy(m.w.get(), w16, size_t(n) * 2, cudaMemcpyDeviceToDevice));
    m.bytes = 2 * n;
  } else if (f == quant::Format::int8_wo || f == quant::Format::int8_llm) {
    m.w.resize(size_t(n));
    m.scales.resize(size_t(rows));
    engine::cuda::quantize_int8_rowwise(w16, rows, cols, reinterpret_cast<int8_t*>(m.w.get()),
                                        m.scales.get(), nullptr);
    m.bytes = n + 4 * rows;
  } else {
    const int64_t blocks = (n + 63) / 64;
    m.w.resize(size_t(n / 2));
    m.scales.resize(size_t(blocks));
    engine::cuda::quantize_nf4(w16, n, m.w.get(), m.scales.get(), nullptr);
    m.bytes = n / 2 + 4 * blocks;
    if (f == quant::Format::nf4_dq) {
      CUDA_CHECK(cudaDeviceSynchronize());
      const auto absmax = m.scales.download();
      const auto dq = quant::double_quantize_absmax(absmax);
      m.codes.upload(std::span<const uint8_t>(dq.codes));
      m.scales.upload(std::span<const float>(dq.scales));
      m.offset = dq.offset;
      m.bytes = n / 2 + blocks + 4 * int64_t(dq.scales.size()) + 4;
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return m;
}

// The CPU twin's y = W[0:rows) · x for the first `rows` rows of a device matrix.
std::vector<float> cpu_twin(quant::Format f, const DeviceMatrix& m, int64_t rows,
                            const std::vector<float>& x, engine::cpu::ThreadPool& pool) {
  const int64_t cols = m.cols;
  std::vector<float> y(static_cast<size_t>(rows));
  const auto host_bytes = [&](const DeviceBuffer<uint8_t>& b, size_t count) {
    std::vector<uint8_t> h(count);
    CUDA_CHECK(cudaMemcpy(h.data(), b.get(), count, cudaMemcpyDeviceToHost));
    return h;
  };
  if (f == quant::Format::fp16 || f == quant::Format::bf16) {
    const auto raw = host_bytes(m.w, size_t(rows * cols) * 2);
    std::vector<uint16_t> w(static_cast<size_t>(rows * cols));
    std::memcpy(w.data(), raw.data(), raw.size());
    engine::cpu::gemv_half(
        w.data(),
        f == quant::Format::fp16 ? engine::cpu::HalfKind::f16 : engine::cpu::HalfKind::bf16, rows,
        cols, x.data(), 1, nullptr, y.data(), pool);
  } else if (f == quant::Format::int8_wo || f == quant::Format::int8_llm) {
    quant::Int8RowwiseTensor t;
    t.format = f == quant::Format::int8_wo ? quant::Format::int8_wo : quant::Format::int8_llm;
    t.name = "bench";
    t.rows = rows;
    t.cols = cols;
    const auto raw = host_bytes(m.w, size_t(rows * cols));
    t.codes.assign(reinterpret_cast<const int8_t*>(raw.data()),
                   reinterpret_cast<const int8_t*>(raw.data()) + raw.size());
    const auto scales = m.scales.download();
    t.scales.assign(scales.begin(), scales.begin() + rows);
    if (f == quant::Format::int8_llm) return quant::int8_llm_matmul_reference(x, 1, t);
    engine::cpu::gemv_int8_wo(t, x.data(), 1, nullptr, y.data(), pool);
  } else if (f == quant::Format::nf4) {
    quant::Nf4Tensor t;
    t.name = "bench";
    t.rows = rows;
    t.cols = cols;
    t.packed = host_bytes(m.w, size_t(rows * cols / 2));
    const auto absmax = m.scales.download();
    t.absmax.assign(absmax.begin(), absmax.begin() + rows * cols / 64);
    engine::cpu::gemv_nf4(t, x.data(), 1, nullptr, y.data(), pool);
  } else {
    quant::Nf4DqTensor t;
    t.name = "bench";
    t.rows = rows;
    t.cols = cols;
    t.packed = host_bytes(m.w, size_t(rows * cols / 2));
    t.absmax_codes = host_bytes(m.codes, size_t(rows * cols / 64));
    t.absmax_scales = m.scales.download();  // all of them: block indices start at 0 here too
    t.absmax_offset = m.offset;
    engine::cpu::gemv_nf4_dq(t, x.data(), 1, nullptr, y.data(), pool);
  }
  return y;
}

// Median time per call of `launch(k)`, k cycling over `copies`, replayed from one CUDA graph.
double time_rotated(const std::function<void(int, cudaStream_t)>& launch, int copies,
                    cudaStream_t stream) {
  const int per_graph = std::max(copies, 8 / std::max(copies, 1) * copies);
  return graph_seconds_per_launch([&](int i, cudaStream_t s) { launch(i % copies, s); }, per_graph,
                                  stream);
}

quant::Format parse_format(const std::string& s) {
  for (quant::Format f : {quant::Format::fp16, quant::Format::bf16, quant::Format::int8_wo,
                          quant::Format::int8_llm, quant::Format::nf4, quant::Format::nf4_dq}) {
    if (s == quant::format_name(f)) return f;
  }
  std::fprintf(stderr, "unknown format %s\n", s.c_str());
  std::exit(2);
}

int run(int argc, char** argv) {
  std::string preset = "qwen2-7b", formats = "fp16,bf16,int8-wo,int8-llm,nf4,nf4-dq", json_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--preset") preset = argv[i + 1];
    if (k == "--formats") formats = argv[i + 1];
    if (k == "--json") json_path = argv[i + 1];
  }
  const model::ModelConfig& config = model::preset_or_throw(preset);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t cublas = nullptr;
  CUBLAS_CHECK(cublasCreate(&cublas));
  CUBLAS_CHECK(cublasSetStream(cublas, stream));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const double ceiling = copy_ceiling(stream);
  std::printf("device %s, L2 %d MB; device-to-device copy (read+write) %.0f GB/s\n", prop.name,
              prop.l2CacheSize >> 20, ceiling / 1e9);
  std::ofstream json;
  if (!json_path.empty()) json.open(json_path);

  // One pool of random fp16 weights, as large as the largest matrix; every matrix reads from it.
  const auto roles = roles_of(config);
  int64_t max_n = 0;
  for (const Role& r : roles) {
    for (int64_t rows : r.rows) max_n = std::max(max_n, rows * r.cols);
  }
  std::vector<uint16_t> host(static_cast<size_t>(max_n));
  for (int64_t i = 0; i < max_n; ++i)
    host[size_t(i)] = float_to_half(gauss(splitmix(uint64_t(i)), 0.02f));
  DeviceBuffer<uint16_t> pool16 = engine::cuda::to_device(std::span<const uint16_t>(host));
  host = {};
  const auto& dmap = quant::signed_dynamic_map();
  DeviceBuffer<float> map = engine::cuda::to_device(std::span<const float>(dmap.data(), 256));
  engine::cpu::ThreadPool cpu_pool(0);

  std::printf(
      "\n| format | role | shape | bytes/call | variant | us | GB/s | %% of copy | "
      "max rel err vs CPU |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& fname : comma_list(formats)) {
    const quant::Format f = parse_format(fname);
    for (const Role& role : roles) {
      if (role.name == "lm_head" && f != quant::Format::fp16 && f != quant::Format::bf16) continue;
      // The segments, then copies of them to rotate through.
      std::vector<DeviceMatrix> first;
      int64_t bytes = 0;
      for (int64_t rows : role.rows) {
        first.push_back(make_matrix(f, pool16.get(), rows, role.cols));
        bytes += first.back().bytes;
      }
      const int copies = static_cast<int>(
          std::clamp<int64_t>((int64_t(kRotationBytes) + bytes - 1) / bytes, 2, 64));
      std::vector<std::vector<DeviceMatrix>> sets;
      sets.push_back(std::move(first));
      for (int c = 1; c < copies; ++c) {
        std::vector<DeviceMatrix> set;
        for (const DeviceMatrix& m : sets[0]) {
          DeviceMatrix d;
          d.rows = m.rows;
          d.cols = m.cols;
          d.bytes = m.bytes;
          d.offset = m.offset;
          d.w.resize(m.w.size());
          CUDA_CHECK(cudaMemcpy(d.w.get(), m.w.get(), m.w.bytes(), cudaMemcpyDeviceToDevice));
          d.scales.resize(m.scales.size());
          if (m.scales.size()) {
            CUDA_CHECK(cudaMemcpy(d.scales.get(), m.scales.get(), m.scales.bytes(),
                                  cudaMemcpyDeviceToDevice));
          }
          d.codes.resize(m.codes.size());
          if (m.codes.size()) {
            CUDA_CHECK(cudaMemcpy(d.codes.get(), m.codes.get(), m.codes.bytes(),
                                  cudaMemcpyDeviceToDevice));
          }
          set.push_back(std::move(d));
        }
        sets.push_back(std::move(set));
      }
      std::vector<float> x(static_cast<size_t>(role.cols));
      for (int64_t i = 0; i < role.cols; ++i)
        x[size_t(i)] = gauss(splitmix(uint64_t(i) + 77), 1.0f);
      if (f == quant::Format::int8_llm)
        x[7] = 9.0f;  // one outlier column, as real activations have
      std::vector<float> gain(size_t(role.cols), 1.0f);
      for (int64_t i = 0; i < role.cols; ++i)
        gain[size_t(i)] = 1.0f + 0.2f * gauss(splitmix(uint64_t(i) + 99), 1.0f);
      DeviceBuffer<float> d_x = engine::cuda::to_device(std::span<const float>(x));
      DeviceBuffer<float> d_gain = engine::cuda::to_device(std::span<const float>(gain));
      // down_proj takes SwiGLU's activation in fp16 where its format takes x in fp16, as the
      // decode step hands it over (GemvArgs::x_half); the kernel would round x the same way.
      const bool x_in_fp16 = role.name == "down" && engine::cuda::gemv_takes_x_half(f);
      DeviceBuffer<uint16_t> d_x_half;
      if (x_in_fp16) {
        const std::vector<uint16_t> x_half = to_half_bits(x);
        d_x_half = engine::cuda::to_device(std::span<const uint16_t>(x_half));
      }
      const int64_t outputs = role.swiglu ? role.rows[0] : [&] {
        int64_t s = 0;
        for (int64_t r : role.rows) s += r;
        return s;
      }();
      DeviceBuffer<float> d_y(static_cast<size_t>(outputs));
      CUDA_CHECK(cudaMemset(d_y.get(), 0, d_y.bytes()));

      const auto args_for = [&](int set, int64_t rows_cap) {
        GemvArgs a;
        a.format = f;
        a.n_seg = static_cast<int>(role.rows.size());
        for (size_t s = 0; s < role.rows.size(); ++s) {
          a.seg[s] = sets[size_t(set)][s].seg(map.get());
          a.seg[s].rows = static_cast<int>(std::min<int64_t>(rows_cap, a.seg[s].rows));
        }
        a.swiglu = role.swiglu;
        a.cols = static_cast<int>(role.cols);
        a.x = x_in_fp16 ? nullptr : d_x.get();
        a.x_half = x_in_fp16 ? d_x_half.get() : nullptr;
        a.norm = role.norm ? d_gain.get() : nullptr;
        a.norm_eps = 1e-6;
        a.residual = nullptr;  // the residual add costs one read+write per row: not timed
        a.y = d_y.get();
        return a;
      };

      // Validation: the first kCheckRows rows of every segment against the CPU twin.
      std::vector<float> xe = x;
      if (role.norm) engine::cpu::rmsnorm(x.data(), gain.data(), 1, role.cols, 1e-6, xe.data());
      std::vector<float> want;
      for (const DeviceMatrix& m : sets[0]) {
        const auto y = cpu_twin(f, m, std::min(kCheckRows, m.rows), xe, cpu_pool);
        want.insert(want.end(), y.begin(), y.end());
      }
      if (role.swiglu) {
        const size_t r = want.size() / 2;
        std::vector<float> act(r);
        engine::cpu::swiglu(want.data(), want.data() + r, int64_t(r), act.data());
        want = act;
      }

      const GemvArgs probe = args_for(0, int64_t{1} << 40);
      double best_t = 1e30;
      std::string best_name;
      double worst_err = 0.0;
      for (const GemvConfig& cfg :
           engine::cuda::gemv_candidates(probe, engine::cuda::current_gemv_device())) {
        CUDA_CHECK(cudaMemset(d_y.get(), 0xff, d_y.bytes()));
        engine::cuda::gemv(args_for(0, kCheckRows), cfg, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<float> got = d_y.download();
        got.resize(want.size());
        const double err = rel_error(got, want);
        worst_err = std::max(worst_err, std::isnan(err) ? 1e30 : err);
        const double t = time_rotated(
            [&](int k, cudaStream_t s) {
              engine::cuda::gemv(args_for(k, int64_t{1} << 40), cfg, s);
            },
            copies, stream);
        if (json.is_open()) {
          json << "{\"format\":\"" << fname << "\",\"role\":\"" << role.name << "\",\"variant\":\""
               << engine::cuda::gemv_config_name(cfg) << "\",\"seconds\":" << t
               << ",\"bytes\":" << bytes << ",\"rel_err\":";
          // JSON has no NaN or infinity: a result that is not a number is written as null.
          if (std::isfinite(err)) {
            json << err;
          } else {
            json << "null";
          }
          json << "}\n";
        }
        if (t < best_t) {
          best_t = t;
          best_name = engine::cuda::gemv_config_name(cfg);
        }
      }
      char shape[96];
      std::snprintf(shape, sizeof shape, "%zux[%lld..]x%lld", role.rows.size(),
                    static_cast<long long>(role.rows[0]), static_cast<long long>(role.cols));
      const double gbs = double(bytes) / best_t / 1e9;
      std::printf("| %s | %s | %s | %.1f MB | %s | %.1f | %.0f | %.1f | %.1e%s |\n", fname.c_str(),
                  role.name.c_str(), shape, static_cast<double>(bytes) / 1e6, best_name.c_str(),
                  best_t * 1e6, gbs, 100.0 * gbs * 1e9 / ceiling, worst_err,
                  worst_err < (f == quant::Format::fp16 || f == quant::Format::bf16 ? 1e-5 : 1e-3)
                      ? ""
                      : " FAIL");
      std::fflush(stdout);

      // cuBLAS, the kernel to beat: GemmEx with n = 1 on the same matrices (fp16 x).
      if (f == quant::Format::fp16 && !role.swiglu && role.rows.size() == 1) {
        std::vector<uint16_t> x16(x.size());
        for (size_t i = 0; i < x.size(); ++i) x16[i] = float_to_half(xe[i]);
        DeviceBuffer<uint16_t> d_x16 = engine::cuda::to_device(std::span<const uint16_t>(x16));
        const float alpha = 1.0f, beta = 0.0f;
        const int rows = static_cast<int>(role.rows[0]), cols = static_cast<int>(role.cols);
        const double t = time_rotated(
            [&](int k, cudaStream_t) {
              CUBLAS_CHECK(cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, rows, 1, cols, &alpha,
                                        sets[size_t(k)][0].w.get(), CUDA_R_16F, cols, d_x16.get(),
                                        CUDA_R_16F, cols, &beta, d_y.get(), CUDA_R_32F, rows,
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            },
            copies, stream);
        const double cg = double(bytes) / t / 1e9;
        std::printf("| cublas-f16 | %s | %s | %.1f MB | GemmEx n=1 | %.1f | %.0f | %.1f | - |\n",
                    role.name.c_str(), shape, static_cast<double>(bytes) / 1e6, t * 1e6, cg,
                    100.0 * cg * 1e9 / ceiling);
      }
    }
  }
  (void)cublasDestroy(cublas);
  (void)cudaStreamDestroy(stream);
  return 0;
}

}  // namespace
}  // namespace ec::bench

int main(int argc, char** argv) {
  return ec::bench::bench_main("bench_kernels", ec::bench::run, argc, argv);
}
