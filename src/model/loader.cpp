// load_model: a checkpoint directory if one exists at that path, else a preset with seeded weights.
#include "model/loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "core/error.h"
#include "model/checkpoint.h"
#include "model/config.h"
#include "model/presets.h"
#include "model/synthetic.h"

namespace ec::model {

namespace {

[[noreturn]] void neither(std::string_view preset_or_dir, const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    fail_usage(
        "model '{}' is a file; expected a checkpoint directory (config.json + "
        "model.safetensors) or a preset name ({})",
        preset_or_dir, fmt::join(preset_names(), ", "));
  }
  fail_usage("model '{}' is neither a checkpoint directory nor a preset; presets: {}",
             preset_or_dir, fmt::join(preset_names(), ", "));
}

}  // namespace

std::shared_ptr<const ModelWeights> load_model(std::string_view preset_or_dir, uint64_t seed,
                                               DType synthetic_dtype) {
  const std::filesystem::path path{std::string(preset_or_dir)};
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return load_checkpoint(path);
  if (const ModelConfig* preset = find_preset(preset_or_dir)) {
    return make_synthetic_weights(*preset, seed, synthetic_dtype);
  }
  neither(preset_or_dir, path);
}

ModelConfig check_model(std::string_view preset_or_dir) {
  const std::filesystem::path path{std::string(preset_or_dir)};
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    ModelConfig config = parse_hf_config(path / "config.json");
    if (!std::filesystem::exists(path / "model.safetensors", ec) &&
        !std::filesystem::exists(path / "model.safetensors.index.json", ec)) {
      fail(
          "{}: no model.safetensors or model.safetensors.index.json (pytorch .bin checkpoints "
          "are not supported; convert to safetensors)",
          path.string());
    }
    return config;
  }
  if (const ModelConfig* preset = find_preset(preset_or_dir)) return *preset;
  neither(preset_or_dir, path);
}

}  // namespace ec::model
