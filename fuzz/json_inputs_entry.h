// Fuzz entry point for the small JSON files users hand over: the first byte picks curves.json,
// a sweep's manifest.json or model.safetensors.index.json; the rest is the file.
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/estimate.h"
#include "analysis/fit.h"
#include "core/error.h"
#include "core/json_depth.h"
#include "fuzz_support.h"
#include "model/checkpoint.h"
#include "sweep/manifest.h"

namespace ec::fuzz {

// A checkpoint directory whose index is the input: a valid 1-layer config beside it, no shards,
// so everything the loader does with the index before opening a shard is exercised.
inline void index_one_input(std::string_view text) {
  static const std::filesystem::path dir = [] {
    auto d =
        std::filesystem::temp_directory_path() / ("ec-fuzz-index-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::ofstream(d / "config.json")
        << R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","vocab_size":64,)"
           R"("hidden_size":16,"intermediate_size":32,"num_hidden_layers":1,)"
           R"("num_attention_heads":2,"num_key_value_heads":1,"max_position_embeddings":64,)"
           R"("rms_norm_eps":1e-5,"rope_theta":10000.0,"tie_word_embeddings":true})";
    return d;
  }();
  {
    std::ofstream out(dir / "model.safetensors.index.json", std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  try {
    (void)model::load_checkpoint(dir);
    throw PropertyViolation("a checkpoint without shards loaded");
  } catch (const ec::Error&) {
  }
}

// Accepted curves give finite estimates inside their band.
inline void curves_one_input(std::string_view text) {
  analysis::CurveSet set;
  try {
    set = analysis::curves_from_json(parse_json_nested_at_most(text, "curves.json"), "curves.json");
  } catch (const ec::Error&) {
    return;
  } catch (const nlohmann::json::exception&) {
    return;  // bad syntax: load_curves turns it into an ec::Error naming the file
  }
  for (const auto& c : set.curves) {
    expect(c.fit.params.n_star > 0 && c.fit.resid_std >= 0 && c.n_min > 0 && c.n_max >= c.n_min,
           "accepted a curve outside its ranges");
    try {
      analysis::EstimateInput in;
      in.params_b = 7.0;
      in.arch = c.arch;
      in.precision = c.precision;
      const auto e = analysis::estimate(set, in);
      expect(std::isfinite(e.delta_pct) && std::isfinite(e.ci_low) && std::isfinite(e.ci_high) &&
                 e.ci_low <= e.ci_high,
             "an accepted curve gave a non-finite estimate");
    } catch (const ec::Error&) {
    }
  }
}

// An accepted manifest has exactly the cells its spec expands to.
inline void manifest_one_input(std::string_view text) {
  try {
    const auto m = sweep::manifest_from_json(parse_json_nested_at_most(text, "manifest.json"),
                                             "manifest.json");
    expect(m.cells.size() == sweep::expand_cells(m.spec).size(),
           "an accepted manifest's cells differ from its spec");
  } catch (const ec::Error&) {
  } catch (const nlohmann::json::exception&) {
    // Bad syntax or a number beyond double: read_manifest turns both into an ec::Error naming
    // the file.
  }
}

inline void json_inputs_one_input(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 1, bytes.size() - 1);
  switch (bytes[0] % 3) {
    case 0:
      curves_one_input(text);
      break;
    case 1:
      manifest_one_input(text);
      break;
    default:
      index_one_input(text);
      break;
  }
}

}  // namespace ec::fuzz
