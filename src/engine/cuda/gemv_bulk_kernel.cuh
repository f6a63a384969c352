// The batch-1 GEMV's bulk-copy variant (sm_90; device code, included by gemv_dispatch.cuh): each
// warp's weights stream into its own ring of S stages in shared memory by cp.async.bulk, lane 0
// issuing and an mbarrier per stage counting the bytes in. The bytes in flight are then bounded by
// shared memory, not by registers, and the first S stages are requested before the kernel waits
// for its predecessor (PDL). Everything else — rows, x staging, the dot, the epilogue — is
// gemv_kernel.cuh's, so the results are the same bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "engine/cuda/bulk_copy.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_kernel.cuh"

namespace ec::engine::cuda::detail {

// A stage holds, for each of the warp's R rows, the 32·U contiguous chunks (512·U bytes) a step
// covers; lane l reads chunk u·32 + l of it, the chunks Step::load would read, so accumulate_step
// is shared.

template <int R, int U, int S>
__host__ __device__ constexpr size_t bulk_ring_bytes() {
  return static_cast<size_t>(kGemvWarps) * S * R * 512 * U;
}

// Where the rings start: after the format's tables and the staged x (formats that stage x after
// their tables), 128-byte aligned.
template <class F>
__host__ __device__ size_t bulk_ring_offset(int cols) {
  static_assert(!PlacesStagedX<F>);
  return (F::kSharedBytes + staged_x_region<F>(cols) + 127) / 128 * 128;
}

// Shared memory of the bulk kernel: the format's tables and staged x, then the rings, then one
// 8-byte mbarrier per stage and warp.
// (gemv_variant_shared_bytes computes the same on the host; launch_gemv_bulk checks they agree.)
template <class F, int R, int U, int S>
size_t gemv_bulk_shared_bytes(int cols) {
  return bulk_ring_offset<F>(cols) + bulk_ring_bytes<R, U, S>() +
         static_cast<size_t>(kGemvWarps) * S * 8;
}

template <class F, int R, int U, int S>
__global__ void __launch_bounds__(kGemvThreads) gemv_bulk_kernel(const GemvArgs a) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int V = F::kElems * x_bytes<F>() / 16;
  constexpr int kStageBytes = R * 512 * U;
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int total = outputs(a);
  const int per_group = kGemvWarps * (a.swiglu ? R / 2 : R);
  const int groups = (total + per_group - 1) / per_group;
  const int chunks = a.cols / F::kElems;
  const int row_bytes = chunks * 16;
  const int steps_per_group = (chunks + 32 * U - 1) / (32 * U);
  const int my_groups = static_cast<int>(blockIdx.x) < groups
                            ? (groups - 1 - static_cast<int>(blockIdx.x)) / gridDim.x + 1
                            : 0;
  const int items = my_groups * steps_per_group;
  const size_t base = bulk_ring_offset<F>(a.cols);
  unsigned char* ring = smem + base + static_cast<size_t>(warp) * S * kStageBytes;
  const uint32_t bars =
      smem_addr(smem + base + bulk_ring_bytes<R, U, S>()) + static_cast<uint32_t>(warp * S * 8);

  // Item i of this warp: step i % steps_per_group of row group blockIdx.x + (i / steps) · grid.
  const auto issue = [&](int i) {
    if (i >= items) return;
    const int g =
        static_cast<int>(blockIdx.x) + (i / steps_per_group) * static_cast<int>(gridDim.x);
    const int s = i % steps_per_group;
    const WarpRows<F, R> rows(a, g, warp, total);
    const int offset = s * 512 * U;
    const uint32_t bytes = static_cast<uint32_t>(min(512 * U, row_bytes - offset));
    const int stage = i % S;
    const uint32_t bar = bars + static_cast<uint32_t>(stage * 8);
    mbar_expect_bytes(bar, bytes * R);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      bulk_copy(smem_addr(ring + stage * kStageBytes + r * 512 * U), rows.wrow[r] + offset, bytes,
                bar);
    }
  };

  if (lane == 0) {
    for (int st = 0; st < S; ++st) mbar_init(bars + static_cast<uint32_t>(st * 8));
    mbar_init_fence();
    for (int i = 0; i < S; ++i) issue(i);  // before waiting: weights depend on no predecessor
  }
  __syncwarp();
  start_after_first_loads<F, V, true>(a, smem);

  int i = 0;
  for (int g = blockIdx.x; g < groups; g += gridDim.x) {
    const WarpRows<F, R> rows(a, g, warp, total);
    const EpilogueLoads<F, R> epilogue = load_epilogue<F, R>(a, rows, lane, smem);
    Acc<F> acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0;
    for (int s = 0; s < steps_per_group; ++s, ++i) {
      const int stage = i % S;
      mbar_wait(bars + static_cast<uint32_t>(stage * 8), static_cast<uint32_t>((i / S) & 1));
      const int c0 = s * 32 * U + lane;
      Step<F, R, U> step;
      const unsigned char* buf = ring + stage * kStageBytes;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int c = min(c0 + u * 32, chunks - 1);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          step.w[u][r] = *reinterpret_cast<const uint4*>(buf + r * 512 * U + (u * 32 + lane) * 16);
          step.raw[u][r] = F::raw(rows.seg[r], rows.local[r], a.cols, c);
        }
      }
      if (rows.first < total) accumulate_step<F, R, U, V>(step, rows, c0, chunks, smem, lane, acc);
      // Only now may lane 0 refill the stage: the dot has used every lane's chunks, so their
      // shared-memory reads are done, and the fence orders them before the copy's async-proxy
      // writes. Refilling right after a __syncwarp that followed the reads made decode with the
      // gate_up GEMV on this variant nondeterministic on the H200.
      // This is the order CUTLASS's pipelines keep: the consumer releases a stage after its math.
      __syncwarp();
      if (lane == 0) {
        fence_proxy_async_shared();
        issue(i + S);
      }
    }
    if (rows.first < total) {
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r] = warp_sum(acc[r]);
      write_outputs<F, R>(a, rows, lane, acc, smem, epilogue);
    }
  }
}

template <class F, int R, int U, int S>
void launch_gemv_bulk(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  const size_t smem = gemv_bulk_shared_bytes<F, R, U, S>(a.cols);
  if (smem != gemv_variant_shared_bytes(a.format, a.cols, config)) {
    cuda_invalid("gemv: the bulk kernel's shared memory disagrees with gemv_variant_shared_bytes");
  }
  const GemvDevice device = current_gemv_device();
  if (!device.bulk_copy || smem > device.shared_limit) {
    cuda_invalid(device.bulk_copy
                     ? "gemv: the bulk-copy variant's rings do not fit this GPU's shared memory"
                     : "gemv: the bulk-copy variant needs sm_90 or newer");
  }
  launch_row_kernel<gemv_bulk_kernel<F, R, U, S>>(a, config, R, smem, stream);
}

}  // namespace ec::engine::cuda::detail
