// The batch-1 GEMV's whole-row variant for NF4 / NF4-DQ (device code; included by
// gemv_dispatch.cuh): each warp of a resident grid takes units of two rows (SwiGLU's gate and up
// row of an output, or two consecutive rows), each lane loads its whole share of both rows at
// once, J chunks a row, and refills each chunk's registers with the next unit's as it dots it.
// Rows, x staging, the dot and the epilogue are gemv_kernel.cuh's; each lane adds the chunks of a
// row the row-group kernel's lane adds, in the same order, and the warp reduces them in the same
// tree, so the results are the same bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_kernel.cuh"
#include "engine/cuda/gemv_unit_schedule.h"
#include "engine/cuda/pdl.cuh"

namespace ec::engine::cuda::detail {

// Why: NF4's dot is bound by instructions, not by bytes (docs/results/decode-h200.md), and the
// row-group kernel spends about half of its instructions beside the dot at qwen2-7b's 3,584
// features: the generic step loop (which step, which row group, clamped chunk indices, the x
// address of every chunk) and the set-up of every row group. With a row's J chunks per lane known
// at compile time, lane l's chunks are l + 32·j: their x addresses are the same in every unit and
// their weights and scales lie at fixed offsets from the row's start.
//
// The paired tail: where a row has 32·(J − 1) + 16 chunks (3,584 and 1,536 features), the last
// step fills only lanes 0–15 of each row. Lanes 0–15 take it for the first row and lanes 16–31
// for the second, and lane l + 16 hands its dot and scale to lane l, which adds them where the
// row-group kernel's lane l adds that chunk: last. A unit is then 2·J − 1 dots a lane, not 2·J.

// A unit's two rows: segment, row local to it, and whether the row exists (past the last row the
// unit repeats the last one, loaded and never written).
struct WholeRows {
  GemvSegment seg[2];
  int local[2];
  bool valid[2];
};

__device__ __forceinline__ WholeRows whole_rows(const GemvArgs& a, int unit, int total) {
  WholeRows rows;
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    if (a.swiglu) {
      const UnitRow r = unit_row(true, unit, j, total);
      rows.valid[j] = r.valid;
      rows.local[j] = r.row;
      rows.seg[j] = a.seg[j];
    } else {
      const UnitRow r = unit_row(false, unit, j, total);
      rows.valid[j] = r.valid;
      rows.local[j] = r.row;
      rows.seg[j] = pick_segment(a, rows.local[j]);
    }
  }
  return rows;
}

// Segment `second ? b : a`, field by field: a select of the whole struct puts it in local memory.
// The binding below stops compiling when GemvSegment gains or loses a field, which must then be
// selected here too.
static_assert(
    [] {
      [[maybe_unused]] const auto [w, scales, absmax_codes, absmax_offset, absmax_map, bias, rows] =
          GemvSegment{};
      return true;
    }(),
    "select_segment copies every field of GemvSegment");
__device__ __forceinline__ GemvSegment select_segment(bool second, const GemvSegment& a,
                                                      const GemvSegment& b) {
  GemvSegment s;
  s.w = second ? b.w : a.w;
  s.scales = second ? b.scales : a.scales;
  s.absmax_codes = second ? b.absmax_codes : a.absmax_codes;
  s.absmax_offset = second ? b.absmax_offset : a.absmax_offset;
  s.absmax_map = second ? b.absmax_map : a.absmax_map;
  s.bias = second ? b.bias : a.bias;
  s.rows = second ? b.rows : a.rows;
  return s;
}

// The 16-byte chunk c of row `local` of segment s.
template <class F>
__device__ __forceinline__ const unsigned char* whole_chunk(const GemvSegment& s, int local,
                                                            int cols, int c) {
  return static_cast<const unsigned char*>(s.w) +
         (static_cast<int64_t>(local) * cols * F::kBitsPerWeight / 8 +
          static_cast<int64_t>(c) * 16);
}

// A unit's two row sums, reduced over the warp and written: lane r writes row r; with SwiGLU
// lane 0 writes the output.
template <class F>
__device__ __forceinline__ void write_unit(const GemvArgs& a, int unit, const WholeRows& rows,
                                           const float (&acc)[2], const unsigned char* smem,
                                           int lane) {
  const typename RowLoadsOf<F>::type none{};
  const float first = warp_sum(acc[0]);
  const float second = warp_sum(acc[1]);
  if (a.swiglu) {
    if (lane == 0 && rows.valid[0]) {
      write_swiglu<F>(a, unit, finish_row<F>(a, rows.seg[0], rows.local[0], first, smem, none),
                      finish_row<F>(a, rows.seg[1], rows.local[1], second, smem, none));
    }
    return;
  }
  if (lane == 0 && rows.valid[0]) {
    write_row(a, 2 * unit, finish_row<F>(a, rows.seg[0], rows.local[0], first, smem, none));
  }
  if (lane == 1 && rows.valid[1]) {
    write_row(a, 2 * unit + 1, finish_row<F>(a, rows.seg[1], rows.local[1], second, smem, none));
  }
}

// One lane's weights and raw chunk scales of a unit: chunks lane + 32·j of both rows for the
// steps both rows fill, and the paired tail's one chunk (Paired).
template <class F, int J, bool Paired>
struct WholeUnit {
  static constexpr int kBoth = Paired ? J - 1 : J;
  uint4 w[kBoth][2];
  float2 raw[kBoth][2];
  uint4 tail_w;
  float2 tail_raw;

  // Step j of row r.
  __device__ void load_step(int j, int r, const WholeRows& rows, int lane, int chunks, int cols) {
    const int c = whole_chunk_index(lane, j, J, chunks);
    w[j][r] = ld_stream(whole_chunk<F>(rows.seg[r], rows.local[r], cols, c));
    raw[j][r] = F::raw(rows.seg[r], rows.local[r], cols, c);
  }
  __device__ void load_tail(const WholeRows& rows, int lane, int cols) {
    const bool second = paired_tail_row(lane) == 1;
    const GemvSegment s = select_segment(second, rows.seg[0], rows.seg[1]);
    const int local = second ? rows.local[1] : rows.local[0];
    const int c = paired_tail_chunk(lane, J);
    tail_w = ld_stream(whole_chunk<F>(s, local, cols, c));
    tail_raw = F::raw(s, local, cols, c);
  }
  __device__ void load(const WholeRows& rows, int lane, int chunks, int cols) {
#pragma unroll
    for (int j = 0; j < kBoth; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) load_step(j, r, rows, lane, chunks, cols);
    }
    if constexpr (Paired) load_tail(rows, lane, cols);
  }
};

// The unit's two row sums, dotted and written (write_unit). As each dot takes its chunk, the unit's
// registers are refilled with the same chunk of the next unit (`next`, when `refill`): every load
// then has a unit's dots to arrive, as with a second buffer, in half the registers.
template <class F, int J, bool Paired, int V>
__device__ __forceinline__ void whole_finish(const GemvArgs& a, int unit, const WholeRows& rows,
                                             WholeUnit<F, J, Paired>& u, bool refill,
                                             const WholeRows& next, int chunks,
                                             const unsigned char* smem, int lane) {
  float acc[2] = {0.0f, 0.0f};
#pragma unroll
  for (int j = 0; j < WholeUnit<F, J, Paired>::kBoth; ++j) {
    const bool in_row = whole_adds(lane, j, J, chunks);
    const int cx = whole_chunk_index(lane, j, J, chunks);  // past the row: any staged x will do
    const float4* xc = x_unit<F>(smem, cx * V);
    const int rot = (cx * V / 8) & (V - 1);  // x_slot's permutation: unit k is at k ^ rot
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float sc = F::scale(u.raw[j][r], rows.seg[r], smem);
      const uint4 w = u.w[j][r];
      if (refill) u.load_step(j, r, next, lane, chunks, a.cols);
      const float d = F::dot(w, xc, rot, smem, lane);
      if (in_row) acc[r] = fmaf(sc, d, acc[r]);
    }
  }
  if constexpr (Paired) {
    const int c = paired_tail_chunk(lane, J);
    const float4* xc = x_unit<F>(smem, c * V);
    const int rot = (c * V / 8) & (V - 1);
    const float sc = F::scale(
        u.tail_raw, select_segment(paired_tail_row(lane) == 1, rows.seg[0], rows.seg[1]), smem);
    const uint4 w = u.tail_w;
    if (refill) u.load_tail(next, lane, a.cols);
    const float d = F::dot(w, xc, rot, smem, lane);
    const float sc_second = __shfl_xor_sync(0xffffffffu, sc, 16);
    const float d_second = __shfl_xor_sync(0xffffffffu, d, 16);
    if (lane < 16) {
      acc[0] = fmaf(sc, d, acc[0]);
      acc[1] = fmaf(sc_second, d_second, acc[1]);
    }
  }
  write_unit<F>(a, unit, rows, acc, smem, lane);
}

// Two blocks an SM, 16 warps, as the tuned NF4 kernels of the other variants run: at most 128
// registers, which four steps with the paired tail (3,584 features) fit without spilling; four
// full steps (4,096) spill 16–32 bytes a thread. (With a second buffer instead of the refill,
// four steps took 168–218 registers: one block an SM.)
template <class F, int J, bool Paired>
__global__ void __launch_bounds__(kGemvThreads, 2) gemv_whole_kernel(const GemvArgs a) {
  static_assert(std::is_same_v<Acc<F>, float>, "the whole-row variant sums in FP32");
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int V = F::kElems * x_bytes<F>() / 16;  // 16-byte units of x per weight chunk
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int chunks = a.cols / F::kElems;
  const int total = outputs(a);
  const int units = unit_count(a.swiglu, total);
  const int stride = static_cast<int>(gridDim.x) * kGemvWarps;

  // The first unit is loaded before waiting (PDL) and staging x, as in the row-group kernel.
  int unit = static_cast<int>(blockIdx.x) * kGemvWarps + warp;
  WholeUnit<F, J, Paired> u;
  WholeRows rows = whole_rows(a, min(unit, units - 1), total);
  if (unit < units) u.load(rows, lane, chunks, a.cols);
  F::init_shared(a, smem);  // constant tables: built before waiting, like the first loads
  pdl_wait();
  pdl_trigger();
  stage<F, V>(a, smem);

  for (; unit < units; unit += stride) {
    const bool more = unit + stride < units;
    const WholeRows next = whole_rows(a, more ? unit + stride : unit, total);
    whole_finish<F, J, Paired, V>(a, unit, rows, u, more, next, chunks, smem, lane);
    rows = next;
  }
}

// Launches gemv_whole_kernel<F, J, Paired> with the shared memory it needs.
template <class F, int J, bool Paired>
void launch_gemv_whole(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  static size_t configured = 48 * 1024;  // per instantiation: the dynamic limit already set
  launch_rows(gemv_whole_kernel<F, J, Paired>, a, config, 2, gemv_shared_bytes<F>(a.cols),
              configured, stream);
}

}  // namespace ec::engine::cuda::detail
