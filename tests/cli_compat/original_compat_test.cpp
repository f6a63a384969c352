// The original EcoCompute command line, translated into `ecocompute run`: which lines are the
// original's, the options and defaults each becomes, the parameters file, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "cli/original_compat.h"
#include "core/error.h"
#include "support/paths.h"

namespace ec::cli {
namespace {

using Args = std::vector<std::string>;

std::string usage_error(const Args& args) {
  try {
    translate_original_command_line(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

bool has_note(const OriginalInvocation& inv, const std::string& text) {
  return std::any_of(inv.notes.begin(), inv.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

TEST(OriginalCompat, RecognisesTheOriginalsCommandLines) {
  EXPECT_TRUE(is_original_command_line({"energy_estimate"}));
  EXPECT_TRUE(is_original_command_line({"--model", "x", "--precision", "NF4"}));
  EXPECT_TRUE(is_original_command_line({"run", "--model", "x", "--output_dir", "o"}));
  EXPECT_TRUE(is_original_command_line({"run", "--tokens=8"}));
  EXPECT_FALSE(is_original_command_line({"run", "--model", "x", "--precision", "NF4"}));
  EXPECT_FALSE(is_original_command_line({"run", "--out", "o/energy.json"}));
  EXPECT_FALSE(is_original_command_line({"validate", "--output_dir"}));
  EXPECT_FALSE(is_original_command_line({"--help"}));
  EXPECT_FALSE(is_original_command_line({"--version"}));
  EXPECT_FALSE(is_original_command_line({}));
}

TEST(OriginalCompat, TheDockerRunLineBecomesOneRun) {
  const auto inv = translate_original_command_line(
      {"--model", "Qwen/Qwen2-0.5B", "--precision", "INT8", "--output_dir", "/out"});
  const Args want = {"run",
                     "--model",
                     "qwen2-0.5b",
                     "--precision",
                     "INT8",
                     "--new-tokens",
                     "256",
                     "--iterations",
                     "10",
                     "--warmup",
                     "2",
                     "--hz",
                     "10",
                     "--out",
                     "/out/energy.json"};
  EXPECT_EQ(inv.args, want);
  EXPECT_EQ(inv.output_dir, "/out");
  ASSERT_EQ(inv.notes.size(), 1u);
  EXPECT_TRUE(has_note(inv, "the preset 'qwen2-0.5b' is measured"));
  EXPECT_TRUE(has_note(inv, "synthetic weights"));
}

TEST(OriginalCompat, TheTaskAloneKeepsTheOriginalsDefaults) {
  const auto inv = translate_original_command_line({"energy_estimate"});
  const Args want = {"run",
                     "--model",
                     "tinyllama-1.1b",
                     "--precision",
                     "NF4",
                     "--new-tokens",
                     "256",
                     "--iterations",
                     "10",
                     "--warmup",
                     "2",
                     "--hz",
                     "10",
                     "--out",
                     "workspace/outputs/energy.json"};
  EXPECT_EQ(inv.args, want);
  EXPECT_EQ(inv.output_dir, "workspace/outputs");
}

TEST(OriginalCompat, EveryOptionMapsAndOwnOptionsPassThrough) {
  const auto inv = translate_original_command_line(
      {"run", "--model_name=tiny-llama", "--tokens", "8", "--iterations=3", "--warmup", "0",
       "--sample_rate_hz", "50", "--output_dir", "o", "--backend", "cpu", "--hz=20"});
  const Args want = {
      "run",          "--model", "tiny-llama", "--precision", "NF4",   "--new-tokens",  "8",
      "--iterations", "3",       "--warmup",   "0",           "--out", "o/energy.json", "--backend",
      "cpu",          "--hz=20"};
  EXPECT_EQ(inv.args, want);  // ecocompute's own --hz wins over the original's sample_rate_hz
  EXPECT_TRUE(inv.notes.empty());
}

TEST(OriginalCompat, AModelDirectoryIsACheckpoint) {
  test::ScratchDir dir;
  const std::string model = (dir / "Qwen2-0.5B").string();
  std::filesystem::create_directories(model);
  const auto inv = translate_original_command_line({"--model", model, "--output_dir", "o"});
  EXPECT_EQ(inv.args[2], model);
  EXPECT_TRUE(inv.notes.empty());
}

TEST(OriginalCompat, TheParametersFileUnderTheCommandLine) {
  test::ScratchDir dir;
  const auto file = dir / "energy_params.yaml";
  std::ofstream(file) << "model_name: \"Qwen/Qwen2-7B\"\nprecision: NF4\ntokens: 64\n"
                         "iterations: 5\nquality_probe: false\nquality_seq_len: 512\n"
                         "gpu_arch: hopper\nparams_b: 7.6\nbatch_size: 1\nshare: false\n";
  const auto inv =
      translate_original_command_line({"energy_estimate", "--parameters_file", file.string(),
                                       "--precision", "INT8", "--output_dir", "o"});
  const Args want = {"run",
                     "--model",
                     "qwen2-7b",
                     "--precision",
                     "INT8",
                     "--new-tokens",
                     "64",
                     "--iterations",
                     "5",
                     "--warmup",
                     "2",
                     "--hz",
                     "10",
                     "--out",
                     "o/energy.json",
                     "--quality-seq-len",
                     "512",
                     "--no-quality"};
  EXPECT_EQ(inv.args, want);
  EXPECT_TRUE(has_note(inv, "--gpu_arch ignored"));
  EXPECT_TRUE(has_note(inv, "--params_b ignored"));
  EXPECT_FALSE(has_note(inv, "--share"));
}

TEST(OriginalCompat, RefusesWhatItCannotHonour) {
  EXPECT_EQ(usage_error({"--batch_size", "8"}),
            "batch_size 8: ecocompute measures batch 1 only (the original's SingleStream "
            "scenario)");
  EXPECT_NE(usage_error({"--dry_run"}).find("use `ecocompute estimate`"), std::string::npos);
  EXPECT_EQ(usage_error({"--model"}), "--model needs a value");
  EXPECT_EQ(usage_error({"--share=yes"}), "--share takes no value");
  test::ScratchDir dir;
  const auto file = dir / "p.yaml";
  std::ofstream(file) << "precison: NF4\n";
  EXPECT_EQ(usage_error({"--parameters_file", file.string()}),
            "parameter 'precison' is not one of the original's run parameters");
  std::ofstream(file) << "quality_probe: maybe\n";
  EXPECT_EQ(usage_error({"--parameters_file", file.string()}),
            "quality_probe 'maybe': expected true or false");
}

TEST(OriginalCompat, NetworkOptionsAreNotedNotFollowed) {
  const auto inv = translate_original_command_line({"--prefetch", "--share", "--output_dir", "o"});
  EXPECT_TRUE(has_note(inv, "--prefetch ignored: ecocompute sends nothing over the network"));
  EXPECT_TRUE(has_note(inv, "--share ignored"));
}

}  // namespace
}  // namespace ec::cli
