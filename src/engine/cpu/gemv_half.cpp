// FP16/BF16-weight GEMV and prefill GEMM with FP32 accumulation. Four weight rows at a time are
// widened into an L1-sized FP32 buffer, column block by column block, and dotted with every token,
// so prefill widens each weight once. Dots use 8 independent lanes reduced in a fixed order: the
// loop vectorises without -ffast-math and a (token, row) result never depends on the batch.
#include "engine/cpu/gemv_half.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "core/error.h"
#include "engine/cpu/half_convert.h"
#include "engine/cpu/tensor_convert.h"

namespace ec::engine::cpu {
namespace {

constexpr int64_t kBlock = 512;  // columns widened at a time: 4 rows × 512 floats = 8 KiB
constexpr int kRowGroup = 4;

// Eight FP32 lanes (GCC vector extension: two SSE registers on baseline x86-64, one AVX register
// where available). Plain loops over arrays of eight accumulators were vectorised with shuffles
// and spills; the explicit type keeps one accumulator per row in registers.
// The helpers below never cross a translation unit, so the ABI note GCC gives for passing such
// vectors without AVX does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
using Lanes = float __attribute__((vector_size(32)));
constexpr int kLanes = 8;

inline Lanes load_lanes(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline float reduce_lanes(Lanes a) {
  return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

// One row: the same per-lane arithmetic as dot4, so a row's result does not depend on its group.
inline float dot1(const float* __restrict w, const float* __restrict x, int64_t n) {
  Lanes a = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) a += load_lanes(w + i) * load_lanes(x + i);
  for (int j = 0; i + j < n; ++j) a[j] += w[i + j] * x[i + j];
  return reduce_lanes(a);
}

inline void dot4(const float* __restrict w, int64_t stride, const float* __restrict x, int64_t n,
                 float* __restrict out) {
  const float* __restrict w0 = w;
  const float* __restrict w1 = w + stride;
  const float* __restrict w2 = w + 2 * stride;
  const float* __restrict w3 = w + 3 * stride;
  Lanes a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Lanes xv = load_lanes(x + i);
    a0 += load_lanes(w0 + i) * xv;
    a1 += load_lanes(w1 + i) * xv;
    a2 += load_lanes(w2 + i) * xv;
    a3 += load_lanes(w3 + i) * xv;
  }
  for (int j = 0; i + j < n; ++j) {
    const float xv = x[i + j];
    a0[j] += w0[i + j] * xv;
    a1[j] += w1[i + j] * xv;
    a2[j] += w2[i + j] * xv;
    a3[j] += w3[i + j] * xv;
  }
  out[0] = reduce_lanes(a0);
  out[1] = reduce_lanes(a1);
  out[2] = reduce_lanes(a2);
  out[3] = reduce_lanes(a3);
}

// Widens one block of a weight row. The AVX2 build uses the F16C instruction for FP16, which is
// exact, so both builds give bit-identical results.
// GCC inlines the AVX2 widen through gemv_rows_body into the AVX2-targeted caller; clang refuses
// to force-inline a target("avx2") function into a body that, on its own, lacks the feature, so
// with clang widen is a plain inline function (inlined once the body sits in the AVX2 caller).
#if defined(__clang__)
#define EC_WIDEN_INLINE inline
#else
#define EC_WIDEN_INLINE [[gnu::always_inline]] inline
#endif
template <HalfKind K, bool Avx2>
EC_WIDEN_INLINE void widen(const uint16_t* src, float* dst, int64_t len);

template <HalfKind K>
void gemv_rows_generic(const uint16_t* w, int64_t rows, int64_t cols, const float* x, int n_tokens,
                       const float* bias, float* y, int64_t r0, int64_t r1);

template <HalfKind K, bool Avx2>
[[gnu::always_inline]] inline void gemv_rows_body(const uint16_t* w, int64_t rows, int64_t cols,
                                                  const float* x, int n_tokens, const float* bias,
                                                  float* y, int64_t r0, int64_t r1) {
  alignas(64) float buf[kRowGroup * kBlock];
  for (int64_t r = r0; r < r1; r += kRowGroup) {
    const int64_t nr = std::min<int64_t>(kRowGroup, r1 - r);
    for (int t = 0; t < n_tokens; ++t) {
      for (int64_t i = 0; i < nr; ++i) y[t * rows + r + i] = bias != nullptr ? bias[r + i] : 0.0f;
    }
    for (int64_t cb = 0; cb < cols; cb += kBlock) {
      const int64_t len = std::min(kBlock, cols - cb);
      for (int64_t i = 0; i < nr; ++i) {
        widen<K, Avx2>(w + (r + i) * cols + cb, buf + i * kBlock, len);
      }
      for (int t = 0; t < n_tokens; ++t) {
        const float* xt = x + t * cols + cb;
        float* yt = y + t * rows + r;
        if (nr == kRowGroup) {
          float part[kRowGroup];
          dot4(buf, kBlock, xt, len, part);
          for (int i = 0; i < kRowGroup; ++i) yt[i] += part[i];
        } else {
          for (int64_t i = 0; i < nr; ++i) yt[i] += dot1(buf + i * kBlock, xt, len);
        }
      }
    }
  }
}

template <>
inline void widen<HalfKind::f16, false>(const uint16_t* src, float* dst, int64_t len) {
  f16_to_f32_row(src, dst, len);
}
template <>
inline void widen<HalfKind::bf16, false>(const uint16_t* src, float* dst, int64_t len) {
  bf16_to_f32_row(src, dst, len);
}

template <HalfKind K>
void gemv_rows_generic(const uint16_t* w, int64_t rows, int64_t cols, const float* x, int n_tokens,
                       const float* bias, float* y, int64_t r0, int64_t r1) {
  gemv_rows_body<K, false>(w, rows, cols, x, n_tokens, bias, y, r0, r1);
}

#if defined(__x86_64__)
// The same kernel compiled for AVX2 + F16C, chosen at run time (the build targets baseline x86-64
// so one binary runs everywhere). No FMA: fused multiply-adds would round differently.
#define EC_AVX2_TARGET [[gnu::target("avx2,f16c")]]

template <>
EC_AVX2_TARGET inline void widen<HalfKind::f16, true>(const uint16_t* src, float* dst,
                                                      int64_t len) {
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < len; ++i) dst[i] = f16_bits_to_f32(src[i]);
}
template <>
EC_AVX2_TARGET inline void widen<HalfKind::bf16, true>(const uint16_t* src, float* dst,
                                                       int64_t len) {
  bf16_to_f32_row(src, dst, len);
}

template <HalfKind K>
EC_AVX2_TARGET void gemv_rows_avx2(const uint16_t* w, int64_t rows, int64_t cols, const float* x,
                                   int n_tokens, const float* bias, float* y, int64_t r0,
                                   int64_t r1) {
  gemv_rows_body<K, true>(w, rows, cols, x, n_tokens, bias, y, r0, r1);
}

#endif

bool cpu_has_avx2() {
#if defined(__x86_64__)
  // F16C through CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports does not know "f16c".
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
    return f16c && __builtin_cpu_supports("avx2");
  }();
  return has;
#else
  return false;
#endif
}

std::atomic<bool> g_force_baseline{false};

template <HalfKind K>
void gemv_rows(const uint16_t* w, int64_t rows, int64_t cols, const float* x, int n_tokens,
               const float* bias, float* y, int64_t r0, int64_t r1) {
#if defined(__x86_64__)
  if (gemv_isa() == CpuIsa::avx2) {
    return gemv_rows_avx2<K>(w, rows, cols, x, n_tokens, bias, y, r0, r1);
  }
#endif
  gemv_rows_generic<K>(w, rows, cols, x, n_tokens, bias, y, r0, r1);
}

class HalfLinear final : public CpuLinear {
 public:
  HalfLinear(model::Tensor weight, std::vector<float> bias, HalfKind kind, ThreadPool& pool)
      : weight_(std::move(weight)), bias_(std::move(bias)), kind_(kind), pool_(pool) {}

  void forward(const float* x, int n_tokens, float* y) const override {
    gemv_half(reinterpret_cast<const uint16_t*>(weight_.data), kind_, out_features(), in_features(),
              x, n_tokens, bias_.empty() ? nullptr : bias_.data(), y, pool_);
  }
  int64_t in_features() const override { return weight_.shape[1]; }
  int64_t out_features() const override { return weight_.shape[0]; }
  int64_t weight_bytes() const override {
    return static_cast<int64_t>(weight_.nbytes + bias_.size() * sizeof(float));
  }
  std::string_view kernel_name() const override {
    return kind_ == HalfKind::f16 ? "f16w" : "bf16w";
  }

 private:
  model::Tensor weight_;  // holds the storage (the checkpoint mmap or a converted copy)
  std::vector<float> bias_;
  HalfKind kind_;
  ThreadPool& pool_;
};

}  // namespace

CpuIsa gemv_isa() {
  return cpu_has_avx2() && !g_force_baseline.load(std::memory_order_relaxed) ? CpuIsa::avx2
                                                                             : CpuIsa::baseline;
}

void force_baseline_gemv_for_testing(bool on) {
  g_force_baseline.store(on);
}

void gemv_half(const uint16_t* w, HalfKind kind, int64_t rows, int64_t cols, const float* x,
               int n_tokens, const float* bias, float* y, ThreadPool& pool) {
  if (rows <= 0 || n_tokens <= 0) return;
  // Enough multiply-adds per chunk (~64k) that waking a thread pays; whole row groups only.
  const int64_t work_per_row = std::max<int64_t>(cols * n_tokens, 1);
  int64_t grain = std::max<int64_t>(kRowGroup, (int64_t{1} << 16) / work_per_row);
  grain = (grain + kRowGroup - 1) / kRowGroup * kRowGroup;
  pool.parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
    if (kind == HalfKind::f16) {
      gemv_rows<HalfKind::f16>(w, rows, cols, x, n_tokens, bias, y, r0, r1);
    } else {
      gemv_rows<HalfKind::bf16>(w, rows, cols, x, n_tokens, bias, y, r0, r1);
    }
  });
}

std::unique_ptr<CpuLinear> make_gemv_half(const model::Tensor& weight, std::vector<float> bias,
                                          HalfKind kind, ThreadPool& pool) {
  const DType want = kind == HalfKind::f16 ? DType::f16 : DType::bf16;
  EC_CHECK(weight.dtype == want, "tensor {}: gemv_half needs {} weights, got {}", weight.name,
           dtype_name(want), dtype_name(weight.dtype));
  check_linear_shape(weight, bias);
  EC_CHECK(reinterpret_cast<uintptr_t>(weight.data) % 2 == 0, "tensor {}: unaligned 16-bit data",
           weight.name);
  EC_CHECK(weight.nbytes >= static_cast<size_t>(element_count(weight)) * 2,
           "tensor {}: {} bytes, expected {}", weight.name, weight.nbytes,
           element_count(weight) * 2);
  return std::make_unique<HalfLinear>(weight, std::move(bias), kind, pool);
}

}  // namespace ec::engine::cpu
