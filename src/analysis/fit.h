// The size curve ΔE%(N) = A − S·x/(1+x), x = N/N*, fitted per (arch, precision) by bounded
// non-linear least squares (GSL), with the original's rules: bounds A ∈ [−50, max ΔE + 50],
// S ∈ [0, S_cap + max(0, max ΔE)], N* ∈ [0.1, 200]; fewer than 3 points fix N* at the median N;
// resid_std is the RMS residual; leave-one-out MAE for 4+ points; hopper borrows ampere's shape.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/csv_table.h"
#include "store/run_row.h"

namespace ec::analysis {

struct FitPoint {
  std::string arch;
  std::string precision;
  std::string gpu;
  std::string model;
  double params_b = 0.0;
  double delta_pct = 0.0;
  double fp16_energy_j_per_1k_tok = 0.0;  // 0 when unknown
  int64_t n = 1;                          // trials behind the point; 0 when a file did not say
  std::string source;                     // the session, or the measured.csv file and line
};

struct CurveParams {
  double a = 0.0;
  double s = 0.0;
  double n_star = 1.0;
};
double curve_value(const CurveParams& p, double params_b);

struct CurveBounds {
  double a_lo, a_hi, s_lo, s_hi, n_lo, n_hi;
};
double s_cap(const std::string& precision);  // NF4 75, INT8 50, otherwise 75 points
CurveBounds curve_bounds(std::span<const double> deltas, const std::string& precision);

// One bounded least-squares fit by the rules above (multi-start Levenberg–Marquardt on parameters
// mapped into their box). `n_star_fixed` is set when there were fewer than 3 points.
struct CurveFit {
  CurveParams params;
  bool n_star_fixed = false;
  double resid_std = 0.0;  // sqrt(mean(residual²))
};
CurveFit fit_curve(std::span<const double> params_b, std::span<const double> deltas,
                   const std::string& precision);

struct Curve {
  std::string arch;
  std::string precision;
  CurveFit fit;
  double n_min = 0.0;
  double n_max = 0.0;
  std::optional<double> crossover_b;     // N where ΔE = 0, when S > A > 0
  std::optional<double> loo_mae;         // 4+ points
  std::optional<double> loo_coverage95;  // share of left-out points inside ±1.96·resid_std
  std::vector<FitPoint> anchors;
};

// Classes without data borrow another class's shape, flagged as estimated.
inline const std::map<std::string, std::string>& default_borrow() {
  static const std::map<std::string, std::string> borrow{{"hopper", "ampere"}};
  return borrow;
}

// A class fit_curves left out: too few points for the curve's parameters.
struct RefusedCurve {
  std::string arch;
  std::string precision;
  std::vector<FitPoint> points;
  std::string reason;
};

// The curve has three parameters (A, S, N*): with fewer points it is not identified and its
// resid_std (0 with as many points as free parameters) would promise an accuracy nobody measured.
inline constexpr size_t kCurveParameters = 3;

// A class's datasheet figures, used only by the optimizer's modelled roofline latency.
struct GpuSpec {
  std::string gpu;
  double mem_bw_gbps = 0.0;
  double fp16_tflops = 0.0;
  std::string source;
};

struct CurveSet {
  std::vector<Curve> curves;  // sorted by (arch, precision)
  std::vector<RefusedCurve> refused;
  std::map<std::string, std::string> borrow;
  // FP16 J/1k tok per arch and size: the mean over every point at that size.
  std::map<std::string, std::map<double, double>> fp16_anchors;
  // The measured size range of each class's FP16 anchors (n_min, n_max).
  std::map<std::string, std::pair<double, double>> fp16_ranges;
  std::map<std::string, double> s_caps;            // per precision; s_cap() where absent
  std::map<std::string, std::string> arch_labels;  // "ada" → "Ada (RTX 4090/4090D)"
  std::map<std::string, GpuSpec> hardware;         // per class; absent → no latency model

  const Curve* find(const std::string& arch, const std::string& precision) const;
  double s_cap_for(const std::string& precision) const;
  std::string label(const std::string& arch) const;  // the class's label, or its name
};

// Classes with fewer than `min_points` points are not fitted but listed in `refused`; pass 1 to
// fit them anyway (fewer than 3 points then fix N* at the median size).
CurveSet fit_curves(std::span<const FitPoint> points,
                    const std::map<std::string, std::string>& borrow = default_borrow(),
                    size_t min_points = kCurveParameters);

// measured.csv (published layout: gpu, arch, model, params_b, precision, energy_fp16_j1k,
// energy_quant_j1k, n_trials, ...): one point per row. Throws for missing columns; bad rows go to
// `problems`.
std::vector<FitPoint> read_measured_csv(const CsvTable& table, std::vector<std::string>& problems);

// Points from runs: one per configuration and session (the mean delta of its measured replicates).
// Sessions whose version stacks differ are not pooled into one (arch, precision) curve: that throws
// ec::Error saying which versions differ, unless `force`, which turns it into a warning.
// `accept` names version-stack fields whose difference does not stop pooling (see compare).
std::vector<FitPoint> fit_points_from_runs(std::span<const store::RunRow> rows, bool force,
                                           std::vector<std::string>& warnings,
                                           const std::set<std::string>& accept = {});

// curves.json in the original's layout (curves → arch → precision → A, S, Nstar, resid_std, n_min,
// n_max, crossover_b, anchors, loo_mae; s_cap, arch_label, borrow, fp16_energy, hardware), plus our
// fields (n_points, nstar_fixed, loo_coverage95, each anchor's source, borrowed, refused). The
// original's estimator reads it
// unchanged.
nlohmann::json curves_to_json(const CurveSet& set);
CurveSet curves_from_json(const nlohmann::json& j, const std::filesystem::path& path);

}  // namespace ec::analysis
