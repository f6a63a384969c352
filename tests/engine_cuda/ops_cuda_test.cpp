// The CUDA element ops against their CPU twins (src/engine/cpu): embedding, RMSNorm, RoPE with the
// KV-cache store, attention (decode with KV splits, prefill), SwiGLU and the device argmax.
#include <gtest/gtest.h>

#include <memory>

#include "engine/cpu/attention.h"
#include "engine/cpu/embedding.h"
#include "engine/cpu/kv_cache.h"
#include "engine/cpu/rmsnorm.h"
#include "engine/cpu/rope.h"
#include "engine/cpu/swiglu.h"
#include "engine/cpu/thread_pool.h"
#include "engine/cuda/argmax.cuh"
#include "engine/cuda/attention.cuh"
#include "engine/cuda/embedding.cuh"
#include "engine/cuda/rmsnorm.cuh"
#include "engine/cuda/rope.cuh"
#include "engine/cuda/swiglu.cuh"
#include "engine/engine.h"
#include "engine_cuda/cuda_test_util.h"

namespace ec::engine::cuda {
namespace {

using test::dev;
using test::rel_error;

model::Tensor bits_tensor(const std::vector<uint16_t>& bits, DType dtype, int64_t rows,
                          int64_t cols) {
  auto owner = std::make_shared<std::vector<uint16_t>>(bits);
  model::Tensor t;
  t.name = "table";
  t.dtype = dtype;
  t.shape = {rows, cols};
  t.data = reinterpret_cast<const std::byte*>(owner->data());
  t.nbytes = owner->size() * 2;
  t.owner = owner;
  return t;
}

TEST(CudaOps, EmbeddingMatchesCpuExactly) {
  EC_REQUIRE_CUDA();
  const int vocab = 97, hidden = 136;
  const auto values = test::random_floats(vocab * hidden, 1);
  const std::vector<int32_t> tokens = {5, 0, 96, 5, 41};
  for (DType dtype : {DType::f16, DType::bf16}) {
    const auto bits = dtype == DType::f16 ? to_half_bits(values) : test::to_bf16_bits(values);
    std::vector<float> want(tokens.size() * hidden);
    cpu::embedding_lookup(bits_tensor(bits, dtype, vocab, hidden), tokens, want.data());
    auto d_table = dev(bits);
    auto d_tokens = dev(tokens);
    auto d_out = test::poisoned(want.size());
    embedding(d_table.get(), dtype == DType::bf16, vocab, hidden, d_tokens.get(),
              static_cast<int>(tokens.size()), d_out.get(), nullptr);
    test::sync();
    EXPECT_EQ(d_out.download(), want) << dtype_name(dtype);
  }
}

TEST(CudaOps, RmsnormMatchesCpu) {
  EC_REQUIRE_CUDA();
  for (int dim : {64, 896, 3584}) {
    const int n = 3;
    const auto x = test::random_floats(n * dim, 2, 3.0f);
    const auto w = test::random_floats(dim, 3, 0.2f, 1.0f);
    std::vector<float> want(x.size());
    cpu::rmsnorm(x.data(), w.data(), n, dim, 1e-6, want.data());
    auto dx = dev(x);
    auto dw = dev(w);
    auto dy = test::poisoned(x.size());
    rmsnorm(dx.get(), dw.get(), n, dim, 1e-6, dy.get(), nullptr);
    test::sync();
    EXPECT_LT(rel_error(dy.download(), want), 1e-6) << "dim " << dim;
  }
}

TEST(CudaOps, SwigluMatchesCpu) {
  EC_REQUIRE_CUDA();
  const int n = 4864 * 3;
  const auto g = test::random_floats(n, 4, 3.0f);
  const auto u = test::random_floats(n, 5, 2.0f);
  std::vector<float> want(n);
  cpu::swiglu(g.data(), u.data(), n, want.data());
  auto dg = dev(g);
  auto du = dev(u);
  auto dy = test::poisoned(n);
  swiglu(dg.get(), du.get(), n, dy.get(), nullptr);
  test::sync();
  EXPECT_LT(rel_error(dy.download(), want), 1e-6);
}

// RoPE + store: q rotated exactly as cpu::RopeTable::apply, k and v in the cache as fp16 of the
// CPU's rotated k and v.
TEST(CudaOps, RopeStoreMatchesCpu) {
  EC_REQUIRE_CUDA();
  const int heads = 4, kv = 2, dim = 64, capacity = 40, n = 3, start = 17;
  const int stride = (heads + 2 * kv) * dim;
  const auto qkv = test::random_floats(n * stride, 6);
  cpu::RopeTable table(dim, 1e6, capacity);
  std::vector<float> want = qkv;
  for (int t = 0; t < n; ++t) {
    table.apply(want.data() + t * stride, heads + kv, start + t);  // q then k heads, contiguous
  }
  std::vector<float> cos, sin;
  rope_tables(dim, 1e6, capacity, cos, sin);
  auto d_qkv = dev(qkv);
  auto d_cos = dev(cos);
  auto d_sin = dev(sin);
  auto d_start = dev(std::vector<int>{start});
  engine::cuda::DeviceBuffer<uint16_t> kc(kv * capacity * dim), vc(kv * capacity * dim);
  CUDA_CHECK(cudaMemset(kc.get(), 0, kc.bytes()));
  CUDA_CHECK(cudaMemset(vc.get(), 0, vc.bytes()));
  RopeStoreArgs a;
  a.qkv = d_qkv.get();
  a.stride = stride;
  a.n_tokens = n;
  a.n_heads = heads;
  a.kv_heads = kv;
  a.head_dim = dim;
  a.start = d_start.get();
  a.cos = d_cos.get();
  a.sin = d_sin.get();
  a.k_cache = kc.get();
  a.v_cache = vc.get();
  a.capacity = capacity;
  rope_store(a, nullptr);
  test::sync();
  const auto got = d_qkv.download();
  const auto kbits = kc.download(), vbits = vc.download();
  for (int t = 0; t < n; ++t) {
    for (int i = 0; i < heads * dim; ++i) {
      ASSERT_EQ(got[t * stride + i], want[t * stride + i]) << "q token " << t << " elem " << i;
    }
    for (int h = 0; h < kv; ++h) {
      for (int d = 0; d < dim; ++d) {
        const size_t at = (static_cast<size_t>(h) * capacity + start + t) * dim + d;
        ASSERT_EQ(kbits[at], float_to_half(want[t * stride + (heads + h) * dim + d]));
        ASSERT_EQ(vbits[at], float_to_half(qkv[t * stride + (heads + kv + h) * dim + d]));
      }
    }
  }
}

// Attention against the CPU twin reading the same (fp16-valued) cache, for several group sizes,
// head dims, lengths and KV splits, decode and prefill.
TEST(CudaOps, AttentionMatchesCpu) {
  EC_REQUIRE_CUDA();
  cpu::ThreadPool pool(2);
  struct Case {
    int heads, kv, dim, start, n, splits;
  };
  const Case cases[] = {{14, 2, 64, 0, 1, 1},     {14, 2, 64, 300, 1, 32}, {28, 4, 128, 299, 1, 8},
                        {32, 4, 64, 1000, 1, 32}, {4, 2, 16, 9, 7, 1},     {12, 2, 128, 5, 20, 3},
                        {16, 2, 128, 64, 1, 5}};
  for (const Case& c : cases) {
    const int capacity = c.start + c.n + 3;
    const int q_stride = c.heads * c.dim + 11;  // a stride wider than the q heads
    const auto q = test::random_floats(static_cast<size_t>(c.n) * q_stride, 7, 1.5f);
    const auto k = half_bits_to_floats(
        to_half_bits(test::random_floats(static_cast<size_t>(capacity) * c.kv * c.dim, 8, 1.5f)));
    const auto v = half_bits_to_floats(
        to_half_bits(test::random_floats(static_cast<size_t>(capacity) * c.kv * c.dim, 9)));
    // k/v are [position, kv_heads * dim] for the CPU cache; the device cache is [kv, pos, dim].
    cpu::KvCache cache(1, c.kv, c.dim, capacity);
    cache.store(0, 0, capacity, k.data(), v.data());
    std::vector<float> qd(static_cast<size_t>(c.n) * c.heads * c.dim);
    for (int t = 0; t < c.n; ++t) {
      std::copy(q.begin() + t * q_stride, q.begin() + t * q_stride + c.heads * c.dim,
                qd.begin() + t * c.heads * c.dim);
    }
    std::vector<float> want(qd.size());
    cpu::attention(qd.data(), cache, 0, c.heads, c.start, c.n, want.data(), pool);

    std::vector<uint16_t> kb(k.size()), vb(v.size());
    for (int p = 0; p < capacity; ++p) {
      for (int h = 0; h < c.kv; ++h) {
        for (int d = 0; d < c.dim; ++d) {
          const size_t src = (static_cast<size_t>(p) * c.kv + h) * c.dim + d;
          const size_t dst = (static_cast<size_t>(h) * capacity + p) * c.dim + d;
          kb[dst] = float_to_half(k[src]);
          vb[dst] = float_to_half(v[src]);
        }
      }
    }
    auto dq = dev(q);
    auto dk = dev(kb);
    auto dv = dev(vb);
    auto dstart = dev(std::vector<int>{c.start});
    auto dout = test::poisoned(want.size());
    DeviceBuffer<float> partial(attention_partial_floats(c.n, c.heads, c.dim, c.splits));
    DeviceBuffer<unsigned> counters(static_cast<size_t>(c.n) * c.kv);
    CUDA_CHECK(cudaMemset(counters.get(), 0, counters.bytes()));
    AttentionArgs a;
    a.q = dq.get();
    a.q_stride = q_stride;
    a.k_cache = dk.get();
    a.v_cache = dv.get();
    a.capacity = capacity;
    a.n_heads = c.heads;
    a.kv_heads = c.kv;
    a.head_dim = c.dim;
    a.n_tokens = c.n;
    a.start = dstart.get();
    a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.dim)));
    a.out = dout.get();
    a.partial = partial.get();
    a.counters = counters.get();
    a.splits = c.splits;
    for (int rep = 0; rep < 2; ++rep) {  // twice: the counters must have been reset
      attention(a, nullptr);
      test::sync();
      EXPECT_LT(rel_error(dout.download(), want), 2e-6)
          << "heads " << c.heads << " kv " << c.kv << " dim " << c.dim << " start " << c.start
          << " n " << c.n << " splits " << c.splits << " rep " << rep;
    }
    EXPECT_EQ(counters.download(), std::vector<unsigned>(counters.size(), 0u));
  }
}

TEST(CudaOps, ArgmaxMatchesHostFirstMaximum) {
  EC_REQUIRE_CUDA();
  for (int n : {1, 37, 151936, 152064}) {
    auto logits = test::random_floats(n, static_cast<uint64_t>(n));
    if (n > 100) {
      logits[n / 3] = 9.0f;  // a tie: the first index must win, as torch.argmax
      logits[n - 2] = 9.0f;
    }
    auto d_logits = dev(logits);
    DeviceBuffer<float> pv(kArgmaxBlocks);
    DeviceBuffer<int> pi(kArgmaxBlocks);
    DeviceBuffer<unsigned> counter(1);
    DeviceBuffer<int32_t> out(1);
    auto bump = dev(std::vector<int>{41});
    // Logged by position: 41 is inside the log, 42 (the second call's) one past its end.
    auto log = dev(std::vector<int32_t>(43, -1));
    CUDA_CHECK(cudaMemset(counter.get(), 0, 4));
    ArgmaxArgs a;
    a.logits = d_logits.get();
    a.n = n;
    a.part_value = pv.get();
    a.part_index = pi.get();
    a.counter = counter.get();
    a.out = out.get();
    a.bump = bump.get();
    a.log = log.get();
    a.log_len = 42;
    argmax(a, nullptr);
    argmax(a, nullptr);
    test::sync();
    EXPECT_EQ(out.download()[0], engine::argmax(logits)) << "n " << n;
    EXPECT_EQ(bump.download()[0], 43);
    const auto logged = log.download();
    EXPECT_EQ(logged[41], engine::argmax(logits)) << "n " << n;
    EXPECT_EQ(logged[42], -1) << "written past log_len, n " << n;
    EXPECT_EQ(logged[40], -1) << "n " << n;
    EXPECT_EQ(counter.download()[0], 0u);
  }
}

}  // namespace
}  // namespace ec::engine::cuda
