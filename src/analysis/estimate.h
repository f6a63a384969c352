// "Should I quantize?": ΔE% for a size, architecture, precision, batch and context, from measured
// anchors first and the fitted curve otherwise, with a 95 % range, basis, confidence, notes and the
// FP16 baseline; and grading a measured report against the same-size anchors (first) or the curve.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/fit.h"
#include "analysis/table.h"
#include "store/run_row.h"

namespace ec::analysis {

// What the estimate is for: batch and context other than the measurement's (1, 2048) are modelled.
struct EstimateInput {
  double params_b = 0.0;
  std::string arch;
  std::string precision = "NF4";
  double batch = 1;
  double ctx = 2048;
};

// The FP16 decode energy at this size from the class's measured FP16 anchors: the anchor itself
// (measured), else log-log between the two nearest sizes (interpolated inside their range,
// estimated outside).
struct Fp16Baseline {
  double e_j1k = 0.0;
  std::string basis;
};
std::optional<Fp16Baseline> fp16_baseline(const CurveSet& curves, double params_b,
                                          const std::string& arch);

struct Estimate {
  EstimateInput input;
  std::string arch_used;   // the curve's class (differs when borrowed)
  double delta_pct = 0.0;  // to 0.1 point, as the original rounds it
  double ci_low = 0.0;     // 95 % range, to 0.1 point
  double ci_high = 0.0;
  std::string basis;           // measured / interpolated / estimated
  std::string confidence;      // high / medium / low
  std::string recommendation;  // quantize / do_not_quantize / depends
  std::string verdict;
  std::optional<double> crossover_b;
  std::vector<FitPoint> anchors;  // the curve's anchors
  bool modelled = false;          // batch/context moved the answer: a model, not a measurement
  double weight_gb = 0.0;
  double weight_gb_fp16 = 0.0;
  std::vector<std::string> notes;
  std::optional<Fp16Baseline> fp16;           // the FP16 baseline of the class measured
  std::optional<double> energy_j_per_1k_tok;  // FP16 baseline × (1 + ΔE/100)
};

// The original estimator's rules: measured anchors at this size first (their mean, the spread in
// the band), the curve otherwise (interpolated inside the measured sizes, estimated outside or
// when the class borrows another's shape); batch/context shrink savings only (modelled). Throws
// ec::Error naming what exists when there is no curve for the class and precision.
Estimate estimate(const CurveSet& curves, const EstimateInput& in);
// The original's answer body: input, delta_pct, ci, basis, confidence, recommendation, verdict,
// crossover_b, anchors, arch_used, modelled, weight_gb, weight_gb_fp16, notes; and ours: the
// FP16 baseline and the absolute energy it implies.
nlohmann::json estimate_json(const Estimate& e);
Table estimate_table(const Estimate& e);

// Precomputed estimates for the report site, so the pages show the C++ answers and hold no copy of
// the math: per "arch/precision" (borrowing classes included), estimate_table's rows at batch 1 and
// context 2048 over a log grid of sizes from 0.1 to 200 B plus every anchor and common size.
nlohmann::json estimate_tables(const CurveSet& curves);

// The classes the curves cover: label, precisions with measured range and crossover, borrowing.
nlohmann::json architectures_json(const CurveSet& curves);

struct RegressionCheck {
  std::string against;  // "anchors" (same size) or "curve"
  double expected_pct = 0.0;
  double band_pp = 0.0;  // k · resid_std
  double measured_pct = 0.0;
  double deviation_pp = 0.0;  // measured − expected
  std::string verdict;        // within / regression (more energy) / improvement (less energy)
};

// Refuses (ec::Error) a report whose basis is not `measured`, or without a delta or a curve.
RegressionCheck check_regression(const CurveSet& curves, const store::RunRow& report, double k);
Table regression_table(const RegressionCheck& r, const store::RunRow& report);

}  // namespace ec::analysis
