// What a sweep measures (its axes and the flags every `run` gets) and the cells it expands into.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ec::sweep {

// Everything that decides what a cell measures. Two command lines with equal specs describe the
// same sweep; anything else (GPUs, cool-off, output format) may change between resumes.
struct SweepSpec {
  std::vector<std::string> models;
  std::vector<std::string> precisions;
  int repeats = 3;
  std::vector<int> new_tokens{256};
  std::string backend = "cpu";
  int iterations = 10;
  int warmup = 2;
  std::optional<uint64_t> seed;
  std::vector<std::string> run_args;  // extra flags given to every `run` (after `--`)

  friend bool operator==(const SweepSpec&, const SweepSpec&) = default;
};

nlohmann::json to_json(const SweepSpec& spec);
// Throws ec::Error naming `where` and the field.
SweepSpec spec_from_json(const nlohmann::json& j, const std::string& where);
// One line per field that differs ("models: [a] here, [a,b] in the manifest"); empty when equal.
std::vector<std::string> spec_differences(const SweepSpec& manifest, const SweepSpec& now);

// One replicate of one configuration: a fresh `ecocompute run` process.
struct CellConfig {
  std::string id;  // "tiny-llama_INT8_t256_r2": stable across resumes, safe as a file name
  std::string model;
  std::string precision;
  int new_tokens = 0;
  int replicate = 0;  // 1-based
};

// Replicates outermost: drift over the sweep (temperature, other load, time of day) then spreads
// over every configuration instead of landing on the last one's replicates.
std::vector<CellConfig> expand_cells(const SweepSpec& spec);

// The id's model part: the name with anything but [A-Za-z0-9._-] replaced; a path (a checkpoint
// directory) becomes its last component plus 8 hex digits of its sha256, so two checkpoints called
// "model" stay apart.
std::string model_slug(const std::string& model);

// The child's arguments after the program name: run --model … --out REPORT. `gpu` set means the
// child sees one device (CUDA_VISIBLE_DEVICES) and meters its index 0.
std::vector<std::string> run_arguments(const SweepSpec& spec, const CellConfig& cell,
                                       const std::filesystem::path& report, bool one_gpu_visible);

}  // namespace ec::sweep
