// The batch-1 GEMV's row-pass variant for NF4 / NF4-DQ rows longer than the whole-row variant
// takes (device code; included by gemv_dispatch.cuh): units of two rows as in
// gemv_whole_kernel.cuh, each lane streaming its share of both rows in passes of S steps of 32
// chunks held in registers, each chunk's registers refilled, once dotted, with the same chunk of
// the next pass (or of the next unit's first). Lane l adds chunks l, l + 32, ... of each row in
// that order and the warp reduces them as the row-group kernel does: the same sums bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_kernel.cuh"
#include "engine/cuda/gemv_unit_schedule.h"
#include "engine/cuda/gemv_whole_kernel.cuh"

namespace ec::engine::cuda::detail {

// Why: the row-group kernel, which the long rows ran on (qwen2-7b's down_proj: 18,944 features,
// 18.5 steps of 32 chunks), spends per step what the whole-row kernel spends per unit: which
// step and which row group is next, every chunk's address in 64 bits and its block index, the x
// address and a bounds test of every chunk. Here a pass's chunks lie at immediate offsets from one
// cursor per row (the weights' and the scales'), advanced once a pass; only the last pass of a
// row, which may run past it, takes per-lane offsets (PassLane).

// A lane's offsets into a row's last pass, from its cursor, and which of its steps it adds.
template <int S>
struct PassLane {
  int last_bytes[S];
  int last_blocks[S];
  uint32_t adds_last;  // bit j: step j of the last pass lies in the row
};

template <int S>
__device__ __forceinline__ PassLane<S> pass_lane(int lane, int chunks) {
  PassLane<S> l;
  l.adds_last = 0;
  const int last = pass_count(chunks, S) - 1;
#pragma unroll
  for (int j = 0; j < S; ++j) {
    l.last_bytes[j] = pass_last_offset(lane, j, S, chunks) * 16;
    l.last_blocks[j] = pass_last_block_offset(lane, j, S, chunks);
    if (pass_adds(lane, last, j, S, chunks)) l.adds_last |= 1u << j;
  }
  return l;
}

// The same row a pass further on: its cursor S steps on.
template <class F, int S>
__device__ __forceinline__ WholeRow<F> next_pass(const WholeRow<F>& row) {
  WholeRow<F> r = row;
  r.w += 512 * S;
  r.raw = F::raw_from(row.raw, 16 * S);
  return r;
}

// One lane's weights and raw chunk scales of a pass: step j of both rows.
template <class F, int S>
struct PassRegisters {
  uint4 w[S][2];
  float2 raw[S][2];

  // Step j of row r in the pass whose cursor is `row` (Last: the row's last pass).
  template <bool Last>
  __device__ void load(int j, int r, const WholeRow<F>& row, const PassLane<S>& l) {
    if constexpr (Last) {
      w[j][r] = ld_stream(row.w + l.last_bytes[j]);
      raw[j][r] = F::raw_at(row.raw, l.last_blocks[j]);
    } else {
      w[j][r] = ld_stream(row.w + 512 * j);
      raw[j][r] = F::raw_at(row.raw, 16 * j);
    }
  }
};

// Where a lane's x is: chunk `lane`'s in the staged x, and how far one step (32 chunks) moves it.
// Both follow from x_unit being linear in the chunk (x_slot's permutation, k ^ rot, is the same
// for chunks 32 apart: x_rot depends on c·V/8 mod V, and 32·V/8 is a multiple of V).
struct PassX {
  const unsigned char* at;  // chunk `lane`'s first 16-byte unit
  int step_bytes;
  int rot;
};

template <class F, int V>
__device__ __forceinline__ PassX pass_x(const unsigned char* smem, int lane) {
  const auto* at = reinterpret_cast<const unsigned char*>(x_unit<F>(smem, lane * V));
  const auto* next = reinterpret_cast<const unsigned char*>(x_unit<F>(smem, (lane + 32) * V));
  return {at, static_cast<int>(next - at), x_rot<V>(lane)};
}

// Pass p of a unit's two rows (cursors `cur`), each chunk's registers refilled once dotted from
// the pass at `to` (ToLast: that pass is its rows' last) when `refill`. Only the last pass
// (Last) can run past the rows: there a lane dots its clamped chunks and adds those in the row.
template <class F, int S, bool Swiglu, int V, bool Last, bool ToLast>
__device__ __forceinline__ void row_pass(const GemvArgs& a, PassRegisters<F, S>& u,
                                         const WholeRow<F> (&cur)[2], const WholeRow<F> (&to)[2],
                                         bool refill, const PassLane<S>& l, const PassX& x, int p,
                                         int chunks, const unsigned char* smem, int lane,
                                         float (&acc)[2]) {
#pragma unroll
  for (int j = 0; j < S; ++j) {
    const float4* xc;
    int rot = x.rot;
    bool in_row = true;
    if constexpr (Last) {
      const int c = pass_chunk_index(lane, p, j, S, chunks);
      xc = x_unit<F>(smem, c * V);
      rot = x_rot<V>(c);
      in_row = ((l.adds_last >> j) & 1u) != 0;
    } else {
      xc = reinterpret_cast<const float4*>(x.at + (p * S + j) * x.step_bytes);
    }
    // A step wholly past the rows (the last pass of rows whose steps S does not divide) is not
    // dotted; its registers are refilled all the same.
    const bool dotted = !Last || 32 * (p * S + j) < chunks;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if (dotted) {
        const float sc = F::scale(u.raw[j][r], a.seg[Swiglu ? r : cur[r].seg], smem);
        const float d = F::dot(u.w[j][r], xc, rot, smem, lane);
        if (in_row) acc[r] = fmaf(sc, d, acc[r]);
      }
      if (refill) u.template load<ToLast>(j, r, to[r], l);
    }
  }
}

// Two blocks an SM, as the whole-row kernel.
template <class F, int S, bool Swiglu>
__global__ void __launch_bounds__(kGemvThreads, 2) gemv_pass_kernel(const GemvArgs a) {
  static_assert(std::is_same_v<Acc<F>, float>, "the row-pass variant sums in FP32");
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int V = F::kElems * x_bytes<F>() / 16;  // 16-byte units of x per weight chunk
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int chunks = a.cols / F::kElems;
  const int passes = pass_count(chunks, S);
  const int total = outputs(a);
  const int units = unit_count(Swiglu, total);
  const int stride = static_cast<int>(gridDim.x) * kGemvWarps;
  const PassLane<S> l = pass_lane<S>(lane, chunks);
  const PassX x = pass_x<F, V>(smem, lane);

  // The first unit's first pass is loaded before waiting (PDL) and staging x. A row's cursor
  // starts at chunk `lane`, past the row only where the first pass is its last (offsets then).
  int unit = static_cast<int>(blockIdx.x) * kGemvWarps + warp;
  PassRegisters<F, S> u;
  WholeRow<F> rows[2];
  unit_rows<F, Swiglu>(rows, a, min(unit, units - 1), total, chunks, lane);
  if (unit < units) {
#pragma unroll
    for (int j = 0; j < S; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        if (passes == 1) {
          u.template load<true>(j, r, rows[r], l);
        } else {
          u.template load<false>(j, r, rows[r], l);
        }
      }
    }
  }
  start_after_first_loads<F, V>(a, smem);

  for (; unit < units; unit += stride) {
    const bool more = unit + stride < units;
    WholeRow<F> next[2];
    unit_rows<F, Swiglu>(next, a, more ? unit + stride : unit, total, chunks, lane);
    float acc[2] = {0.0f, 0.0f};
    WholeRow<F> cur[2] = {rows[0], rows[1]};
    // Every pass but the last two refills from the next pass; the one before the last from the
    // last (its offsets); the last from the next unit's first.
    int p = 0;
    for (; p + 2 < passes; ++p) {
      const WholeRow<F> ahead[2] = {next_pass<F, S>(cur[0]), next_pass<F, S>(cur[1])};
      row_pass<F, S, Swiglu, V, false, false>(a, u, cur, ahead, true, l, x, p, chunks, smem, lane,
                                              acc);
      cur[0] = ahead[0];
      cur[1] = ahead[1];
    }
    if (p + 1 < passes) {
      const WholeRow<F> ahead[2] = {next_pass<F, S>(cur[0]), next_pass<F, S>(cur[1])};
      row_pass<F, S, Swiglu, V, false, true>(a, u, cur, ahead, true, l, x, p, chunks, smem, lane,
                                             acc);
      cur[0] = ahead[0];
      cur[1] = ahead[1];
      ++p;
      row_pass<F, S, Swiglu, V, true, false>(a, u, cur, next, more, l, x, p, chunks, smem, lane,
                                             acc);
    } else {
      row_pass<F, S, Swiglu, V, true, true>(a, u, cur, next, more, l, x, p, chunks, smem, lane,
                                            acc);
    }
    static_assert(
        !requires { typename F::RowLoads; }, "the row-pass formats' epilogues load nothing");
    const typename RowLoadsOf<F>::type none[2]{};
    write_unit<F, Swiglu>(a, unit, rows, acc, none, smem, lane);
    rows[0] = next[0];
    rows[1] = next[1];
  }
}

template <class F, int S>
void launch_gemv_pass(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  launch_unit_kernel<gemv_pass_kernel<F, S, false>, gemv_pass_kernel<F, S, true>, F>(a, config,
                                                                                     stream);
}

}  // namespace ec::engine::cuda::detail
