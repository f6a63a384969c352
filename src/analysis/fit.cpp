// Bounded curve fitting with GSL's trust-region least squares. Bounds are enforced by fitting an
// unconstrained u with p = lo + (hi − lo)·(1 + sin u)/2 (N* on a log scale), which reaches a bound
// exactly, as the original's bounded fit can; several starts guard against local minima.
#include "analysis/fit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/gpu_classes.h"
#include "core/error.h"

namespace ec::analysis {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double to_box(double u, double lo, double hi) {
  return lo + (hi - lo) * 0.5 * (1.0 + std::sin(u));
}
double from_box(double p, double lo, double hi) {
  const double t = std::clamp(2.0 * (p - lo) / (hi - lo) - 1.0, -1.0, 1.0);
  return std::asin(t * 0.999999);  // just inside, so the first step has a gradient
}

struct Problem {
  std::span<const double> n;
  std::span<const double> y;
  CurveBounds b;
  bool fix_n_star;
  double n_star;

  CurveParams params(const gsl_vector* u) const {
    CurveParams p;
    p.a = to_box(gsl_vector_get(u, 0), b.a_lo, b.a_hi);
    p.s = to_box(gsl_vector_get(u, 1), b.s_lo, b.s_hi);
    p.n_star = fix_n_star
                   ? n_star
                   : std::exp(to_box(gsl_vector_get(u, 2), std::log(b.n_lo), std::log(b.n_hi)));
    return p;
  }
};

int residuals(const gsl_vector* u, void* data, gsl_vector* f) {
  const auto* pr = static_cast<const Problem*>(data);
  const CurveParams p = pr->params(u);
  for (size_t i = 0; i < f->size; ++i) {
    // Rows past the data pad the system to at least as many rows as parameters; they are zero.
    gsl_vector_set(f, i, i < pr->n.size() ? curve_value(p, pr->n[i]) - pr->y[i] : 0.0);
  }
  return GSL_SUCCESS;
}

double sse(const Problem& pr, const CurveParams& p) {
  double s = 0.0;
  for (size_t i = 0; i < pr.n.size(); ++i) {
    const double r = curve_value(p, pr.n[i]) - pr.y[i];
    s += r * r;
  }
  return s;
}

CurveParams solve(const Problem& pr, const CurveParams& start) {
  const size_t p = pr.fix_n_star ? 2 : 3;
  const size_t rows = std::max(pr.n.size(), p);
  gsl_multifit_nlinear_fdf fdf{};
  fdf.f = residuals;
  fdf.df = nullptr;  // forward differences
  fdf.n = rows;
  fdf.p = p;
  fdf.params = const_cast<Problem*>(&pr);
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace* w =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, rows, p);
  gsl_vector* u = gsl_vector_alloc(p);
  gsl_vector_set(u, 0, from_box(start.a, pr.b.a_lo, pr.b.a_hi));
  gsl_vector_set(u, 1, from_box(start.s, pr.b.s_lo, pr.b.s_hi));
  if (!pr.fix_n_star) {
    gsl_vector_set(u, 2,
                   from_box(std::log(start.n_star), std::log(pr.b.n_lo), std::log(pr.b.n_hi)));
  }
  int info = 0;
  gsl_multifit_nlinear_init(u, &fdf, w);
  // Non-convergence codes still leave the best point reached; the caller compares SSEs.
  gsl_multifit_nlinear_driver(2000, 1e-14, 1e-14, 1e-14, nullptr, nullptr, &info, w);
  CurveParams out = pr.params(gsl_multifit_nlinear_position(w));
  // The sine map reaches a bound only up to rounding; snap values within 1e-9 of the box's width.
  auto snap = [](double& v, double lo, double hi) {
    const double eps = 1e-9 * (hi - lo);
    if (v - lo < eps) v = lo;
    if (hi - v < eps) v = hi;
  };
  snap(out.a, pr.b.a_lo, pr.b.a_hi);
  snap(out.s, pr.b.s_lo, pr.b.s_hi);
  gsl_vector_free(u);
  gsl_multifit_nlinear_free(w);
  return out;
}

const bool kGslQuiet = [] {
  gsl_set_error_handler_off();  // GSL reports through return codes; never abort the process
  return true;
}();

}  // namespace

CurveBounds curve_bounds(std::span<const double> deltas, const std::string& precision) {
  const double max_delta = *std::max_element(deltas.begin(), deltas.end());
  return {-50.0, max_delta + 50.0, 0.0, s_cap(precision) + std::max(0.0, max_delta), 0.1, 200.0};
}

CurveFit fit_curve(std::span<const double> params_b, std::span<const double> deltas,
                   const std::string& precision) {
  (void)kGslQuiet;
  EC_CHECK(!params_b.empty() && params_b.size() == deltas.size(),
           "fit_curve: need matching, non-empty sizes and deltas");
  Problem pr{params_b, deltas, curve_bounds(deltas, precision), params_b.size() < 3,
             median(std::vector<double>(params_b.begin(), params_b.end()))};
  const double max_delta = *std::max_element(deltas.begin(), deltas.end());
  double mean_delta = 0.0;
  for (double d : deltas) mean_delta += d / static_cast<double>(deltas.size());

  std::vector<double> n_starts{pr.n_star};
  if (!pr.fix_n_star) {
    for (double s : {0.15, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 40.0, 100.0, 190.0})
      n_starts.push_back(s);
  }
  CurveParams best{};
  double best_sse = std::numeric_limits<double>::infinity();
  for (double a0 : {max_delta, mean_delta}) {
    for (double s0 : {std::min(pr.b.s_hi, 60.0), 0.5 * pr.b.s_hi, 0.05 * pr.b.s_hi}) {
      for (double n0 : n_starts) {
        const CurveParams p = solve(pr, {a0, s0, n0});
        const double e = sse(pr, p);
        if (e < best_sse) {
          best_sse = e;
          best = p;
        }
      }
    }
  }
  return {best, pr.fix_n_star, std::sqrt(best_sse / static_cast<double>(deltas.size()))};
}

CurveSet fit_curves(std::span<const FitPoint> points,
                    const std::map<std::string, std::string>& borrow, size_t min_points) {
  CurveSet set;
  set.borrow = borrow;
  set.s_caps = {{"NF4", s_cap("NF4")}, {"INT8", s_cap("INT8")}};
  set.arch_labels = default_arch_labels();
  set.hardware = default_hardware();
  std::map<std::pair<std::string, std::string>, std::vector<FitPoint>> groups;
  std::map<std::string, std::map<double, std::pair<double, int>>> fp16;
  for (const auto& p : points) {
    groups[{p.arch, p.precision}].push_back(p);
    if (p.fp16_energy_j_per_1k_tok > 0) {
      auto& acc = fp16[p.arch][p.params_b];
      acc.first += p.fp16_energy_j_per_1k_tok;
      acc.second += 1;
    }
  }
  for (const auto& [arch, sizes] : fp16) {
    for (const auto& [n, acc] : sizes) set.fp16_anchors[arch][n] = acc.first / acc.second;
    set.fp16_ranges[arch] = {sizes.begin()->first, sizes.rbegin()->first};
  }
  for (auto& [key, pts] : groups) {
    if (pts.size() < min_points) {
      set.refused.push_back(
          {key.first, key.second, pts,
           fmt::format("{} point(s), fewer than the curve's {} parameters: not fitted "
                       "(--allow-few-points fits it with N* fixed at the median size)",
                       pts.size(), kCurveParameters)});
      continue;
    }
    Curve c;
    c.arch = key.first;
    c.precision = key.second;
    std::vector<double> n, y;
    for (const auto& p : pts) {
      n.push_back(p.params_b);
      y.push_back(p.delta_pct);
    }
    c.fit = fit_curve(n, y, c.precision);
    c.n_min = *std::min_element(n.begin(), n.end());
    c.n_max = *std::max_element(n.begin(), n.end());
    const CurveParams& q = c.fit.params;
    if (q.s > q.a && q.a > 0) c.crossover_b = q.n_star * q.a / (q.s - q.a);
    if (pts.size() >= 4) {
      double abs_sum = 0.0;
      size_t inside = 0;
      for (size_t i = 0; i < pts.size(); ++i) {
        std::vector<double> n_i, y_i;
        for (size_t j = 0; j < pts.size(); ++j) {
          if (j == i) continue;
          n_i.push_back(n[j]);
          y_i.push_back(y[j]);
        }
        const CurveFit loo = fit_curve(n_i, y_i, c.precision);
        const double err = std::fabs(curve_value(loo.params, n[i]) - y[i]);
        abs_sum += err;
        if (err <= 1.96 * loo.resid_std) ++inside;
      }
      c.loo_mae = abs_sum / static_cast<double>(pts.size());
      c.loo_coverage95 = static_cast<double>(inside) / static_cast<double>(pts.size());
    }
    c.anchors = std::move(pts);
    set.curves.push_back(std::move(c));
  }
  return set;
}

std::vector<FitPoint> read_measured_csv(const CsvTable& table, std::vector<std::string>& problems) {
  const size_t c_arch = table.require_column("arch");
  const size_t c_prec = table.require_column("precision");
  const size_t c_n = table.require_column("params_b");
  const size_t c_fp16 = table.require_column("energy_fp16_j1k");
  const size_t c_quant = table.require_column("energy_quant_j1k");
  const auto c_gpu = table.column("gpu");
  const auto c_model = table.column("model");
  const auto c_trials = table.column("n_trials");
  std::vector<FitPoint> out;
  for (size_t r = 0; r < table.row_count(); ++r) {
    try {
      FitPoint p;
      p.arch = table.text(r, c_arch);
      p.precision = table.text(r, c_prec);
      p.params_b = table.required_number(r, c_n);
      const double fp16 = table.required_number(r, c_fp16);
      const double quant = table.required_number(r, c_quant);
      if (!(fp16 > 0) || !(p.params_b > 0)) {
        fail("{}: line {}: energy_fp16_j1k and params_b must be positive", table.path().string(),
             table.line(r));
      }
      if (p.arch.empty() || p.precision.empty()) {
        fail("{}: line {}: empty arch or precision", table.path().string(), table.line(r));
      }
      p.delta_pct = (quant - fp16) / fp16 * 100.0;
      p.fp16_energy_j_per_1k_tok = fp16;
      if (c_gpu) p.gpu = table.text(r, *c_gpu);
      if (c_model) p.model = table.text(r, *c_model);
      if (c_trials) p.n = table.integer(r, *c_trials).value_or(1);
      p.source = fmt::format("{} line {}", table.path().filename().string(), table.line(r));
      out.push_back(std::move(p));
    } catch (const Error& e) {
      problems.push_back(e.what());
    }
  }
  return out;
}

}  // namespace ec::analysis
