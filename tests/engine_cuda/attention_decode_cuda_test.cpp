// The fused decode attention (RoPE of q and of the new key, the KV-cache store, attention over the
// cache in cluster-merged slices) against its CPU twin: cpu::RopeTable, KvCache::store and
// cpu::attention.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "engine/cpu/attention.h"
#include "engine/cpu/kv_cache.h"
#include "engine/cpu/rope.h"
#include "engine/cpu/thread_pool.h"
#include "engine/cuda/attention_decode.cuh"
#include "engine/cuda/rope.cuh"
#include "engine_cuda/cuda_test_util.h"

namespace ec::engine::cuda {
namespace {

using test::dev;
using test::rel_error;

int compute_major() {
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major;
}

struct DecodeCase {
  int heads, kv, dim, start, splits;
};

// Random q/k/v for the new token at `start`, random fp16 keys and values at the earlier
// positions, and an fp16 NaN in the cache row at `start`, so that a kernel reading the stale row
// instead of the rotated new key fails the comparison.
void check_case(const DecodeCase& c, cpu::ThreadPool& pool) {
  const int capacity = c.start + 4;
  const int q_dim = c.heads * c.dim, kv_dim = c.kv * c.dim;
  const auto qkv = test::random_floats(static_cast<size_t>(q_dim + 2 * kv_dim), 11, 1.5f);
  const auto k_old = half_bits_to_floats(
      to_half_bits(test::random_floats(static_cast<size_t>(capacity) * kv_dim, 12, 1.5f)));
  const auto v_old = half_bits_to_floats(
      to_half_bits(test::random_floats(static_cast<size_t>(capacity) * kv_dim, 13)));

  // CPU: rotate q and the new k, store k and v (fp16-valued) at `start`, attend.
  cpu::RopeTable table(c.dim, 1e6, capacity);
  std::vector<float> rotated = qkv;
  table.apply(rotated.data(), c.heads + c.kv, c.start);  // q heads then k heads, contiguous
  std::vector<float> k_new(rotated.begin() + q_dim, rotated.begin() + q_dim + kv_dim);
  std::vector<float> v_new(qkv.begin() + q_dim + kv_dim, qkv.end());
  const auto k_new_bits = to_half_bits(k_new), v_new_bits = to_half_bits(v_new);
  k_new = half_bits_to_floats(k_new_bits);
  v_new = half_bits_to_floats(v_new_bits);
  cpu::KvCache cache(1, c.kv, c.dim, capacity);
  cache.store(0, 0, capacity, k_old.data(), v_old.data());
  cache.store(0, c.start, 1, k_new.data(), v_new.data());
  std::vector<float> want(static_cast<size_t>(q_dim));
  cpu::attention(rotated.data(), cache, 0, c.heads, c.start, 1, want.data(), pool);

  // GPU cache: [kv, position, dim], the row at `start` poisoned.
  constexpr uint16_t kHalfNan = 0x7e00;
  std::vector<uint16_t> kb(k_old.size()), vb(v_old.size());
  for (int p = 0; p < capacity; ++p) {
    for (int h = 0; h < c.kv; ++h) {
      for (int d = 0; d < c.dim; ++d) {
        const size_t src = (static_cast<size_t>(p) * c.kv + h) * c.dim + d;
        const size_t dst = (static_cast<size_t>(h) * capacity + p) * c.dim + d;
        kb[dst] = p == c.start ? kHalfNan : float_to_half(k_old[src]);
        vb[dst] = p == c.start ? kHalfNan : float_to_half(v_old[src]);
      }
    }
  }
  std::vector<float> cos, sin;
  rope_tables(c.dim, 1e6, capacity, cos, sin);
  auto d_qkv = dev(qkv);
  auto d_cos = dev(cos);
  auto d_sin = dev(sin);
  auto d_k = dev(kb);
  auto d_v = dev(vb);
  auto d_start = dev(std::vector<int>{c.start});
  auto d_out = test::poisoned(want.size());
  DecodeAttentionArgs a;
  a.qkv = d_qkv.get();
  a.n_heads = c.heads;
  a.kv_heads = c.kv;
  a.head_dim = c.dim;
  a.start = d_start.get();
  a.cos = d_cos.get();
  a.sin = d_sin.get();
  a.k_cache = d_k.get();
  a.v_cache = d_v.get();
  a.capacity = capacity;
  a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.dim)));
  a.out = d_out.get();
  a.splits = c.splits;
  const std::string label = "heads " + std::to_string(c.heads) + " kv " + std::to_string(c.kv) +
                            " dim " + std::to_string(c.dim) + " start " + std::to_string(c.start) +
                            " splits " + std::to_string(c.splits);
  std::vector<float> first;
  for (int rep = 0; rep < 2; ++rep) {  // once without PDL, once with; the same bits both times
    decode_attention(a, rep == 1, nullptr);
    test::sync();
    const auto got = d_out.download();
    EXPECT_LT(rel_error(got, want), 2e-6) << label << " rep " << rep;
    if (rep == 0) {
      first = got;
    } else {
      EXPECT_EQ(got, first) << label << ": not deterministic";
    }
  }
  // The new key and value are in the cache, as fp16 of the CPU's rotated key and raw value; the
  // other rows are untouched.
  const auto k_after = d_k.download(), v_after = d_v.download();
  for (int h = 0; h < c.kv; ++h) {
    for (int p = 0; p < capacity; ++p) {
      for (int d = 0; d < c.dim; ++d) {
        const size_t at = (static_cast<size_t>(h) * capacity + p) * c.dim + d;
        const uint16_t k_want =
            p == c.start ? k_new_bits[static_cast<size_t>(h * c.dim + d)] : kb[at];
        const uint16_t v_want =
            p == c.start ? v_new_bits[static_cast<size_t>(h * c.dim + d)] : vb[at];
        ASSERT_EQ(k_after[at], k_want) << label << " k head " << h << " pos " << p << " dim " << d;
        ASSERT_EQ(v_after[at], v_want) << label << " v head " << h << " pos " << p << " dim " << d;
      }
    }
  }
}

// Group sizes 2 to 8, every head size, one and several slices, slices that are empty (position 0
// with 8 slices), slices of one partial tile, of several tiles (2 and 11), a tile boundary at the
// new position, and a cache row past the new position.
TEST(CudaDecodeAttention, MatchesCpu) {
  EC_REQUIRE_CUDA();
  cpu::ThreadPool pool(2);
  const bool clusters = compute_major() >= 9;
  const DecodeCase cases[] = {{14, 2, 64, 0, 1},    {14, 2, 64, 0, 8},    {28, 4, 128, 271, 4},
                              {28, 4, 128, 299, 8}, {32, 4, 64, 1000, 8}, {4, 2, 16, 9, 2},
                              {4, 2, 32, 700, 1},   {16, 2, 256, 130, 3}, {12, 2, 128, 63, 1},
                              {12, 2, 128, 127, 2}, {8, 8, 128, 5, 5}};
  for (const DecodeCase& c : cases) {
    if (c.splits > 1 && !clusters) continue;  // several slices need thread-block clusters
    check_case(c, pool);
  }
}

// Shapes the kernel does not handle are refused with ec::Error, before any launch.
TEST(CudaDecodeAttention, RefusesUnsupportedShapes) {
  EC_REQUIRE_CUDA();
  EXPECT_FALSE(decode_attention_supported(80, 1, 9));
  EXPECT_FALSE(decode_attention_supported(128, 9, 9));
  EXPECT_FALSE(decode_attention_supported(128, 2, 8));
  EXPECT_TRUE(decode_attention_supported(128, 8, 9));
  auto d_out = test::poisoned(64);
  DecodeAttentionArgs a;
  a.n_heads = 4;
  a.kv_heads = 2;
  a.head_dim = 80;
  a.out = d_out.get();
  EXPECT_THROW(decode_attention(a, false, nullptr), Error);
  a.head_dim = 16;
  a.splits = 9;
  EXPECT_THROW(decode_attention(a, false, nullptr), Error);
  a.splits = 1;
  a.n_heads = 5;  // not a multiple of kv_heads (and no buffers)
  EXPECT_THROW(decode_attention(a, false, nullptr), Error);
}

}  // namespace
}  // namespace ec::engine::cuda
