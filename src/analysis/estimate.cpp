// Curve estimates and regression grading. The band follows the original estimator: a residual floor
// of 2 points, widened with the log-distance outside the measured range and by 10 points for a
// borrowed shape; estimates never promise more savings than the weight-byte bound (−S_cap).
#include "analysis/estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace ec::analysis {
namespace {

constexpr double kZ95 = 1.959964;

std::string classes(const CurveSet& set) {
  std::string out;
  for (const auto& c : set.curves) out += (out.empty() ? "" : ", ") + c.arch + "/" + c.precision;
  return out;
}

store::Value r2(double v) {
  return std::isfinite(v) ? store::Value{std::round(v * 100) / 100} : store::Value{};
}

}  // namespace

Estimate estimate(const CurveSet& curves, double params_b, const std::string& arch,
                  const std::string& precision) {
  if (!(params_b > 0)) fail("--params-b must be a positive number of billions, got {}", params_b);
  Estimate e;
  const Curve* c = curves.find(arch, precision);
  bool borrowed = false;
  if (!c) {
    auto it = curves.borrow.find(arch);
    if (it != curves.borrow.end()) c = curves.find(it->second, precision);
    if (!c) fail("no curve for {} {} (curves: {})", arch, precision, classes(curves));
    borrowed = true;
    e.notes.push_back(fmt::format("no measurements for '{}': shape borrowed from '{}', an estimate",
                                  arch, c->arch));
  }
  e.arch_used = c->arch;
  e.delta_pct = std::max(curve_value(c->fit.params, params_b), -s_cap(precision));
  double distance = 0.0;
  if (params_b < c->n_min) distance = std::log(c->n_min / params_b);
  if (params_b > c->n_max) distance = std::log(params_b / c->n_max);
  e.basis = borrowed ? "borrowed" : (distance > 0 ? "extrapolated" : "interpolated");
  if (distance > 0) {
    e.notes.push_back(
        fmt::format("outside the measured range {:g}–{:g} B: extrapolated", c->n_min, c->n_max));
  }
  const double base = std::max(c->fit.resid_std, 2.0);
  const double extrap = (base + 4.0) * distance * 1.2;
  const double borrow_term = borrowed ? 10.0 : 0.0;
  const double sigma = std::sqrt(base * base + extrap * extrap + borrow_term * borrow_term);
  e.band_low = std::max(e.delta_pct - kZ95 * sigma, -s_cap(precision));
  e.band_high = e.delta_pct + kZ95 * sigma;
  auto arch_anchors = curves.fp16_anchors.find(c->arch);
  if (arch_anchors != curves.fp16_anchors.end()) {
    for (const auto& [n, energy] : arch_anchors->second) {
      if (std::fabs(n - params_b) < 1e-6) {
        e.fp16_energy_j_per_1k_tok = energy;
        e.energy_j_per_1k_tok = energy * (1.0 + e.delta_pct / 100.0);
      }
    }
  }
  if (!e.energy_j_per_1k_tok)
    e.notes.push_back("no FP16 anchor at this size: no absolute J/1k tok");
  return e;
}

Table estimate_table(const Estimate& e, double params_b, const std::string& precision) {
  Table t;
  t.name = "estimate";
  t.columns = {"params_b",
               "arch",
               "precision",
               "delta_pct",
               "band_low",
               "band_high",
               "basis",
               "fp16_energy_j_per_1k_tok",
               "energy_j_per_1k_tok",
               "notes"};
  std::string notes;
  for (const auto& n : e.notes) notes += (notes.empty() ? "" : "; ") + n;
  t.rows.push_back({params_b, e.arch_used, precision, r2(e.delta_pct), r2(e.band_low),
                    r2(e.band_high), e.basis,
                    e.fp16_energy_j_per_1k_tok ? r2(*e.fp16_energy_j_per_1k_tok) : store::Value{},
                    e.energy_j_per_1k_tok ? r2(*e.energy_j_per_1k_tok) : store::Value{}, notes});
  return t;
}

RegressionCheck check_regression(const CurveSet& curves, const store::RunRow& report, double k) {
  if (!report.is_measured()) {
    fail("{}: not a measurement ({}): only a measurement can be graded", report.source_path,
         report.why_not_measured());
  }
  if (!report.vs_fp16_energy_pct || !report.params_b) {
    fail("{}: the report has no vs_fp16_energy_pct or params_b to grade", report.source_path);
  }
  const Curve* c = curves.find(report.gpu_arch, report.precision);
  if (!c) {
    fail("{}: no curve for {} {} (curves: {})", report.source_path, report.gpu_arch,
         report.precision, classes(curves));
  }
  RegressionCheck r;
  r.measured_pct = *report.vs_fp16_energy_pct;
  r.band_pp = k * c->fit.resid_std;
  double sum = 0.0;
  int count = 0;
  for (const auto& a : c->anchors) {
    if (std::fabs(a.params_b - *report.params_b) < 1e-6) {
      sum += a.delta_pct;
      ++count;
    }
  }
  if (count > 0) {
    r.against = "anchors";
    r.expected_pct = sum / count;
  } else {
    r.against = "curve";
    r.expected_pct = curve_value(c->fit.params, *report.params_b);
  }
  r.deviation_pp = r.measured_pct - r.expected_pct;
  if (r.deviation_pp > r.band_pp) {
    r.verdict = "regression";
  } else if (r.deviation_pp < -r.band_pp) {
    r.verdict = "improvement";
  } else {
    r.verdict = "within";
  }
  return r;
}

Table regression_table(const RegressionCheck& r, const store::RunRow& report) {
  Table t;
  t.name = "regression";
  t.columns = {"run_id",       "gpu_arch", "params_b", "precision",    "measured_pct",
               "expected_pct", "against",  "band_pp",  "deviation_pp", "verdict"};
  t.rows.push_back({report.run_id, report.gpu_arch, report.params_b.value_or(NAN), report.precision,
                    r2(r.measured_pct), r2(r.expected_pct), r.against, r2(r.band_pp),
                    r2(r.deviation_pp), r.verdict});
  return t;
}

}  // namespace ec::analysis
