// Tuning tables: the JSON round trip, the lookup by key, the merge `tune` does, the hash a report
// records, and an error naming the file and field for every malformed part.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "engine/tuning_table.h"
#include "model/presets.h"

namespace ec::engine {
namespace {

using ::testing::HasSubstr;

TuningEntry entry(quant::Format f, std::string role, int rows, int cols, std::string variant,
                  std::string model = "qwen2-7b") {
  TuningEntry e;
  e.key = TuningKey{f, std::move(role), rows, cols};
  e.variant = std::move(variant);
  e.model = std::move(model);
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
  const TuningEntry* e = back.find(TuningKey{quant::Format::nf4, "gu", 18944, 3584}, "qwen2-7b");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->variant, "r2p-dbuf-u2");
  EXPECT_EQ(e->model, "qwen2-7b");
  EXPECT_DOUBLE_EQ(e->step_us, 2104.3);  // written to 0.1 µs
  // Each part of the key counts.
  EXPECT_EQ(back.find(TuningKey{quant::Format::nf4_dq, "gu", 18944, 3584}, "qwen2-7b"), nullptr);
  EXPECT_EQ(back.find(TuningKey{quant::Format::nf4, "down", 18944, 3584}, "qwen2-7b"), nullptr);
  EXPECT_EQ(back.find(TuningKey{quant::Format::nf4, "gu", 18944, 3585}, "qwen2-7b"), nullptr);
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

TEST(TuningTable, MergeReplacesTheSameShapeAndModelAndKeepsTheRest) {
  TuningTable t = h200();
  t.merge({entry(quant::Format::nf4, "qkv", 4608, 3584, "r1p-dbuf"),
           entry(quant::Format::nf4, "o", 3584, 3584, "r2p")});
  ASSERT_EQ(t.entries.size(), 4u);
  EXPECT_EQ(t.find(TuningKey{quant::Format::nf4, "qkv", 4608, 3584}, "qwen2-7b")->variant,
            "r1p-dbuf");
  EXPECT_EQ(t.find(TuningKey{quant::Format::fp16, "head", 152064, 3584}, "qwen2-7b")->variant,
            "r2p-bulk");
  // Another model's tune of the same shape is added beside it, not over it.
  t.merge({entry(quant::Format::nf4, "qkv", 4608, 3584, "r2p-u2", "other-7b")});
  ASSERT_EQ(t.entries.size(), 5u);
  EXPECT_EQ(t.find(TuningKey{quant::Format::nf4, "qkv", 4608, 3584}, "qwen2-7b")->variant,
            "r1p-dbuf");
  EXPECT_EQ(t.find(TuningKey{quant::Format::nf4, "qkv", 4608, 3584}, "other-7b")->variant,
            "r2p-u2");
  EXPECT_TRUE(std::is_sorted(t.entries.begin(), t.entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.key, a.model) < std::tie(b.key, b.model);
  }));
}

// Qwen2.5-3B's q|k|v and o have TinyLlama's shapes: each model runs its own entry, and a model
// the table has no entry of its own for runs the shape's first by model name.
TEST(TuningTable, EachModelFindsItsOwnEntryOfASharedShape) {
  TuningTable t = h200();
  const TuningKey qkv{quant::Format::int8_wo, "qkv", 2560, 2048};
  t.merge({entry(quant::Format::int8_wo, "qkv", 2560, 2048, "r2p", "qwen2.5-3b"),
           entry(quant::Format::int8_wo, "qkv", 2560, 2048, "r1p-bulk", "tinyllama-1.1b")});
  const TuningTable back = parse_tuning_table(tuning_table_json(t), "shared.json");
  ASSERT_NE(back.find(qkv, "qwen2.5-3b"), nullptr);
  EXPECT_EQ(back.find(qkv, "qwen2.5-3b")->variant, "r2p");
  EXPECT_EQ(back.find(qkv, "tinyllama-1.1b")->variant, "r1p-bulk");
  const TuningEntry* other = back.find(qkv, "/models/my-finetune");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->model, "qwen2.5-3b");  // the first by name
  EXPECT_EQ(back.find(TuningKey{quant::Format::int8_wo, "o", 2048, 2048}, "qwen2.5-3b"), nullptr);
  // An entry without a model sorts first: the one every other model falls back to.
  TuningEntry any = entry(quant::Format::int8_wo, "qkv", 2560, 2048, "r2p-u8", "");
  t.merge({any});
  EXPECT_EQ(t.find(qkv, "/models/my-finetune")->variant, "r2p-u8");
  EXPECT_EQ(t.find(qkv, "tinyllama-1.1b")->variant, "r1p-bulk");
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

// The five GEMV keys a model's decode step looks up (kernel_choice's tuning_key): q|k|v together,
// o, gate_up by its intermediate size, down, lm_head.
std::vector<TuningKey> decode_keys(const model::ModelConfig& c, quant::Format f) {
  const int attn = c.num_heads * c.head_dim;
  return {TuningKey{f, "qkv", (c.num_heads + 2 * c.num_kv_heads) * c.head_dim, c.hidden_size},
          TuningKey{f, "o", c.hidden_size, attn},
          TuningKey{f, "gu", c.intermediate_size, c.hidden_size},
          TuningKey{f, "down", c.hidden_size, c.intermediate_size},
          TuningKey{f, "head", c.vocab_size, c.hidden_size}};
}

// A model tuned for a format runs its own entry at every GEMV of that format: none of another
// model's, which a shared shape would otherwise give it (Qwen2.5-3B's q|k|v and o are TinyLlama's).
TEST(TuningTable, ShippedTablesGiveEveryTunedModelItsOwnEntries) {
  int checked = 0;
  for (const TuningTable& t : shipped_tuning_tables()) {
    for (const model::Preset& p : model::all_presets()) {
      for (const quant::Format f :
           {quant::Format::fp16, quant::Format::bf16, quant::Format::int8_llm,
            quant::Format::int8_wo, quant::Format::nf4, quant::Format::nf4_dq}) {
        const bool tuned = std::any_of(t.entries.begin(), t.entries.end(), [&](const auto& e) {
          return e.model == p.config.name && e.key.format == f;
        });
        if (!tuned) continue;
        for (const TuningKey& k : decode_keys(p.config, f)) {
          const TuningEntry* e = t.find(k, p.config.name);
          ASSERT_NE(e, nullptr) << t.name << ": " << p.config.name << " " << k.role;
          EXPECT_EQ(e->model, p.config.name)
              << t.name << ": " << p.config.name << " " << quant::format_name(f) << " " << k.role
              << " " << k.rows << "x" << k.cols << " runs " << e->model << "'s entry";
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
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
  // The same key and model twice.
  std::string twice = good;
  const size_t open = twice.find("[") + 1;
  const size_t close = twice.find("}", open) + 1;
  twice.insert(open, twice.substr(open, close - open) + ",");
  refused(twice, "two entries for fp16 head 152064x3584 of model 'qwen2-7b'");
  EXPECT_THROW(read_tuning_table("/nonexistent/ec-table.json"), Error);
}

}  // namespace
}  // namespace ec::engine
