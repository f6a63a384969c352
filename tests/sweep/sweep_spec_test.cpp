// Cells of a spec: order, ids, the child's command line, and what counts as "the same sweep".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "sweep/sweep_spec.h"

namespace ec::sweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

SweepSpec two_by_two() {
  SweepSpec s;
  s.models = {"tiny-llama", "tiny-qwen2"};
  s.precisions = {"FP16", "INT8"};
  s.repeats = 2;
  s.new_tokens = {8};
  return s;
}

TEST(ExpandCells, ReplicatesOutermostWithStableIds) {
  const auto cells = expand_cells(two_by_two());
  ASSERT_EQ(cells.size(), 8u);
  std::vector<std::string> ids;
  for (const auto& c : cells) ids.push_back(c.id);
  EXPECT_THAT(ids,
              ElementsAre("tiny-llama_FP16_t8_r1", "tiny-llama_INT8_t8_r1", "tiny-qwen2_FP16_t8_r1",
                          "tiny-qwen2_INT8_t8_r1", "tiny-llama_FP16_t8_r2", "tiny-llama_INT8_t8_r2",
                          "tiny-qwen2_FP16_t8_r2", "tiny-qwen2_INT8_t8_r2"));
  EXPECT_EQ(cells[5].model, "tiny-llama");
  EXPECT_EQ(cells[5].precision, "INT8");
  EXPECT_EQ(cells[5].replicate, 2);
}

TEST(ModelSlug, PathsKeepTheirNameAndGetAHash) {
  EXPECT_EQ(model_slug("tiny-llama"), "tiny-llama");
  const std::string a = model_slug("/data/a/model"), b = model_slug("/data/b/model");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind("model-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("model-").size() + 8);
  EXPECT_EQ(model_slug("weird name?"), "weird-name-");
  EXPECT_EQ(model_slug(".hidden"), "m.hidden");
}

TEST(ExpandCells, TwoModelsWithOneIdAreRefused) {
  SweepSpec s = two_by_two();
  s.models = {"a b", "a?b"};  // both become "a-b"
  EXPECT_THROW(expand_cells(s), UsageError);
}

TEST(RunArguments, EverySettingReachesTheChild) {
  SweepSpec s = two_by_two();
  s.iterations = 3;
  s.warmup = 1;
  s.seed = 42;
  s.run_args = {"--no-quality", "--threads", "2"};
  const auto cell = expand_cells(s)[3];
  const auto args = run_arguments(s, cell, "/x/cells/c/energy.json", true);
  EXPECT_THAT(args, ElementsAre("run", "--model", "tiny-qwen2", "--precision", "INT8", "--backend",
                                "cpu", "--new-tokens", "8", "--iterations", "3", "--warmup", "1",
                                "--seed", "42", "--gpu", "0", "--no-quality", "--threads", "2",
                                "--out", "/x/cells/c/energy.json"));
  const auto no_gpu = run_arguments(s, cell, "r.json", false);
  EXPECT_EQ(std::find(no_gpu.begin(), no_gpu.end(), "--gpu"), no_gpu.end());
}

TEST(SpecJson, RoundTripsAndNamesDifferences) {
  SweepSpec s = two_by_two();
  s.seed = 7;
  s.run_args = {"--no-quality"};
  EXPECT_EQ(spec_from_json(to_json(s), "m.json"), s);
  SweepSpec t = s;
  t.repeats = 3;
  t.models.push_back("default");
  const auto diff = spec_differences(s, t);
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_THAT(diff[0], HasSubstr("models"));
  EXPECT_THAT(diff[1], HasSubstr("repeats: 3 on this command line, 2 in the manifest"));
  EXPECT_TRUE(spec_differences(s, s).empty());
}

TEST(SpecJson, MissingFieldNamesTheFile) {
  auto j = to_json(two_by_two());
  j.erase("backend");
  try {
    spec_from_json(j, "dir/manifest.json");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dir/manifest.json"));
    EXPECT_THAT(e.what(), HasSubstr("backend"));
  }
}

}  // namespace
}  // namespace ec::sweep
