// The model name tuning entries are keyed by: a preset's own, a checkpoint's preset of the same
// architecture, else the checkpoint's.
#include <gtest/gtest.h>

#include "engine/tuning_model.h"
#include "model/presets.h"

namespace ec::engine {
namespace {

TEST(TuningModelName, PresetsKeepTheirNames) {
  for (const model::Preset& p : model::all_presets()) {
    EXPECT_EQ(tuning_model_name(p.config), p.config.name);
  }
}

TEST(TuningModelName, ACheckpointOfASeedArchitectureRunsThatPresetsEntries) {
  // TinyLlama's q|k|v and o have Qwen2.5-3B's shapes: by shapes alone a checkpoint of it would
  // run whichever of the two the table names first.
  model::ModelConfig tiny = model::preset_or_throw("tinyllama-1.1b");
  tiny.name = "/models/TinyLlama-1.1B-Chat-v1.0";
  tiny.rope_theta = 12345.0;  // not part of the architecture's kernels
  EXPECT_EQ(tuning_model_name(tiny), "tinyllama-1.1b");
  model::ModelConfig qwen = model::preset_or_throw("qwen2.5-3b");
  qwen.name = "/models/Qwen2.5-3B-Instruct";
  EXPECT_EQ(tuning_model_name(qwen), "qwen2.5-3b");
}

TEST(TuningModelName, AnyOtherArchitectureKeepsItsOwnName) {
  model::ModelConfig c = model::preset_or_throw("qwen2-7b");
  c.name = "/models/qwen2-7b-pruned";
  c.num_layers -= 4;
  EXPECT_EQ(tuning_model_name(c), "/models/qwen2-7b-pruned");
  c = model::preset_or_throw("tinyllama-1.1b");
  c.name = "/models/wide";
  c.intermediate_size += 64;
  EXPECT_EQ(tuning_model_name(c), "/models/wide");
}

}  // namespace
}  // namespace ec::engine
