// Comparing two sessions (or report sets) configuration by configuration: the gap in percentage
// points, the run-to-run noise, the gap in noise units, Welch's t-test, the drift of absolute
// J/1k tok against the stability of the delta, and whether the version stacks allow pooling.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/aggregate.h"
#include "analysis/stats.h"
#include "analysis/table.h"
#include "store/run_row.h"

namespace ec::analysis {

// Sessions are comparable (and may be pooled) only when every version both record agrees.
struct Comparability {
  bool comparable = true;
  std::vector<std::string> differences;  // "torch: 2.4.1+cu121 vs 2.5.1+cu121"
  std::vector<std::string> unknown;      // versions recorded on one side only
  std::string verdict() const;           // one line for people
};
Comparability compare_version_stacks(std::span<const store::RunRow> a,
                                     std::span<const store::RunRow> b);

struct ConfigComparison {
  std::string configuration;  // GPU model precision[/format]
  double params_b = 0.0;
  MetricSummary delta_a, delta_b;  // vs_fp16_energy_pct per side
  double gap_pp = 0.0;             // mean_b − mean_a, percentage points
  double noise_pp = 0.0;           // RMS of the two sides' SDs; NaN when neither has n ≥ 2
  double gap_in_noise = 0.0;       // |gap| / noise
  WelchResult welch{};
  double energy_drift_pct = 0.0;       // mean J/1k tok, B vs A
  double fp16_energy_drift_pct = 0.0;  // FP16 baseline, B vs A
};

struct Comparison {
  std::vector<ConfigComparison> configs;  // configurations measured on both sides
  std::vector<std::string> only_a, only_b;
  Comparability stacks;
};

// Only measured runs count. Configurations pair by GPU, model, size, precision and format.
Comparison compare_sets(std::span<const store::RunRow> a, std::span<const store::RunRow> b);

Table comparison_table(const Comparison& c);

}  // namespace ec::analysis
