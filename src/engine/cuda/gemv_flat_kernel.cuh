// The batch-1 GEMV's flat variant (device code; included by gemv_dispatch.cuh): each warp of a
// resident grid owns an even share of the outputs, and streams their (row, chunk) pairs as one
// flat sequence over its lanes, so no lane slot is empty at the end of a row and nothing is set
// up per row group. Rows, x staging, the dot and the epilogue are gemv_kernel.cuh's; a row's sum
// is reduced in the canonical kernel's lane order, so the results are the same bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_kernel.cuh"

namespace ec::engine::cuda::detail {

// Why: the row-group kernel gives each lane chunks l, l + 32, ... of each of its R rows, so a row
// of 112 chunks (qwen2-7b's 3,584 features in NF4) takes four 32-lane slots per row and leaves 16
// of them empty, and every row group copies its rows' segments, pointers and steps anew. Here a
// unit is R rows that share x (R consecutive rows of a segment, or SwiGLU's gate and up row of
// one output); item i of a warp's piece is chunk i mod chunks of unit i / chunks, and lane l takes
// items l, l + 32, ... in that order, U of them a step, the next step loaded into a second
// register buffer while the current one is dotted.
//
// The same sum bit for bit: lane l takes chunk c of unit u when (u·chunks + c) mod 32 = l, so each
// lane still adds its chunks of a row in ascending order, as lane c mod 32 of the row-group kernel
// does, and before the warp reduce lane l takes the partial sum of lane (l + u·chunks) mod 32:
// every lane then holds what lane l holds there, and warp_sum adds them in the same tree.
//
// With rows of at least 32·U chunks (kGemvFlatMinChunks), a step's 32·U items touch at most two
// units, so a lane holds the partial sums of two units (slots u mod 2), and unit u is reduced at
// the end of the step that takes its last item, before unit u + 2 takes its slot.

// A run of a warp's outputs inside one segment (with SwiGLU, gate and up rows of the same outputs).
struct FlatPiece {
  int seg = 0;   // segment of the rows (SwiGLU: the gate's; the up rows are segment 1's)
  int row0 = 0;  // first row, local to the segment
  int rows = 0;  // rows (SwiGLU: outputs); 0 when the warp has none in this segment
  int out0 = 0;  // output index of row0
};

// The warp's share of the outputs, [begin, end): an even split over the grid's warps.
struct FlatShare {
  int begin, end;
};

__device__ __forceinline__ FlatShare flat_share(int total, int warp) {
  const int64_t warps = static_cast<int64_t>(gridDim.x) * kGemvWarps;
  const int64_t w = static_cast<int64_t>(blockIdx.x) * kGemvWarps + warp;
  return {static_cast<int>(total * w / warps), static_cast<int>(total * (w + 1) / warps)};
}

// The part of the share in segment i (SwiGLU: the whole share, in segments 0 and 1).
__device__ __forceinline__ FlatPiece flat_piece(const GemvArgs& a, FlatShare share, int i) {
  FlatPiece p;
  if (a.swiglu) {
    if (i == 0) p = FlatPiece{0, share.begin, share.end - share.begin, share.begin};
    return p;
  }
  int start = 0;
  for (int k = 0; k < i; ++k) start += a.seg[k].rows;
  const int lo = max(share.begin, start);
  const int hi = min(share.end, start + a.seg[i].rows);
  if (lo < hi) p = FlatPiece{i, lo - start, hi - lo, lo};
  return p;
}

// The rows of a piece's units: R consecutive rows of one segment, or SwiGLU's gate and up row.
template <class F, int R>
struct FlatRows {
  GemvSegment seg[R];
  int row0, rows, units;
  bool swiglu;

  __device__ FlatRows(const GemvArgs& a, const FlatPiece& p) : row0(p.row0), rows(p.rows) {
    swiglu = a.swiglu;
    units = swiglu ? p.rows : (p.rows + R - 1) / R;
#pragma unroll
    for (int j = 0; j < R; ++j) seg[j] = a.seg[swiglu ? j : p.seg];
  }
  // Row j of unit u, local to its segment; past the piece's last row, its last row (loaded again,
  // never written: the warp reads it in the same request anyway).
  __device__ int row(int u, int j) const {
    return swiglu ? row0 + u : row0 + min(u * R + j, rows - 1);
  }
};

// Item (unit, chunk) of a lane: from (0, lane), 32 items a step along the flattened units.
struct FlatCursor {
  int unit = 0;
  int chunk = 0;
  __device__ void advance(int chunks) {  // chunks >= 32: at most one unit boundary per item
    chunk += 32;
    if (chunk >= chunks) {
      chunk -= chunks;
      ++unit;
    }
  }
};

// The weights and raw chunk scales of one step: U items of R rows.
template <class F, int R, int U>
struct FlatStep {
  uint4 w[U][R];
  float2 raw[U][R];

  __device__ void load(const FlatRows<F, R>& rows, FlatCursor& at, int chunks, int cols) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int unit = min(at.unit, rows.units - 1);  // past the piece's end: its last unit again
#pragma unroll
      for (int j = 0; j < R; ++j) {
        const int row = rows.row(unit, j);
        w[u][j] = ld_stream(static_cast<const unsigned char*>(rows.seg[j].w) +
                            (static_cast<int64_t>(row) * chunks + at.chunk) * int64_t{16});
        raw[u][j] = F::raw(rows.seg[j], row, cols, at.chunk);
      }
      at.advance(chunks);
    }
  }
};

// A lane's partial sums of the (at most two) units it is taking: slot u mod 2, R rows each.
template <int R>
struct FlatSums {
  float slot[2][R];
};

// Unit u's R row sums, reduced over the warp in the canonical kernel's lane order, and its slot
// cleared for unit u + 2; lane 0 writes the unit's outputs.
template <class F, int R>
__device__ __forceinline__ void flush_unit(const GemvArgs& a, const FlatRows<F, R>& rows,
                                           const FlatPiece& p, int u, int chunks,
                                           const unsigned char* smem, int lane, FlatSums<R>& sums) {
  const int src = static_cast<int>(
      (static_cast<unsigned>(lane) + static_cast<unsigned>(u) * static_cast<unsigned>(chunks)) &
      31u);
  float total[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const float mine = (u & 1) ? sums.slot[1][j] : sums.slot[0][j];
    if (u & 1) {
      sums.slot[1][j] = 0.0f;
    } else {
      sums.slot[0][j] = 0.0f;
    }
    total[j] = warp_sum(__shfl_sync(0xffffffffu, mine, src));
  }
  if (lane != 0) return;
  const typename RowLoadsOf<F>::type none{};
  if (rows.swiglu) {
    const int row = rows.row0 + u;
    write_swiglu<F>(a, p.out0 + u, finish_row<F>(a, rows.seg[0], row, total[0], smem, none),
                    finish_row<F>(a, rows.seg[1], row, total[1], smem, none));
    return;
  }
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int r = u * R + j;
    if (r < rows.rows) {
      write_row(a, p.out0 + r, finish_row<F>(a, rows.seg[j], rows.row0 + r, total[j], smem, none));
    }
  }
}

// Dots one loaded step into the sums (items past the piece's end add nothing), then reduces the
// unit whose last item the warp has now taken, if any. The step's U·R dots are one basic block,
// with the sums chosen by select rather than by branch, so their shared-memory reads interleave
// as the row-group kernel's do (with a branch per item, the flat kernel was 11 % slower than it
// at qwen2-7b's NF4 gate_up on the H200).
template <class F, int R, int U, int V>
__device__ __forceinline__ void flat_accumulate(const GemvArgs& a, const FlatRows<F, R>& rows,
                                                const FlatPiece& p, const FlatStep<F, R, U>& step,
                                                FlatCursor& at, int& taken, int& next_unit,
                                                int chunks, const unsigned char* smem, int lane,
                                                FlatSums<R>& sums) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const bool valid = at.unit < rows.units;
    const bool second_slot = at.unit & 1;
    const float4* xc = x_unit<F>(smem, at.chunk * V);
    const int rot = x_rot<V>(at.chunk);
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const float sc = F::scale(step.raw[u][j], rows.seg[j], smem);
      const float d = F::dot(step.w[u][j], xc, rot, smem, lane);
      const float next = fmaf(sc, d, second_slot ? sums.slot[1][j] : sums.slot[0][j]);
      if (valid && second_slot) sums.slot[1][j] = next;
      if (valid && !second_slot) sums.slot[0][j] = next;
    }
    at.advance(chunks);
  }
  // With rows of at least 32·U chunks, at most one unit ends in a step, and unit u + 2 (which
  // takes u's slot) starts at least a step after u ends.
  taken += 32 * U;
  if (next_unit < rows.units && (next_unit + 1) * chunks <= taken) {
    flush_unit<F, R>(a, rows, p, next_unit, chunks, smem, lane, sums);
    ++next_unit;
  }
}

template <class F, int R, int U>
__global__ void __launch_bounds__(kGemvThreads) gemv_flat_kernel(const GemvArgs a) {
  static_assert(std::is_same_v<Acc<F>, float>, "the flat variant sums in FP32");
  static_assert(32 * U <= kGemvFlatMinChunks, "a step's items must touch at most two units");
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int V = F::kElems * x_bytes<F>() / 16;  // 16-byte units of x per weight chunk
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int chunks = a.cols / F::kElems;
  const FlatShare share = flat_share(outputs(a), warp);
  const int pieces = a.swiglu ? 1 : a.n_seg;

  // The first piece's first step is loaded before waiting (PDL) and staging x, as in the
  // row-group kernel: the weights depend on neither.
  int i = 0;
  FlatPiece p = flat_piece(a, share, 0);
  while (p.rows == 0 && ++i < pieces) p = flat_piece(a, share, i);
  FlatStep<F, R, U> even, odd;
  FlatCursor load_at{0, lane};
  bool preloaded = p.rows > 0;
  if (preloaded) even.load(FlatRows<F, R>(a, p), load_at, chunks, a.cols);
  start_after_first_loads<F, V>(a, smem);

  for (; i < pieces; ++i) {
    if (!preloaded) {
      p = flat_piece(a, share, i);
      if (p.rows == 0) continue;
    }
    const FlatRows<F, R> rows(a, p);
    if (!preloaded) {
      load_at = FlatCursor{0, lane};
      even.load(rows, load_at, chunks, a.cols);
    }
    preloaded = false;
    FlatCursor at{0, lane};
    FlatSums<R> sums;
#pragma unroll
    for (int j = 0; j < R; ++j) sums.slot[0][j] = sums.slot[1][j] = 0.0f;
    int taken = 0, next_unit = 0;
    const int steps = ((rows.units * chunks + 31) / 32 + U - 1) / U;
    // Steps alternate between the two buffers, so neither is ever copied.
    for (int s = 0; s < steps; s += 2) {
      if (s + 1 < steps) odd.load(rows, load_at, chunks, a.cols);
      flat_accumulate<F, R, U, V>(a, rows, p, even, at, taken, next_unit, chunks, smem, lane, sums);
      if (s + 1 >= steps) break;
      if (s + 2 < steps) even.load(rows, load_at, chunks, a.cols);
      flat_accumulate<F, R, U, V>(a, rows, p, odd, at, taken, next_unit, chunks, smem, lane, sums);
    }
  }
}

template <class F, int R, int U>
void launch_gemv_flat(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  launch_row_kernel<gemv_flat_kernel<F, R, U>, F>(a, config, R, stream);
}

}  // namespace ec::engine::cuda::detail
