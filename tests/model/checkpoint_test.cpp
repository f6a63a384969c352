// Checkpoint directories: save/load round trips (single file and sharded) and every naming mistake.
#include "model/checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "model/model_test_util.h"
#include "model/presets.h"
#include "model/safetensors.h"
#include "model/synthetic.h"
#include "support/paths.h"

namespace ec::model {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::error_of;
using ::testing::AllOf;
using ::testing::HasSubstr;

void expect_same_weights(const ModelWeights& a, const ModelWeights& b) {
  std::vector<Tensor> ta = checkpoint_tensors(a);
  std::vector<Tensor> tb = checkpoint_tensors(b);
  ASSERT_EQ(ta.size(), tb.size());
  for (size_t i = 0; i < ta.size(); ++i) {
    EXPECT_EQ(ta[i].name, tb[i].name);
    EXPECT_EQ(ta[i].dtype, tb[i].dtype) << ta[i].name;
    EXPECT_EQ(ta[i].shape, tb[i].shape) << ta[i].name;
    EXPECT_TRUE(test::same_bytes(ta[i], tb[i])) << ta[i].name;
  }
  EXPECT_TRUE(test::same_bytes(a.lm_head, b.lm_head));
}

class CheckpointTest : public ::testing::Test {
 protected:
  fs::path dir(const std::string& name) const { return scratch_ / name; }

  // Saves a synthetic tiny model, then lets `edit` rewrite model.safetensors from its tensors.
  fs::path edited(const std::string& preset,
                  const std::function<void(std::vector<Tensor>&)>& edit) {
    auto w = make_synthetic_weights(preset_or_throw(preset), 7);
    fs::path d = dir(preset + "-edited");
    save_checkpoint(*w, d);
    std::vector<Tensor> tensors = checkpoint_tensors(*w);
    edit(tensors);
    write_safetensors(d / "model.safetensors", tensors, {{"format", "pt"}});
    return d;
  }

  ec::test::ScratchDir scratch_;
};

TEST_F(CheckpointTest, SaveThenLoadIsIdentical) {
  for (const char* preset : {"tiny-qwen2", "tiny-llama"}) {
    for (DType dtype : {DType::f16, DType::bf16, DType::f32}) {
      auto w = make_synthetic_weights(preset_or_throw(preset), 42, dtype);
      const fs::path d = dir(std::string(preset) + "-" + std::string(dtype_name(dtype)));
      save_checkpoint(*w, d);
      auto back = load_checkpoint(d);
      EXPECT_EQ(back->config.name, d.string());
      EXPECT_EQ(back->config.num_layers, w->config.num_layers);
      EXPECT_EQ(back->config.tie_word_embeddings, w->config.tie_word_embeddings);
      EXPECT_EQ(back->embed.dtype, dtype);
      expect_same_weights(*w, *back);
      // Zero-copy: tensors point into the mapped file, which their owner keeps alive.
      EXPECT_EQ(back->embed.owner, back->layers[0].wq.owner);
      if (w->config.tie_word_embeddings) {
        EXPECT_EQ(back->lm_head.data, back->embed.data);
      } else {
        EXPECT_NE(back->lm_head.data, back->embed.data);
      }
      EXPECT_EQ(back->layers[0].bq.has_value(), w->config.arch == Arch::qwen2);
      json config = json::parse(read_file(d / "config.json"));
      EXPECT_EQ(config["torch_dtype"], dtype == DType::f16    ? "float16"
                                       : dtype == DType::bf16 ? "bfloat16"
                                                              : "float32");
    }
  }
}

TEST_F(CheckpointTest, TiedCheckpointMayStillCarryLmHead) {
  const fs::path d = edited("tiny-qwen2", [](std::vector<Tensor>& t) {
    Tensor head = t.front();  // embed
    head.name = "lm_head.weight";
    t.push_back(head);
  });
  auto w = load_checkpoint(d);
  EXPECT_EQ(w->lm_head.data, w->embed.data);
}

TEST_F(CheckpointTest, ShardedCheckpointLoads) {
  auto w = make_synthetic_weights(preset_or_throw("tiny-llama"), 3);
  const fs::path d = dir("sharded");
  save_checkpoint(*w, d);
  fs::remove(d / "model.safetensors");
  std::vector<Tensor> all = checkpoint_tensors(*w);
  const size_t half = all.size() / 2;
  std::vector<Tensor> first(all.begin(), all.begin() + static_cast<ptrdiff_t>(half));
  std::vector<Tensor> second(all.begin() + static_cast<ptrdiff_t>(half), all.end());
  const std::string s1 = "model-00001-of-00002.safetensors";
  const std::string s2 = "model-00002-of-00002.safetensors";
  write_safetensors(d / s1, first, {{"format", "pt"}});
  write_safetensors(d / s2, second, {{"format", "pt"}});
  json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", json::object()}};
  for (const Tensor& t : first) index["weight_map"][t.name] = s1;
  for (const Tensor& t : second) index["weight_map"][t.name] = s2;
  write_file_atomic(d / "model.safetensors.index.json", index.dump(2));

  auto back = load_checkpoint(d);
  expect_same_weights(*w, *back);
  EXPECT_NE(back->embed.owner, back->lm_head.owner);  // two different shard mappings

  // The index pointing at a shard that is not there.
  index["weight_map"]["model.norm.weight"] = "model-00003-of-00002.safetensors";
  write_file_atomic(d / "model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("model.safetensors.index.json"), HasSubstr("'model.norm.weight'"),
                    HasSubstr("model-00003-of-00002.safetensors"), HasSubstr("does not exist")));

  // Listed in shard 1, but stored in shard 2.
  const std::string moved = second.front().name;
  index["weight_map"]["model.norm.weight"] = s2;
  index["weight_map"][moved] = s1;
  write_file_atomic(d / "model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("'" + moved + "'"), HasSubstr(s1), HasSubstr("does not contain")));

  // Present in a shard but not in the index.
  index["weight_map"].erase(moved);
  write_file_atomic(d / "model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("'" + moved + "'"), HasSubstr(s2), HasSubstr("not listed")));

  // A shard path escaping the directory.
  index["weight_map"][moved] = "../" + s2;
  write_file_atomic(d / "model.safetensors.index.json", index.dump());
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }), HasSubstr("not a file inside"));

  write_file_atomic(d / "model.safetensors.index.json", R"({"weight_map": [1]})");
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("model.safetensors.index.json"), HasSubstr("weight_map")));
}

TEST_F(CheckpointTest, MissingTensorIsNamed) {
  const fs::path d = edited("tiny-qwen2", [](std::vector<Tensor>& t) {
    std::erase_if(t,
                  [](const Tensor& x) { return x.name == "model.layers.1.self_attn.k_proj.bias"; });
  });
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr(d.string()), HasSubstr("missing"),
                    HasSubstr("model.layers.1.self_attn.k_proj.bias [32]")));
}

TEST_F(CheckpointTest, UntiedCheckpointWithoutLmHeadIsMissingIt) {
  const fs::path d = edited("tiny-llama", [](std::vector<Tensor>& t) { t.pop_back(); });
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }), HasSubstr("lm_head.weight [512, 64]"));
}

TEST_F(CheckpointTest, ExtraTensorIsNamedButRotaryBuffersAreIgnored) {
  const fs::path ok = edited("tiny-llama", [](std::vector<Tensor>& t) {
    t.push_back(
        test::random_tensor("model.layers.0.self_attn.rotary_emb.inv_freq", DType::f32, {8}, 1));
  });
  EXPECT_NO_THROW(load_checkpoint(ok));

  const fs::path d = edited("tiny-llama", [](std::vector<Tensor>& t) {
    t.push_back(test::random_tensor("model.layers.2.mlp.up_proj.weight", DType::f16, {160, 64}, 1));
  });
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("unexpected"), HasSubstr("model.layers.2.mlp.up_proj.weight"),
                    HasSubstr("model.safetensors")));
}

TEST_F(CheckpointTest, WrongShapeNamesTensorExpectedAndActual) {
  const fs::path d = edited("tiny-llama", [](std::vector<Tensor>& t) {
    for (Tensor& x : t) {
      if (x.name == "model.layers.1.mlp.down_proj.weight") x.shape = {160, 64};  // transposed
    }
  });
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("'model.layers.1.mlp.down_proj.weight'"), HasSubstr("[160, 64]"),
                    HasSubstr("expected [64, 160]")));
}

TEST_F(CheckpointTest, NonFloatWeightsAreRejected) {
  const fs::path d = edited("tiny-llama", [](std::vector<Tensor>& t) {
    t[1] = test::random_tensor(t[1].name, DType::i8, t[1].shape, 5);
  });
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("'model.layers.0.input_layernorm.weight'"), HasSubstr("I8")));
}

TEST_F(CheckpointTest, ConfigAndFilesMustAgree) {
  auto w = make_synthetic_weights(preset_or_throw("tiny-qwen2"), 1);
  const fs::path d = dir("layers");
  save_checkpoint(*w, d);
  json config = json::parse(read_file(d / "config.json"));
  config["num_hidden_layers"] = 4;  // the file has 3
  write_file_atomic(d / "config.json", config.dump());
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              HasSubstr("model.layers.3.input_layernorm.weight"));
  config["num_hidden_layers"] = 2;
  write_file_atomic(d / "config.json", config.dump());
  EXPECT_THAT(error_of([&] { load_checkpoint(d); }),
              AllOf(HasSubstr("unexpected"), HasSubstr("model.layers.2.")));
}

TEST_F(CheckpointTest, DirectoryProblems) {
  EXPECT_THAT(error_of([&] { load_checkpoint(dir("absent")); }),
              AllOf(HasSubstr("absent"), HasSubstr("not a checkpoint directory")));
  fs::create_directories(dir("empty"));
  write_file_atomic(dir("empty") / "config.json",
                    to_hf_config(preset_or_throw("tiny-llama")).dump());
  EXPECT_THAT(error_of([&] { load_checkpoint(dir("empty")); }),
              AllOf(HasSubstr("empty"), HasSubstr("model.safetensors")));
  fs::create_directories(dir("noconfig"));
  EXPECT_THAT(error_of([&] { load_checkpoint(dir("noconfig")); }), HasSubstr("config.json"));
}

TEST_F(CheckpointTest, SaveRejectsIncompleteWeights) {
  auto w = make_synthetic_weights(preset_or_throw("tiny-qwen2"), 1);
  ModelWeights broken = *w;
  broken.layers[1].bv.reset();
  EXPECT_THAT(error_of([&] { save_checkpoint(broken, dir("broken")); }),
              HasSubstr("model.layers.1.self_attn.v_proj.bias"));
  EXPECT_FALSE(fs::exists(dir("broken")));
}

}  // namespace
}  // namespace ec::model
