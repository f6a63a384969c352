// The batch-1 GEMV's whole-row variant (device code; included by gemv_dispatch.cuh): each warp of a
// resident grid takes units of two rows (SwiGLU's gate and up row of an output, or two consecutive
// rows), each lane loads its whole share of both rows at once, J chunks a row, and refills each
// chunk's registers with the next unit's once it has dotted it. Rows, x staging, the dot and the
// epilogue are gemv_kernel.cuh's; each lane adds the chunks of a row the row-group kernel's lane
// adds, in the same order, and the warp reduces them in the same tree, so the results are the same
// bit for bit. LLM.int8() sums its chunks in int32 (exact) and finishes a row in every lane (its
// outlier products are spread over the lanes). The x-in-registers variant (-xreg) is the same
// kernel with a lane's staged x read into registers once, before its first unit (WholeX).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_kernel.cuh"
#include "engine/cuda/gemv_unit_schedule.h"

namespace ec::engine::cuda::detail {

// Why: NF4's dot is bound by instructions, not by bytes (docs/results/decode-h200.md), and the
// row-group kernel spends about half of its instructions beside the dot at qwen2-7b's 3,584
// features: the generic step loop (which step, which row group, clamped chunk indices, the x
// address of every chunk) and the set-up of every row group. With a row's J chunks per lane known
// at compile time, lane l's chunks are l + 32·j: their x addresses are the same in every unit and
// their weights and scales lie at fixed offsets from the row's start.
// What a unit costs beside its dots is therefore per unit, not per chunk: a row's start and its
// first block (whole_row), the steps at immediate offsets from them, one warp reduction per row and
// the epilogue. SwiGLU is a template parameter, so its units pick no segments. On sm_90 the
// unit loop of qwen2-7b's gate_up (3,584 features, SwiGLU) is 625 instructions for 7 chunks a
// lane, 89 per 512 bytes of codes, 67 of them the dots' (scripts/sass-loops.py counts them).
//
// The paired tail: where a row has 32·(J − 1) + 16 chunks (3,584 and 1,536 features), the last
// step fills only lanes 0–15 of each row. Lanes 0–15 take it for the first row and lanes 16–31
// for the second, and lane l + 16 hands its dot and scale to lane l, which adds them where the
// row-group kernel's lane l adds that chunk: last. A unit is then 2·J − 1 dots a lane, not 2·J.

// What a lane holds of a unit's row between units: where its first chunk is, where that chunk's
// block scale is, and what the epilogue needs. Segments are not held (SwiGLU's are the kernel's
// seg[0] and seg[1]; the others' index): a copied GemvSegment per row cost the unit loop about 40
// register moves and constant loads (the SASS of the 7B gate_up instantiation).
template <class F>
struct WholeRow {
  const unsigned char* w;   // the lane's first chunk of the row, whole_chunk_index(lane, 0, ...)
  typename F::RawFrom raw;  // that chunk's block scale on
  int local;                // row within its segment
  int seg;                  // the segment's index in GemvArgs::seg
  bool valid;               // past the last row a unit repeats it: loaded, never written
};

// Row j of `unit` for a lane whose first chunk of a row is c0 (chunks of 32 codes per row).
template <class F, bool Swiglu>
__device__ __forceinline__ WholeRow<F> whole_row(const GemvArgs& a, int unit, int j, int total,
                                                 int chunks, int c0) {
  const UnitRow r = unit_row(Swiglu, unit, j, total);
  WholeRow<F> row;
  row.valid = r.valid;
  row.local = r.row;
  row.seg = Swiglu ? j : segment_of(a, row.local);
  const GemvSegment& s = a.seg[Swiglu ? j : row.seg];
  // The row's first chunk among the segment's, in 32 bits as block_of (gemv() refuses a segment
  // of more than 2^32 chunks).
  const uint32_t first = static_cast<uint32_t>(row.local) * static_cast<uint32_t>(chunks);
  row.w = static_cast<const unsigned char*>(s.w) + (static_cast<uint64_t>(first) + c0) * 16;
  row.raw = F::raw_from(s, (first + static_cast<uint32_t>(c0)) >> 1);
  return row;
}

// A unit's two rows, rows 0 and 1 of unit_row, for a lane whose first chunk of a row is c0.
template <class F, bool Swiglu>
__device__ __forceinline__ void unit_rows(WholeRow<F> (&rows)[2], const GemvArgs& a, int unit,
                                          int total, int chunks, int c0) {
  rows[0] = whole_row<F, Swiglu>(a, unit, 0, total, chunks, c0);
  rows[1] = whole_row<F, Swiglu>(a, unit, 1, total, chunks, c0);
}

// A lane's fixed offsets into every row, from its first chunk: the last step's chunk and block
// (register offsets; the steps before it are 32·j chunks on, immediate), and the paired tail's.
struct WholeLane {
  int c0;  // whole_chunk_index(lane, 0, ...): where the lane's loads of a row start
  int last_bytes, last_blocks;
  int tail_bytes, tail_blocks;
};

template <int J>
__device__ __forceinline__ WholeLane whole_lane(int lane, int chunks) {
  WholeLane l;
  l.c0 = whole_chunk_index(lane, 0, J, chunks);
  l.last_bytes = whole_step_offset(lane, J - 1, J, chunks) * 16;
  l.last_blocks = whole_block_offset(lane, J - 1, J, chunks);
  l.tail_bytes = paired_tail_offset(lane, J) * 16;
  l.tail_blocks = paired_tail_block_offset(lane, J);
  return l;
}

// What the epilogue of a unit's two rows reads from global memory (F::RowLoads: LLM.int8()'s row
// scale, bias and first outlier weights; nothing for the other formats), loaded as the unit's dots
// start so that its latency passes while they run. Loaded in every lane for a format whose epilogue
// works across the warp (WarpEpilogue), else in the lane that writes the row.
template <class F, bool Swiglu>
__device__ __forceinline__ void load_unit_epilogue(typename RowLoadsOf<F>::type (&e)[2],
                                                   const GemvArgs& a, const WholeRow<F> (&rows)[2],
                                                   const unsigned char* smem, int lane) {
  if constexpr (requires { typename F::RowLoads; }) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int writer = Swiglu ? 0 : r;
      if (finishes_row<F>(lane, writer) && rows[r].valid) {
        e[r] = F::load_row(a, a.seg[Swiglu ? r : rows[r].seg], rows[r].local, smem, lane);
      }
    }
  }
}

// A unit's two row sums, reduced over the warp and written: lane r writes row r; with SwiGLU
// lane 0 writes the output. A WarpEpilogue format finishes both rows in every lane.
template <class F, bool Swiglu>
__device__ __forceinline__ void write_unit(const GemvArgs& a, int unit,
                                           const WholeRow<F> (&rows)[2], const Acc<F> (&acc)[2],
                                           const typename RowLoadsOf<F>::type (&e)[2],
                                           const unsigned char* smem, int lane) {
  const Acc<F> first = warp_sum(acc[0]);
  const Acc<F> second = warp_sum(acc[1]);
  const auto finished = [&](int r, Acc<F> sum) {
    return finish_row<F>(a, a.seg[Swiglu ? r : rows[r].seg], rows[r].local, sum, smem, e[r]);
  };
  if constexpr (Swiglu) {
    if constexpr (WarpEpilogue<F>) {
      if (rows[0].valid) {  // the same in every lane: the unit is the warp's
        const float gate = finished(0, first), up = finished(1, second);
        if (lane == 0) write_swiglu<F>(a, unit, gate, up);
      }
    } else if (lane == 0 && rows[0].valid) {
      write_swiglu<F>(a, unit, finished(0, first), finished(1, second));
    }
    return;
  }
  if constexpr (WarpEpilogue<F>) {
    const float v0 = rows[0].valid ? finished(0, first) : 0.0f;
    const float v1 = rows[1].valid ? finished(1, second) : 0.0f;
    if (lane == 0 && rows[0].valid) write_row(a, 2 * unit, v0);
    if (lane == 1 && rows[1].valid) write_row(a, 2 * unit + 1, v1);
  } else {
    if (lane == 0 && rows[0].valid) write_row(a, 2 * unit, finished(0, first));
    if (lane == 1 && rows[1].valid) write_row(a, 2 * unit + 1, finished(1, second));
  }
}

// `second ? b : a` for a value of whole 32-bit words, word by word in selp: a C++ select of two
// structs (or of two elements of an array of them) by a lane's value made nvcc keep the array in
// local memory and load the chosen one from there, in the unit loop.
template <class T>
__device__ __forceinline__ T select_words(bool second, const T& a, const T& b) {
  if constexpr (std::is_empty_v<T>) {
    return a;  // a format's empty scale cursor (RawFrom): nothing to select
  } else {
    static_assert(sizeof(T) % 4 == 0 && std::is_trivially_copyable_v<T>);
    constexpr int kWords = sizeof(T) / 4;
    uint32_t wa[kWords], wb[kWords], wr[kWords];
    memcpy(wa, &a, sizeof(T));
    memcpy(wb, &b, sizeof(T));
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      asm("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %3, 0;\n\tselp.b32 %0, %2, %1, p;\n\t}"
          : "=r"(wr[i])
          : "r"(wa[i]), "r"(wb[i]), "r"(static_cast<uint32_t>(second)));
    }
    T r;
    memcpy(&r, wr, sizeof(T));
    return r;
  }
}

// One lane's weights and raw chunk scales of a unit: chunks c0 + 32·j of both rows for the steps
// both rows fill, and the paired tail's one chunk (Paired).
template <class F, int J, bool Paired>
struct WholeUnit {
  static constexpr int kBoth = Paired ? J - 1 : J;
  uint4 w[kBoth][2];
  float2 raw[kBoth][2];
  uint4 tail_w;
  float2 tail_raw;

  // Step j of row r.
  __device__ void load_step(int j, int r, const WholeRow<F> (&rows)[2], const WholeLane& l) {
    if (!Paired && j == J - 1) {
      w[j][r] = ld_stream(rows[r].w + l.last_bytes);
      raw[j][r] = F::raw_at(rows[r].raw, l.last_blocks);
    } else {
      w[j][r] = ld_stream(rows[r].w + 512 * j);
      raw[j][r] = F::raw_at(rows[r].raw, 16 * j);
    }
  }
  // Lanes 0-15 take the tail of row 0, lanes 16-31 of row 1.
  __device__ void load_tail(const WholeRow<F> (&rows)[2], const WholeLane& l, int lane) {
    const bool second = paired_tail_row(lane) == 1;
    tail_w = ld_stream(select_words(second, rows[0].w, rows[1].w) + l.tail_bytes);
    tail_raw = F::raw_at(select_words(second, rows[0].raw, rows[1].raw), l.tail_blocks);
  }
  __device__ void load(const WholeRow<F> (&rows)[2], const WholeLane& l, int lane) {
#pragma unroll
    for (int j = 0; j < kBoth; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) load_step(j, r, rows, l);
    }
    if constexpr (Paired) load_tail(rows, l, lane);
  }
};

// The staged x of a lane's chunk positions: the kBoth steps both rows fill, then the paired tail.
// A lane's chunks are the same in every unit, so with XReg (the -xreg variant) their x is read
// from shared memory once, as the grid starts, into registers, each chunk's units already in the
// order its dot reads them (rot 0). Without it every dot reads its chunk's units from shared
// memory. In NF4 at 3,584 features a unit's loop reads 16 units of x (64 wavefronts) beside its
// 112 table reads: x in registers takes a third of its shared-memory traffic away, at 16 registers
// a chunk (V = 4).
template <class F, int J, bool Paired, int V, bool XReg>
struct WholeX {
  static constexpr int kPositions = WholeUnit<F, J, Paired>::kBoth + (Paired ? 1 : 0);
  float4 x[XReg ? kPositions : 1][V];

  // Chunk c's x units and the rotation its dot reads them with.
  struct Chunk {
    const float4* x;
    int rot;
  };
  // Where chunk c's x is staged in shared memory (x_slot's permutation: unit k is at k ^ rot).
  __device__ static Chunk staged(const unsigned char* smem, int c) {
    return {x_unit<F>(smem, c * V), x_rot<V>(c)};
  }
  __device__ void hold(const unsigned char* smem, int position, int c) {
    const Chunk s = staged(smem, c);
#pragma unroll
    for (int i = 0; i < V; ++i) x[position][i] = s.x[i ^ s.rot];
  }
  // After staging (start_after_first_loads' __syncthreads).
  __device__ void load(const unsigned char* smem, int lane, int chunks) {
    if constexpr (XReg) {
#pragma unroll
      for (int j = 0; j < WholeUnit<F, J, Paired>::kBoth; ++j) {
        hold(smem, j, whole_chunk_index(lane, j, J, chunks));
      }
      if constexpr (Paired) hold(smem, kPositions - 1, paired_tail_chunk(lane, J));
    }
  }
  // Chunk c, at `position` among the lane's chunks.
  __device__ Chunk at(const unsigned char* smem, int position, int c) const {
    if constexpr (XReg) {
      return {x[position], 0};
    } else {
      return staged(smem, c);
    }
  }
};

// The unit's two row sums, dotted and written (write_unit). Once a dot has taken its chunk, that
// chunk's registers are refilled with the same chunk of the next unit (`next`, when `refill`):
// every load then has most of a unit's dots to arrive, as with a second buffer, in half the
// registers. (Loaded before the dot, the new chunk needed registers of its own while the old one
// was read, and nvcc moved 30-odd registers back into place at the end of every unit.)
template <class F, int J, bool Paired, bool Swiglu, int V, bool XReg>
__device__ __forceinline__ void whole_finish(const GemvArgs& a, int unit,
                                             const WholeRow<F> (&rows)[2],
                                             WholeUnit<F, J, Paired>& u, bool refill,
                                             const WholeRow<F> (&next)[2], const WholeLane& l,
                                             const WholeX<F, J, Paired, V, XReg>& x, int chunks,
                                             const unsigned char* smem, int lane) {
  typename RowLoadsOf<F>::type epilogue[2]{};
  load_unit_epilogue<F, Swiglu>(epilogue, a, rows, smem, lane);
  Acc<F> acc[2] = {0, 0};
#pragma unroll
  for (int j = 0; j < WholeUnit<F, J, Paired>::kBoth; ++j) {
    const bool in_row = whole_adds(lane, j, J, chunks);
    // Past the row any staged x will do.
    const auto [xc, rot] = x.at(smem, j, whole_chunk_index(lane, j, J, chunks));
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if constexpr (std::is_same_v<Acc<F>, float>) {
        const float sc = F::scale(u.raw[j][r], a.seg[Swiglu ? r : rows[r].seg], smem);
        const float d = F::dot(u.w[j][r], xc, rot, smem, lane);
        if (refill) u.load_step(j, r, next, l);
        if (in_row) acc[r] = fmaf(sc, d, acc[r]);
      } else {
        const Acc<F> d = F::dot(u.w[j][r], xc, rot, smem, lane);  // exact: no scale per chunk
        if (refill) u.load_step(j, r, next, l);
        if (in_row) acc[r] += d;
      }
    }
  }
  if constexpr (Paired) {
    static_assert(std::is_same_v<Acc<F>, float>, "the paired tail is the 4- and 16-bit rows'");
    const auto [xc, rot] = x.at(smem, x.kPositions - 1, paired_tail_chunk(lane, J));
    const bool second = paired_tail_row(lane) == 1;
    const int tail_seg =
        Swiglu ? static_cast<int>(second) : select_words(second, rows[0].seg, rows[1].seg);
    const float sc = F::scale(u.tail_raw, a.seg[tail_seg], smem);
    const float d = F::dot(u.tail_w, xc, rot, smem, lane);
    if (refill) u.load_tail(next, l, lane);
    const float sc_second = __shfl_xor_sync(0xffffffffu, sc, 16);
    const float d_second = __shfl_xor_sync(0xffffffffu, d, 16);
    if (lane < 16) {
      acc[0] = fmaf(sc, d, acc[0]);
      acc[1] = fmaf(sc_second, d_second, acc[1]);
    }
  }
  write_unit<F, Swiglu>(a, unit, rows, acc, epilogue, smem, lane);
}

// Two blocks an SM, 16 warps, as the tuned NF4 kernels of the other variants run: at most 128
// registers, which four steps with the paired tail (3,584 features) fit without spilling; four
// full steps (4,096) spill 16–32 bytes a thread. (With a second buffer instead of the refill,
// four steps took 168–218 registers: one block an SM.) With x in registers (XReg, WholeX) NF4's
// four paired steps take 231 registers: one block an SM, 8 warps, each with a unit in flight.
template <class F, int J, bool Paired, bool Swiglu, bool XReg>
__global__ void __launch_bounds__(kGemvThreads, XReg ? 1 : 2) gemv_whole_kernel(const GemvArgs a) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int V = F::kElems * x_bytes<F>() / 16;  // 16-byte units of x per weight chunk
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int chunks = a.cols / F::kElems;
  const int total = outputs(a);
  const int units = unit_count(Swiglu, total);
  const int stride = static_cast<int>(gridDim.x) * kGemvWarps;

  // The first unit is loaded before waiting (PDL) and staging x, as in the row-group kernel.
  int unit = static_cast<int>(blockIdx.x) * kGemvWarps + warp;
  const WholeLane l = whole_lane<J>(lane, chunks);
  WholeUnit<F, J, Paired> u;
  WholeRow<F> rows[2];
  unit_rows<F, Swiglu>(rows, a, min(unit, units - 1), total, chunks, l.c0);
  if (unit < units) u.load(rows, l, lane);
  start_after_first_loads<F, V>(a, smem);
  WholeX<F, J, Paired, V, XReg> x;
  x.load(smem, lane, chunks);

  for (; unit < units; unit += stride) {
    const bool more = unit + stride < units;
    WholeRow<F> next[2];
    unit_rows<F, Swiglu>(next, a, more ? unit + stride : unit, total, chunks, l.c0);
    whole_finish<F, J, Paired, Swiglu, V, XReg>(a, unit, rows, u, more, next, l, x, chunks, smem,
                                                lane);
    rows[0] = next[0];
    rows[1] = next[1];
  }
}

// Launches a unit kernel: Plain, or Swiglu for SwiGLU's units. SwiGLU is a parameter of the
// kernels, not a branch in them: its rows are the same row of seg[0] and seg[1], known without
// picking segments.
template <auto Plain, auto Swiglu, class F>
void launch_unit_kernel(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  if (a.swiglu) return launch_row_kernel<Swiglu, F>(a, config, 2, stream);
  launch_row_kernel<Plain, F>(a, config, 2, stream);
}

template <class F, int J, bool Paired, bool XReg>
void launch_gemv_whole(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  launch_unit_kernel<gemv_whole_kernel<F, J, Paired, false, XReg>,
                     gemv_whole_kernel<F, J, Paired, true, XReg>, F>(a, config, stream);
}

}  // namespace ec::engine::cuda::detail
