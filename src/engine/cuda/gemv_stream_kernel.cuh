// The batch-1 GEMV's streaming variant for NF4 / NF4-DQ rows too long for the whole-row variant
// (device code; included by gemv_dispatch.cuh): each warp of a resident grid takes units of two
// rows as the whole-row variant does, and streams each unit in passes of J steps of 32 chunks,
// refilling each chunk's registers with the same slot of the next pass (of this unit, or of the
// warp's next unit after its last pass) as it dots it. Rows, x staging, the dot and the epilogue
// are gemv_kernel.cuh's; each lane adds the chunks of a row the row-group kernel's lane adds, in
// the same order, and the warp reduces them in the same tree, so the results are the same bit for
// bit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_kernel.cuh"
#include "engine/cuda/gemv_unit_schedule.h"
#include "engine/cuda/gemv_whole_kernel.cuh"
#include "engine/cuda/pdl.cuh"

namespace ec::engine::cuda::detail {

// Why: in the row-group kernel each step works out which row group and step comes next, rebuilds
// the rows at every group and computes the x address of every chunk (27 of the 137 instructions
// per 512 bytes at qwen2-7b's gate_up, docs/results/decode-h200.md). Here slot j of pass p is
// chunk lane + 32·(p·J + j): its weights lie at a fixed offset from the row's pass start and its x
// at a fixed offset from the lane's first chunk's, moved once a pass. Past the row's end (the last
// pass) a lane loads nothing, reads its first chunk's x and adds nothing.

// One lane's weights and raw chunk scales of a pass: J steps of both rows.
template <class F, int J>
struct StreamPass {
  uint4 w[J][2];
  float2 raw[J][2];

  // Slot j of row r at pass p.
  __device__ void load_slot(int j, int r, const WholeRows& rows, int p, int lane, int chunks,
                            int cols) {
    const int c = stream_chunk(lane, p, j, J);
    if (c < chunks) {  // past the row's end the slot keeps what it had: never added
      w[j][r] = ld_stream(whole_chunk<F>(rows.seg[r], rows.local[r], cols, c));
      raw[j][r] = F::raw(rows.seg[r], rows.local[r], cols, c);
    }
  }
  __device__ void load(const WholeRows& rows, int p, int lane, int chunks, int cols) {
#pragma unroll
    for (int j = 0; j < J; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) load_slot(j, r, rows, p, lane, chunks, cols);
    }
  }
};

// Dots pass p of the unit into acc, refilling each slot with pass `refill_p` of `refill` when
// `more`.
template <class F, int J, int V>
__device__ __forceinline__ void stream_pass(StreamPass<F, J>& pass, const WholeRows& rows, int p,
                                            bool more, const WholeRows& refill, int refill_p,
                                            int chunks, int cols, const unsigned char* smem,
                                            int lane, float (&acc)[2]) {
  // Chunk lane + 32·k's x lies k·x_step bytes past chunk lane's, with the same x_slot
  // permutation: 32 chunks are 32·V units, a whole number of the swizzle's groups of 8.
  const auto* x_lane = reinterpret_cast<const unsigned char*>(x_unit<F>(smem, lane * V));
  const auto x_step =
      static_cast<int>(reinterpret_cast<const unsigned char*>(x_unit<F>(smem, 32 * V)) -
                       reinterpret_cast<const unsigned char*>(x_unit<F>(smem, 0)));
  const int rot = (lane * V / 8) & (V - 1);
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int k = p * J + j;
    const bool in_row = stream_in_row(lane, p, j, J, chunks);
    // Past the row's end: chunk lane's x, which is staged (a row has at least 32 chunks).
    const auto* xc = reinterpret_cast<const float4*>(x_lane + (in_row ? k : 0) * x_step);
    const bool any_in_row = stream_step_in_row(p, j, J, chunks);  // skip a step wholly past
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float sc = F::scale(pass.raw[j][r], rows.seg[r], smem);
      const uint4 w = pass.w[j][r];
      if (more) pass.load_slot(j, r, refill, refill_p, lane, chunks, cols);
      if (any_in_row) {
        const float d = F::dot(w, xc, rot, smem, lane);
        if (in_row) acc[r] = fmaf(sc, d, acc[r]);
      }
    }
  }
}

template <class F, int J>
__global__ void __launch_bounds__(kGemvThreads, 2) gemv_stream_kernel(const GemvArgs a) {
  static_assert(std::is_same_v<Acc<F>, float>, "the streaming variant sums in FP32");
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int V = F::kElems * x_bytes<F>() / 16;  // 16-byte units of x per weight chunk
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int chunks = a.cols / F::kElems;
  const int passes = stream_passes(chunks, J);
  const int total = outputs(a);
  const int units = unit_count(a.swiglu, total);
  const int stride = static_cast<int>(gridDim.x) * kGemvWarps;

  // The first pass is loaded before waiting (PDL) and staging x, as in the row-group kernel.
  int unit = static_cast<int>(blockIdx.x) * kGemvWarps + warp;
  StreamPass<F, J> pass{};
  WholeRows rows = whole_rows(a, min(unit, units - 1), total);
  if (unit < units) pass.load(rows, 0, lane, chunks, a.cols);
  F::init_shared(a, smem);  // constant tables: built before waiting, like the first loads
  pdl_wait();
  pdl_trigger();
  stage<F, V>(a, smem);

  while (unit < units) {
    float acc[2] = {0.0f, 0.0f};
    const bool more_units = unit + stride < units;
    const WholeRows next = whole_rows(a, more_units ? unit + stride : unit, total);
    for (int p = 0; p + 1 < passes; ++p) {
      stream_pass<F, J, V>(pass, rows, p, true, rows, p + 1, chunks, a.cols, smem, lane, acc);
    }
    stream_pass<F, J, V>(pass, rows, passes - 1, more_units, next, 0, chunks, a.cols, smem, lane,
                         acc);
    write_unit<F>(a, unit, rows, acc, smem, lane);
    rows = next;
    unit += stride;
  }
}

// Launches gemv_stream_kernel<F, J> with the shared memory it needs.
template <class F, int J>
void launch_gemv_stream(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  static size_t configured = 48 * 1024;  // per instantiation: the dynamic limit already set
  launch_rows(gemv_stream_kernel<F, J>, a, config, 2, gemv_shared_bytes<F>(a.cols), configured,
              stream);
}

}  // namespace ec::engine::cuda::detail
