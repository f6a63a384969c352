// The original's parameters file: flat `key: value` lines, and a clear error for anything else.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cli/original_params.h"
#include "core/error.h"

namespace ec::cli {
namespace {

std::string usage_error(const std::string& text) {
  try {
    parse_original_params(text, "p.yaml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(OriginalParams, ReadsTheOriginalsLayout) {
  const auto p = parse_original_params(
      "# run parameters\n"
      "model_name: \"TinyLlama/TinyLlama-1.1B-Chat-v1.0\"\n"
      "params_b: 1.1              # billions\n"
      "precision: 'NF4'  # FP16 | NF4 | INT8\n"
      "\n"
      "batch_size: 1\n"
      "quality_probe: true        # after the sampler stops\n"
      "                           # a comment continuing the one above\n"
      "gpu_arch: auto\r\n",
      "p.yaml");
  const std::map<std::string, std::string> want = {
      {"model_name", "TinyLlama/TinyLlama-1.1B-Chat-v1.0"},
      {"params_b", "1.1"},
      {"precision", "NF4"},
      {"batch_size", "1"},
      {"quality_probe", "true"},
      {"gpu_arch", "auto"}};
  EXPECT_EQ(p, want);
}

TEST(OriginalParams, QuotesKeepHashesAndNullMeansUnset) {
  const auto p = parse_original_params("a: \"x # y\"\nb: null\nc: ~\nd:\ne: -3\n", "p.yaml");
  const std::map<std::string, std::string> want = {{"a", "x # y"}, {"e", "-3"}};
  EXPECT_EQ(p, want);
}

TEST(OriginalParams, RefusesWhatTheOriginalNeverWrites) {
  EXPECT_EQ(usage_error("a: 1\nb\n"), "p.yaml: line 2: expected `key: value`, got 'b'");
  EXPECT_EQ(usage_error("a:\n  b: 1\n"),
            "p.yaml: line 2: expected `key: value` at the start of the line (nested values are "
            "not part of the original's parameters)");
  EXPECT_EQ(usage_error("a: [1, 2]\n"),
            "p.yaml: line 1: expected a plain value (a number, a word or a quoted string), got "
            "'[1, 2]'");
  EXPECT_EQ(usage_error("a:\n- 1\n"), "p.yaml: line 2: expected `key: value`, got '- 1'");
  EXPECT_EQ(usage_error("a: 1\na: 2\n"), "p.yaml: line 2: 'a' is set twice");
  EXPECT_EQ(usage_error("a: \"x\n"),
            "p.yaml: line 1: the value opens a \" quote that is never closed");
  EXPECT_EQ(usage_error("a: \"x\" y\n"),
            "p.yaml: line 1: unexpected text after the quoted value: 'y'");
  EXPECT_EQ(usage_error("a b: 1\n"), "p.yaml: line 1: 'a b' is not a parameter name");
}

}  // namespace
}  // namespace ec::cli
