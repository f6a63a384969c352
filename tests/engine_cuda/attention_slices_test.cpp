// fused_attention_slices(): the fused decode attention's KV slices, sized for the job's decode
// length rather than the KV cache.
#include <gtest/gtest.h>

#include "core/error.h"
#include "engine/cuda/kernel_choice.cuh"

namespace ec::engine::cuda {
namespace {

TEST(FusedAttentionSlices, OnePerSixtyFourPositionsUpToTheMost) {
  EXPECT_EQ(fused_attention_slices(1, 8), 1);
  EXPECT_EQ(fused_attention_slices(64, 8), 1);
  EXPECT_EQ(fused_attention_slices(65, 8), 2);
  EXPECT_EQ(fused_attention_slices(272, 8), 5);  // bench_decode's job: 16-token prompt + 256
  EXPECT_EQ(fused_attention_slices(280, 8), 5);  // the cache bench_decode holds for that job
  EXPECT_EQ(fused_attention_slices(449, 8), 8);
  EXPECT_EQ(fused_attention_slices(4096, 8), 8);
  EXPECT_EQ(fused_attention_slices(4096, 1), 1);  // a GPU without clusters
}

TEST(FusedAttentionSlices, RefusesNothingToSize) {
  EXPECT_THROW(fused_attention_slices(0, 8), Error);
  EXPECT_THROW(fused_attention_slices(100, 0), Error);
}

}  // namespace
}  // namespace ec::engine::cuda
