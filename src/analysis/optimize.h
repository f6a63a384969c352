// "Give me budgets, get the best config": an exhaustive search of precision × batch × context for
// one model size and GPU class under latency, VRAM and throughput budgets, with the original
// optimizer's objectives, grid and per-field basis (energy measured-anchored, VRAM computed,
// latency modelled by a roofline from the class's datasheet figures).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/fit.h"

namespace ec::analysis {

struct OptimizeRequest {
  double params_b = 0.0;
  std::string arch;
  std::string objective = "min_energy";  // min_energy, min_latency, max_throughput, min_vram
  std::vector<std::string> precisions{"FP16", "NF4", "INT8"};
  std::vector<double> batches{1, 2, 4, 8, 16, 32};
  std::vector<double> contexts{512, 1024, 2048, 4096, 8192};
  std::optional<double> max_latency_ms;  // per token
  std::optional<double> max_vram_gb;
  std::optional<double> min_throughput;  // tokens/s
  // How the FP16 baseline's J/1k tok is carried to unmeasured sizes: by default as `estimate`
  // carries it (log-log between the nearest measured sizes); `original_fp16_baseline` uses the
  // original optimizer's own rule (linear, and through zero below the smallest size).
  bool original_fp16_baseline = false;
};

extern const std::vector<std::string> kObjectives;

// The answer in the original's layout: input, basis, feasible_count, notes, recommended (or null
// and closest_infeasible), alternatives with vs_recommended, pareto_energy_latency. Throws
// ec::Error when the class has no curves or no candidate could be scored.
nlohmann::json optimize(const CurveSet& curves, const OptimizeRequest& request);

}  // namespace ec::analysis
