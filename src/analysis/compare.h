// Comparing two sessions (or report sets) configuration by configuration: the gap in percentage
// points, the run-to-run noise, the gap in noise units, Welch's t-test, the drift of absolute
// J/1k tok against the stability of the delta, and whether the version stacks allow pooling.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "analysis/aggregate.h"
#include "analysis/left_out.h"
#include "analysis/stats.h"
#include "analysis/table.h"
#include "analysis/version_stack.h"
#include "store/run_row.h"

namespace ec::analysis {

struct ConfigComparison {
  std::string configuration;  // GPU model precision[/format], as side A names it
  std::string matched_as;     // side B's name for it when spelled differently, else ""
  double params_b = 0.0;
  size_t runs_a = 0, runs_b = 0;   // runs per side, with or without an energy meter
  MetricSummary delta_a, delta_b;  // vs_fp16_energy_pct per side (measured runs)
  double gap_pp = 0.0;             // mean_b − mean_a, percentage points
  double noise_pp = 0.0;           // RMS of the two sides' SDs; NaN when neither has n ≥ 2
  double gap_in_noise = 0.0;       // |gap| / noise
  WelchResult welch{};
  double energy_drift_pct = 0.0;       // mean J/1k tok, B vs A
  double fp16_energy_drift_pct = 0.0;  // FP16 baseline, B vs A
  MetricSummary kl_a, kl_b;            // mean_kl_vs_fp16 per side, nats
  MetricSummary top1_a, top1_b;        // top1_agreement_vs_fp16 per side
};

struct Comparison {
  std::vector<ConfigComparison> configs;  // configurations measured on both sides
  std::vector<std::string> only_a, only_b;
  Comparability stacks;
  std::vector<LeftOut> left_out_a, left_out_b;  // runs that are not measurements, by why
};

// Measured runs count in every figure; runs without an energy meter (basis 'unavailable') pair
// too and count in KL and top-1 only, so two CPU sessions compare on quality. Configurations pair
// by GPU, model, size, precision and format, with names normalised: the GPU without
// "NVIDIA"/"GeForce" and case ("RTX 4090" = "NVIDIA GeForce RTX 4090"); the model without its
// organisation and case, a shorter name matching a longer one that extends it at a '-'
// ("TinyLlama-1.1B" = "TinyLlama/TinyLlama-1.1B-Chat-v1.0") when the sizes agree. `accept` names
// version-stack fields whose difference the user accepts.
Comparison compare_sets(std::span<const store::RunRow> a, std::span<const store::RunRow> b,
                        const std::set<std::string>& accept = {});

// The normalised names configurations pair by.
std::string normalised_gpu(std::string_view gpu);
std::string normalised_model(std::string_view model);
bool same_model(std::string_view a, std::string_view b);  // on normalised names

Table comparison_table(const Comparison& c);

}  // namespace ec::analysis
