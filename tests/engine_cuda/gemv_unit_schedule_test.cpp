// The whole-row GEMV variant's lane schedule (no GPU needed): every lane of a warp, replayed
// through the functions the kernel calls, adds the chunks the row-group kernel's lane adds
// (l, l + 32, l + 64, ... of each row, each once, in ascending order), dots each with its own x,
// loads nothing past the row, and the units of a launch write every output once.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_unit_schedule.h"

namespace ec::engine::cuda::detail {
namespace {

constexpr int kLanes = 32;

// What one lane adds to one row's sum, in order: the weight chunk and the x chunk of each dot.
struct Added {
  int weights;
  int x;
};
struct LaneSums {
  std::vector<Added> of[2][kLanes];  // [row of the unit][lane]
};

// The row-group kernel's lane `lane` adds chunks lane, lane + 32, ... of a row, in that order.
std::vector<int> row_group_order(int lane, int chunks) {
  std::vector<int> order;
  for (int c = lane; c < chunks; c += kLanes) order.push_back(c);
  return order;
}

// Checks every lane's additions against the row-group kernel's; `what` names the case.
void expect_row_group_order(const LaneSums& sums, int chunks, const std::string& what) {
  for (int r = 0; r < 2; ++r) {
    for (int lane = 0; lane < kLanes; ++lane) {
      std::vector<int> weights;
      for (const Added& a : sums.of[r][lane]) {
        EXPECT_EQ(a.x, a.weights) << what << ": row " << r << " lane " << lane << " dots chunk "
                                  << a.weights << " with x of chunk " << a.x;
        weights.push_back(a.weights);
      }
      EXPECT_EQ(weights, row_group_order(lane, chunks))
          << what << ": row " << r << " lane " << lane;
    }
  }
}

// Replays gemv_whole_kernel's whole_finish for one unit of rows of `chunks` chunks of a format of
// `bits` bits a weight.
LaneSums replay_whole(int chunks, int bits, const std::string& what) {
  LaneSums sums;
  const int steps = gemv_whole_steps(chunks, bits);
  const bool paired = whole_paired(chunks);
  const int both = paired ? steps - 1 : steps;  // steps that each lane takes for both rows
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int j = 0; j < both; ++j) {
      const int c = whole_chunk_index(lane, j, steps, chunks);  // loaded, and its x read
      EXPECT_TRUE(c >= 0 && c < chunks)
          << what << ": lane " << lane << " step " << j << " loads chunk " << c;
      for (int r = 0; r < 2; ++r) {
        if (whole_adds(lane, j, steps, chunks)) sums.of[r][lane].push_back({c, c});
      }
    }
  }
  if (paired) {
    // Each lane dots its own tail chunk; lane l < 16 adds its own and then lane l + 16's.
    for (int lane = 0; lane < kLanes; ++lane) {
      const int c = paired_tail_chunk(lane, steps);
      EXPECT_TRUE(c >= 0 && c < chunks) << what << ": lane " << lane << " loads tail " << c;
      EXPECT_EQ(paired_tail_row(lane), lane < 16 ? 0 : 1) << what;
    }
    for (int lane = 0; lane < 16; ++lane) {
      const int partner = lane ^ 16;
      const int own = paired_tail_chunk(lane, steps);
      const int handed = paired_tail_chunk(partner, steps);
      sums.of[paired_tail_row(lane)][lane].push_back({own, own});
      sums.of[paired_tail_row(partner)][lane].push_back({handed, handed});
    }
  }
  return sums;
}

TEST(GemvUnitSchedule, WholeRowLanesAddTheRowGroupKernelsChunksInOrder) {
  for (int bits : {4, 8, 16}) {
    int widths = 0, paired = 0;
    for (int chunks = 1; chunks <= 32 * kGemvWholeMaxSteps; ++chunks) {
      if (gemv_whole_steps(chunks, bits) == 0) continue;
      const std::string what =
          std::to_string(bits) + "-bit whole-row, " + std::to_string(chunks) + " chunks";
      expect_row_group_order(replay_whole(chunks, bits, what), chunks, what);
      ++widths;
      paired += whole_paired(chunks) ? 1 : 0;
    }
    if (bits != 8) {
      EXPECT_EQ(widths, 32 + 32 + 32);  // rows of 1, 2 and 4 steps
      EXPECT_EQ(paired, 2);  // 48 and 112 chunks: 1,536 and 3,584 NF4 features, 384 and 896 FP16
    } else {
      EXPECT_EQ(widths, 4 * 31);  // rows of 2, 3, 4 and 7 steps, less each one's paired width
      EXPECT_EQ(paired, 0);
    }
  }
}

// The kernel reaches a lane's chunks and their NF4 blocks (64 codes, two chunks) from the lane's
// first chunk of a row: 32·j chunks and 16·j blocks on for every step but the last, the offsets
// of whole_step_offset / whole_block_offset for the last, paired_tail_* for the paired tail.
// Replayed for rows starting at every chunk of a segment up to a few rows in: each chunk a lane
// adds must be the one whole_chunk_index names with the block (f + c) / 2 of its flattened chunk
// f + c, and every load must stay inside the row.
TEST(GemvUnitSchedule, WholeRowOffsetsReachEachChunkAndItsBlock) {
  int checked = 0;
  for (int chunks = 1; chunks <= 32 * kGemvWholeMaxSteps; ++chunks) {
    // Every width either format has a kernel for (the 8-bit one has no blocks, but its loads are
    // the same offsets).
    const int steps = std::max(gemv_whole_steps(chunks, 4), gemv_whole_steps(chunks, 8));
    if (steps == 0) continue;
    const bool paired = whole_paired(chunks);
    for (int local = 0; local < 3; ++local) {
      const int first = local * chunks;  // the row's first chunk in its segment
      const int row_blocks_end = (first + chunks - 1) / 2;
      for (int lane = 0; lane < kLanes; ++lane) {
        const int c0 = whole_chunk_index(lane, 0, steps, chunks);
        const int b0 = (first + c0) >> 1;
        const std::string what = std::to_string(chunks) + " chunks, row " + std::to_string(local) +
                                 ", lane " + std::to_string(lane);
        const int both = paired ? steps - 1 : steps;
        for (int j = 0; j < both; ++j) {
          const bool last = !paired && j == steps - 1;
          const int c = c0 + (last ? whole_step_offset(lane, j, steps, chunks) : 32 * j);
          const int b = b0 + (last ? whole_block_offset(lane, j, steps, chunks) : 16 * j);
          EXPECT_EQ(c, whole_chunk_index(lane, j, steps, chunks)) << what << " step " << j;
          EXPECT_TRUE(c >= 0 && c < chunks) << what << " step " << j << " loads chunk " << c;
          EXPECT_TRUE(b >= first / 2 && b <= row_blocks_end)
              << what << " step " << j << " loads block " << b;
          if (whole_adds(lane, j, steps, chunks)) {
            EXPECT_EQ(b, (first + c) / 2) << what << " step " << j;
          }
          ++checked;
        }
        if (paired) {
          ASSERT_EQ(first % 2, 0) << what << ": a paired row starts at an odd chunk";
          const int c = lane + paired_tail_offset(lane, steps);
          const int b = ((first + lane) >> 1) + paired_tail_block_offset(lane, steps);
          EXPECT_EQ(c, paired_tail_chunk(lane, steps)) << what << " tail";
          EXPECT_EQ(b, (first + c) / 2) << what << " tail";
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// Replays gemv_pass_kernel's passes for one unit of rows of `chunks` chunks, passes of `steps`
// steps, through the offsets the kernel loads at (from each row's cursor, chunk lane + 32·p·S),
// for a row starting at chunk `first` of its segment: what each lane adds, in order, and every
// load inside the row with, where the lane adds, its chunk's own block.
LaneSums replay_pass(int chunks, int steps, int first, const std::string& what) {
  LaneSums sums;
  const int passes = pass_count(chunks, steps);
  EXPECT_EQ(passes * steps * 32 >= chunks && (passes - 1) * steps * 32 < chunks, true) << what;
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int p = 0; p < passes; ++p) {
      const bool last = p == passes - 1;
      const int cursor = lane + 32 * p * steps;
      const int cursor_block = (first + cursor) >> 1;
      for (int j = 0; j < steps; ++j) {
        const int loaded = cursor + (last ? pass_last_offset(lane, j, steps, chunks) : 32 * j);
        const int block =
            cursor_block + (last ? pass_last_block_offset(lane, j, steps, chunks) : 16 * j);
        const std::string at = what + ": lane " + std::to_string(lane) + " pass " +
                               std::to_string(p) + " step " + std::to_string(j);
        EXPECT_TRUE(loaded >= 0 && loaded < chunks) << at << " loads chunk " << loaded;
        EXPECT_TRUE(block >= first / 2 && block <= (first + chunks - 1) / 2)
            << at << " loads block " << block;
        const int c = last ? pass_chunk_index(lane, p, j, steps, chunks) : cursor + 32 * j;
        EXPECT_EQ(loaded, c) << at;  // the chunk it dots is the one it loaded
        const bool dotted = !last || 32 * (p * steps + j) < chunks;
        const bool adds = !last || pass_adds(lane, p, j, steps, chunks);
        if (!dotted) {
          EXPECT_FALSE(adds) << at;
          continue;
        }
        if (adds) {
          EXPECT_EQ(block, (first + c) / 2) << at;
          for (int r = 0; r < 2; ++r) sums.of[r][lane].push_back({c, c});
        }
      }
    }
  }
  return sums;
}

TEST(GemvUnitSchedule, RowPassLanesAddTheRowGroupKernelsChunksInOrder) {
  int widths = 0;
  for (int chunks = 33; chunks <= 700; ++chunks) {
    // The widths the variant is offered for in NF4 or in INT8-WO.
    if (gemv_whole_steps(chunks, 4) != 0 && gemv_whole_steps(chunks, 8) != 0) continue;
    for (int steps : {2, 4}) {
      for (int local = 0; local < 3; ++local) {
        const std::string what = "row-pass, " + std::to_string(chunks) + " chunks, passes of " +
                                 std::to_string(steps) + ", row " + std::to_string(local);
        expect_row_group_order(replay_pass(chunks, steps, local * chunks, what), chunks, what);
      }
    }
    ++widths;
  }
  // 3 steps (65-96) and every width past 4 steps (129-700); in INT8-WO also 48 and 112 (paired).
  EXPECT_EQ(widths, 700 - 128 + 32 + 2);
}

// Whole-row where a 4-bit or 16-bit row is 1, 2 or 4 steps (rows of 3 steps have none), and where
// an 8-bit row is 2, 3, 4 or 7 steps and its last step is not half full.
TEST(GemvUnitSchedule, WholeRowWidthsPerFormat) {
  for (int chunks = 1; chunks <= 1200; ++chunks) {
    const int steps = (chunks + 31) / 32;
    EXPECT_EQ(gemv_whole_steps(chunks, 4) > 0, steps == 1 || steps == 2 || steps == 4) << chunks;
    const bool eight = (steps == 2 || steps == 3 || steps == 4 || steps == 7) && chunks % 32 != 16;
    EXPECT_EQ(gemv_whole_steps(chunks, 8), eight ? steps : 0) << chunks;
    EXPECT_EQ(gemv_whole_steps(chunks, 16), gemv_whole_steps(chunks, 4)) << chunks;
    EXPECT_EQ(gemv_whole_steps(chunks, 32), 0) << chunks;
  }
}

// The units of a launch write each output (SwiGLU) or row once, and a unit's rows past the last
// one repeat the last (loaded, never written).
TEST(GemvUnitSchedule, UnitsWriteEveryOutputOnce) {
  for (bool swiglu : {false, true}) {
    for (int total = 1; total <= 67; ++total) {
      std::vector<int> written(total, 0);
      const int units = unit_count(swiglu, total);
      for (int unit = 0; unit < units; ++unit) {
        for (int j = 0; j < 2; ++j) {
          const UnitRow row = unit_row(swiglu, unit, j, total);
          ASSERT_TRUE(row.row >= 0 && row.row < total) << total << " unit " << unit;
          // With SwiGLU both rows are output `unit`'s (gate, up), written once by row 0.
          const bool writes = swiglu ? (j == 0 && row.valid) : row.valid;
          if (writes) ++written[row.row];
          if (!row.valid) {
            EXPECT_EQ(row.row, total - 1) << total << " unit " << unit;
          }
        }
      }
      for (int o = 0; o < total; ++o) {
        EXPECT_EQ(written[o], 1) << (swiglu ? "swiglu " : "") << total << " outputs, output " << o;
      }
    }
  }
}

}  // namespace
}  // namespace ec::engine::cuda::detail
