// load_model: directories load checkpoints, names build presets, anything else is a usage error.
#include "model/loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "model/checkpoint.h"
#include "model/model_test_util.h"
#include "model/presets.h"
#include "support/paths.h"

namespace ec::model {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(LoaderTest, PresetNameGivesSeededSyntheticWeights) {
  auto a = load_model("tiny-llama", 5);
  EXPECT_EQ(a->config.name, "tiny-llama");
  EXPECT_EQ(a->embed.dtype, DType::f16);
  auto b = load_model("tiny-llama", 5, DType::bf16);
  EXPECT_EQ(b->embed.dtype, DType::bf16);
  // Same underlying values, rounded to two formats: they agree to bf16 precision.
  for (int64_t i : {0, 17, 1000, 4095}) {
    const float f16 = a->layers[0].wq.at(i), bf16 = b->layers[0].wq.at(i);
    EXPECT_NE(f16, 0.0f);
    EXPECT_NEAR(f16, bf16, std::abs(f16) / 128) << i;
  }
}

TEST(LoaderTest, DirectoryLoadsTheCheckpoint) {
  ec::test::ScratchDir scratch;
  auto w = load_model("tiny-qwen2", 9);
  save_checkpoint(*w, scratch / "ckpt");
  auto back = load_model((scratch / "ckpt").string(), 123);  // seed is irrelevant for files
  EXPECT_EQ(back->config.name, (scratch / "ckpt").string());
  EXPECT_TRUE(test::same_bytes(back->layers[2].w_down, w->layers[2].w_down));
}

TEST(LoaderTest, AnythingElseIsAUsageErrorListingPresets) {
  ec::test::ScratchDir scratch;
  write_file_atomic(scratch / "model.bin", "x");
  for (std::string arg : {std::string("qwen3-900b"), (scratch / "model.bin").string(),
                          (scratch / "missing-dir").string()}) {
    try {
      load_model(arg, 1);
      ADD_FAILURE() << "expected a UsageError for " << arg;
    } catch (const ec::UsageError& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr("'" + arg + "'"), HasSubstr("qwen2-7b"),
                                  HasSubstr("tiny-qwen2")));
    }
  }
}

}  // namespace
}  // namespace ec::model
