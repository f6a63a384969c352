// Estimates from fitted curves: ΔE% for a size, architecture and precision with a 95 % band and its
// basis, the absolute J/1k tok where an FP16 anchor exists, and grading a measured report against
// the same-size anchors (first) or the curve (k · resid_std band).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/fit.h"
#include "analysis/table.h"
#include "store/run_row.h"

namespace ec::analysis {

struct Estimate {
  std::string arch_used;  // the curve's class (differs when borrowed)
  std::string basis;      // interpolated / extrapolated / borrowed
  double delta_pct = 0.0;
  double band_low = 0.0;  // 95 % band
  double band_high = 0.0;
  std::optional<double> fp16_energy_j_per_1k_tok;  // FP16 anchor at this size
  std::optional<double> energy_j_per_1k_tok;       // anchor × (1 + ΔE/100)
  std::vector<std::string> notes;
};

// Throws ec::Error naming the classes and precisions that exist when there is no curve.
Estimate estimate(const CurveSet& curves, double params_b, const std::string& arch,
                  const std::string& precision);
Table estimate_table(const Estimate& e, double params_b, const std::string& precision);

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
