// Tuning tables: the JSON round trip, the lookup by key, the merge `tune` does, the hash a report
// records, and an error naming the file and field for every malformed part.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/file_io.h"
#include "engine/tuning_table.h"

namespace ec::engine {
namespace {

using ::testing::HasSubstr;

TuningEntry entry(quant::Format f, std::string role, int rows, int cols, std::string variant) {
  TuningEntry e;
  e.key = TuningKey{f, std::move(role), rows, cols};
  e.variant = std::move(variant);
  e.model = "qwen2-7b";
  e.step_us = 2104.25;
  return e;
}

TuningTable h200() {
  TuningTable t;
  t.gpu_name = "NVIDIA H200";
  t.cc_major = 9;
  t.cc_minor = 0;
  t.tool = "ecocompute test";
  t.merge({entry(quant::Format::nf4, "qkv", 4608, 3584, "r2p-l2pf-u2"),
           entry(quant::Format::fp16, "head", 152064, 3584, "r2p-bulk"),
           entry(quant::Format::nf4, "gu", 18944, 3584, "r2p-dbuf-u2")});
  return t;
}

TEST(TuningTable, RoundTripsThroughJsonAndFindsByKey) {
  const TuningTable t = h200();
  const std::string text = tuning_table_json(t);
  const TuningTable back = parse_tuning_table(text, "h200.json");
  EXPECT_EQ(back.gpu_name, "NVIDIA H200");
  EXPECT_EQ(back.cc_major, 9);
  EXPECT_EQ(back.cc_minor, 0);
  EXPECT_EQ(back.tool, "ecocompute test");
  ASSERT_EQ(back.entries.size(), 3u);
  EXPECT_EQ(tuning_table_json(back), text);  // canonical: entries in key order
  const TuningEntry* e = back.find(TuningKey{quant::Format::nf4, "gu", 18944, 3584});
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->variant, "r2p-dbuf-u2");
  EXPECT_EQ(e->model, "qwen2-7b");
  EXPECT_DOUBLE_EQ(e->step_us, 2104.3);  // written to 0.1 µs
  // Each part of the key counts.
  EXPECT_EQ(back.find(TuningKey{quant::Format::nf4_dq, "gu", 18944, 3584}), nullptr);
  EXPECT_EQ(back.find(TuningKey{quant::Format::nf4, "down", 18944, 3584}), nullptr);
  EXPECT_EQ(back.find(TuningKey{quant::Format::nf4, "gu", 18944, 3585}), nullptr);
  EXPECT_EQ(back.name, "h200.json");
  EXPECT_EQ(back.sha256.size(), 64u);
  EXPECT_TRUE(back.for_gpu("NVIDIA H200", 9, 0));
  EXPECT_FALSE(back.for_gpu("NVIDIA H100 80GB HBM3", 9, 0));
  EXPECT_FALSE(back.for_gpu("NVIDIA H200", 8, 9));
}

TEST(TuningTable, TheHashIsOfTheBytes) {
  const std::string text = tuning_table_json(h200());
  const TuningTable a = parse_tuning_table(text, "a");
  const TuningTable b = parse_tuning_table(text, "b");
  EXPECT_EQ(a.sha256, b.sha256);
  std::string changed = text;
  changed.replace(changed.find("r2p-bulk"), 8, "r1p-bulk");
  EXPECT_NE(parse_tuning_table(changed, "c").sha256, a.sha256);
}

TEST(TuningTable, MergeReplacesTheSameShapeAndKeepsTheRest) {
  TuningTable t = h200();
  t.merge({entry(quant::Format::nf4, "qkv", 4608, 3584, "r1p-dbuf"),
           entry(quant::Format::nf4, "o", 3584, 3584, "r2p")});
  ASSERT_EQ(t.entries.size(), 4u);
  EXPECT_EQ(t.find(TuningKey{quant::Format::nf4, "qkv", 4608, 3584})->variant, "r1p-dbuf");
  EXPECT_EQ(t.find(TuningKey{quant::Format::fp16, "head", 152064, 3584})->variant, "r2p-bulk");
  EXPECT_TRUE(std::is_sorted(t.entries.begin(), t.entries.end(),
                             [](const auto& a, const auto& b) { return a.key < b.key; }));
}

TEST(TuningTable, WritesAtomicallyAndReadsBack) {
  const auto dir = std::filesystem::temp_directory_path() / "ec_tuning_table_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "t.json";
  const TuningTable written = write_tuning_table(path, h200());
  EXPECT_EQ(written.name, path.string());
  const TuningTable read = read_tuning_table(path);
  EXPECT_EQ(read.sha256, written.sha256);
  EXPECT_EQ(read.entries.size(), 3u);
  std::filesystem::remove_all(dir);
}

TEST(TuningTable, FileNameFromTheGpu) {
  EXPECT_EQ(tuning_table_file_name("NVIDIA H200", 9, 0), "nvidia-h200-cc9.0.json");
  EXPECT_EQ(tuning_table_file_name("NVIDIA GeForce RTX 4090", 8, 9),
            "nvidia-geforce-rtx-4090-cc8.9.json");
  EXPECT_EQ(tuning_table_file_name("", 8, 0), "gpu-cc8.0.json");
}

TEST(TuningTable, ShippedTablesParseAndNameTheirFiles) {
  for (const TuningTable& t : shipped_tuning_tables()) {
    EXPECT_THAT(t.name, ::testing::StartsWith("shipped:"));
    EXPECT_EQ(t.name, "shipped:" + tuning_table_file_name(t.gpu_name, t.cc_major, t.cc_minor));
    EXPECT_FALSE(t.entries.empty()) << t.name;
    EXPECT_EQ(find_table_for_gpu(shipped_tuning_tables(), t.gpu_name, t.cc_major, t.cc_minor), &t);
  }
  EXPECT_EQ(find_table_for_gpu(shipped_tuning_tables(), "no such GPU", 1, 0), nullptr);
}

// Every malformed part is refused with the file, the field and what was expected.
TEST(TuningTable, RefusesMalformedTablesNamingTheField) {
  const std::string good = tuning_table_json(h200());
  const auto refused = [](const std::string& text, const std::string& what) {
    try {
      (void)parse_tuning_table(text, "t.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("t.json")) << e.what();
      EXPECT_THAT(e.what(), HasSubstr(what)) << e.what();
    }
  };
  const auto edit = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  refused("{", "not JSON");
  refused("[]", "JSON object");
  refused(edit("\"ecocompute-tuning-table\"", "\"other\""), "'format'");
  refused(edit("\"version\": 1", "\"version\": 2"), "'version'");
  refused(edit("\"compute_capability\": \"9.0\"", "\"compute_capability\": \"9\""),
          "compute_capability");
  refused(edit("\"compute_capability\": \"9.0\"", "\"compute_capability\": \"9.0x\""),
          "compute_capability");
  refused(edit("\"name\": \"NVIDIA H200\"", "\"name\": \"\""), "gpu: 'name' is empty");
  refused(edit("\"weight_format\": \"fp16\"", "\"weight_format\": \"int4\""),
          "entries[0]: weight_format 'int4'");
  refused(edit("\"role\": \"head\"", "\"role\": \"lm_head\""), "role 'lm_head'");
  refused(edit("\"rows\": 152064", "\"rows\": 0"), "'rows' must be a positive whole number");
  refused(edit("\"cols\": 3584", "\"cols\": \"3584\""), "'cols'");
  refused(edit("\"variant\": \"r2p-bulk\"", "\"variant\": \"r2p-bulk+pdl\""), "without '+pdl'");
  refused(edit("\"variant\": \"r2p-bulk\"", "\"variant\": 3"), "'variant' must be a string");
  refused(edit("\"step_us\": 2104.3", "\"step_us\": -1"), "'step_us'");
  refused(edit("\"variant\": \"r2p-bulk\"", "\"variants\": \"r2p-bulk\""), "'variant' is missing");
  // The same key twice.
  std::string twice = good;
  const size_t open = twice.find("[") + 1;
  const size_t close = twice.find("}", open) + 1;
  twice.insert(open, twice.substr(open, close - open) + ",");
  refused(twice, "two entries for fp16 head 152064x3584");
  EXPECT_THROW(read_tuning_table("/nonexistent/ec-table.json"), Error);
}

}  // namespace
}  // namespace ec::engine
