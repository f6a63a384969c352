// Which chunks of which rows each lane loads and adds in the whole-row GEMV variant
// (gemv_whole_kernel.cuh): plain arithmetic, callable from the kernel and from host tests, which
// check it against the row-group kernel's order without a GPU.
#pragma once

#if defined(__CUDACC__)
#define EC_GEMV_SCHEDULE __host__ __device__ __forceinline__
#else
#define EC_GEMV_SCHEDULE inline
#endif

namespace ec::engine::cuda::detail {

// Why one place: the variant is the row-group kernel's sums bit for bit only if lane l adds
// chunks l, l + 32, l + 64, ... of each row, each once, in ascending order, and loads nothing past
// the row. These functions are that contract; tests/engine_cuda/gemv_unit_schedule_test.cpp
// replays every lane of a warp through them for every row width the variant accepts.

// A unit is two rows: SwiGLU's gate and up row of output `unit`, or rows 2·unit and 2·unit + 1.
EC_GEMV_SCHEDULE int unit_count(bool swiglu, int total) {
  return swiglu ? total : (total + 1) / 2;
}

// Row j (0 or 1) of a unit: the output (SwiGLU) or row it takes, and whether it exists. Past the
// last row a unit repeats the last one, loaded and never written.
struct UnitRow {
  int row;
  bool valid;
};
EC_GEMV_SCHEDULE UnitRow unit_row(bool swiglu, int unit, int j, int total) {
  const int row = swiglu ? unit : 2 * unit + j;
  const bool valid = row < total;
  return UnitRow{valid ? row : total - 1, valid};
}

// Whole-row variant, rows of `steps` steps of 32 chunks (every step but the last full).

// Whether a row of more than one step ends half-way through its last step, so that the unit's two
// rows share it: lanes 0-15 take it for row 0, lanes 16-31 for row 1 (3,584 and 1,536 features
// in NF4).
EC_GEMV_SCHEDULE constexpr bool whole_paired(int chunks) {
  return chunks > 32 && chunks % 32 == 16;
}

// The chunk lane `lane` loads at step j of a row, and the x it dots it with: only the last step can
// run past the row, where a lane loads the row's last chunk again (the warp reads it in the same
// request anyway) and adds nothing.
EC_GEMV_SCHEDULE int whole_chunk_index(int lane, int j, int steps, int chunks) {
  const int c = lane + 32 * j;
  return (j + 1 < steps || c < chunks) ? c : chunks - 1;
}
EC_GEMV_SCHEDULE bool whole_adds(int lane, int j, int steps, int chunks) {
  return j + 1 < steps || lane + 32 * j < chunks;
}

// The kernel reaches a lane's chunks of a row from its first one, whole_chunk_index(lane, 0, ...):
// step j's is whole_step_offset chunks on, 32·j for every step but the last (an immediate offset
// of the loads), and its NF4 block (chunks of 32, blocks of 64) whole_block_offset blocks on. A row
// whose first chunk is chunk f of its segment has block (f + c) / 2 at chunk c, so the block
// offset is exact wherever the chunk offset is even (every chunk a lane adds); where a lane only
// loads (past the row) it stays within the row's blocks.
EC_GEMV_SCHEDULE int whole_step_offset(int lane, int j, int steps, int chunks) {
  return whole_chunk_index(lane, j, steps, chunks) - whole_chunk_index(lane, 0, steps, chunks);
}
EC_GEMV_SCHEDULE int whole_block_offset(int lane, int j, int steps, int chunks) {
  return whole_step_offset(lane, j, steps, chunks) >> 1;
}

// The paired last step: the chunk lane `lane` loads, and which of the unit's rows it is of. Lane
// l + 16 hands its dot and scale to lane l, which adds both (row 0's, then row 1's).
EC_GEMV_SCHEDULE int paired_tail_chunk(int lane, int steps) {
  return 32 * (steps - 1) + (lane & 15);
}
EC_GEMV_SCHEDULE int paired_tail_row(int lane) {
  return lane >= 16 ? 1 : 0;
}

// The paired tail chunk and its block as offsets from the lane's first chunk (lane) of the tail's
// row: the block offset is exact because a paired row's chunks are even in number, so every row
// starts at an even chunk of its segment.
EC_GEMV_SCHEDULE int paired_tail_offset(int lane, int steps) {
  return paired_tail_chunk(lane, steps) - lane;
}
EC_GEMV_SCHEDULE int paired_tail_block_offset(int lane, int steps) {
  return (paired_tail_chunk(lane, steps) >> 1) - (lane >> 1);
}

// Row-pass variant (gemv_pass_kernel.cuh), rows of any number of steps of 32 chunks taken in
// passes of `pass_steps` steps. Every pass but the last is whole steps; the last may run past the
// row (its last step partial, or steps past the row's last), where a lane loads the row's last
// chunk again and adds nothing.
EC_GEMV_SCHEDULE int pass_count(int chunks, int pass_steps) {
  return ((chunks + 31) / 32 + pass_steps - 1) / pass_steps;
}
EC_GEMV_SCHEDULE int pass_chunk_index(int lane, int pass, int j, int pass_steps, int chunks) {
  const int c = lane + 32 * (pass * pass_steps + j);
  return c < chunks ? c : chunks - 1;
}
EC_GEMV_SCHEDULE bool pass_adds(int lane, int pass, int j, int pass_steps, int chunks) {
  return lane + 32 * (pass * pass_steps + j) < chunks;
}
// A lane reaches pass p's chunks from its cursor, chunk lane + 32·p·S of the row: 32·j chunks
// (16·j blocks) on in every pass but the last; in the last, pass_last_offset chunks and
// pass_last_block_offset blocks on. The block offset is exact where the lane adds the chunk; past
// the row it may be negative (the cursor itself is past the row) and stays within the row's blocks.
EC_GEMV_SCHEDULE int pass_last_offset(int lane, int j, int pass_steps, int chunks) {
  const int last = pass_count(chunks, pass_steps) - 1;
  return pass_chunk_index(lane, last, j, pass_steps, chunks) - (lane + 32 * last * pass_steps);
}
EC_GEMV_SCHEDULE int pass_last_block_offset(int lane, int j, int pass_steps, int chunks) {
  return pass_last_offset(lane, j, pass_steps, chunks) >> 1;  // floor, for negative offsets too
}

}  // namespace ec::engine::cuda::detail

#undef EC_GEMV_SCHEDULE
