// The curve fit: reproduces the published curves from measured.csv, agrees with an independent
// fitter (exact bounded linear solve for A, S on a dense N* grid, then golden-section refinement),
// follows the < 3 points rule and stays inside its bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "analysis/fit.h"
#include "core/error.h"
#include "support/paths.h"

namespace ec::analysis {
namespace {

// --- independent reference fitter (no GSL, no transform) ---------------------------------------
double sse_of(std::span<const double> n, std::span<const double> y, const CurveParams& p) {
  double s = 0;
  for (size_t i = 0; i < n.size(); ++i) s += std::pow(curve_value(p, n[i]) - y[i], 2);
  return s;
}

// For fixed N* the model is linear in (A, S): the box-constrained optimum is the unconstrained one
// when feasible, else the best of the four edges (each a clamped 1-D least squares).
CurveParams best_linear(std::span<const double> n, std::span<const double> y, double n_star,
                        const CurveBounds& b) {
  const size_t m = n.size();
  std::vector<double> g(m);
  for (size_t i = 0; i < m; ++i) g[i] = (n[i] / n_star) / (1 + n[i] / n_star);
  double sg = 0, sgg = 0, sy = 0, sgy = 0;
  for (size_t i = 0; i < m; ++i) {
    sg += g[i];
    sgg += g[i] * g[i];
    sy += y[i];
    sgy += g[i] * y[i];
  }
  std::vector<CurveParams> candidates;
  const double det = static_cast<double>(m) * sgg - sg * sg;
  if (std::fabs(det) > 1e-12) {
    // y ≈ A − S g: normal equations of the regression of y on (1, g), slope = −S.
    const double slope = (static_cast<double>(m) * sgy - sg * sy) / det;
    const double a = (sy - slope * sg) / static_cast<double>(m);
    if (a >= b.a_lo && a <= b.a_hi && -slope >= b.s_lo && -slope <= b.s_hi) {
      return {a, -slope, n_star};
    }
  }
  for (double a : {b.a_lo, b.a_hi}) {
    double s = sgg > 0 ? (a * sg - sgy) / sgg : 0.0;
    candidates.push_back({a, std::clamp(s, b.s_lo, b.s_hi), n_star});
  }
  for (double s : {b.s_lo, b.s_hi}) {
    double a = (sy + s * sg) / static_cast<double>(m);
    candidates.push_back({std::clamp(a, b.a_lo, b.a_hi), s, n_star});
  }
  CurveParams best = candidates[0];
  for (const auto& c : candidates) {
    if (sse_of(n, y, c) < sse_of(n, y, best)) best = c;
  }
  return best;
}

CurveParams reference_fit(std::span<const double> n, std::span<const double> y,
                          const std::string& precision) {
  const CurveBounds b = curve_bounds(y, precision);
  if (n.size() < 3) {
    std::vector<double> s(n.begin(), n.end());
    std::sort(s.begin(), s.end());
    const double med = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[0] + s[1]);
    return best_linear(n, y, med, b);
  }
  const double lo = std::log(b.n_lo), hi = std::log(b.n_hi);
  const int steps = 20000;
  auto cost = [&](double log_n) { return sse_of(n, y, best_linear(n, y, std::exp(log_n), b)); };
  int best_i = 0;
  double best_c = INFINITY;
  for (int i = 0; i <= steps; ++i) {
    const double c = cost(lo + (hi - lo) * i / steps);
    if (c < best_c) {
      best_c = c;
      best_i = i;
    }
  }
  double l = lo + (hi - lo) * std::max(0, best_i - 1) / steps;
  double r = lo + (hi - lo) * std::min(steps, best_i + 1) / steps;
  const double phi = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 200; ++it) {
    const double m1 = r - phi * (r - l), m2 = l + phi * (r - l);
    if (cost(m1) < cost(m2))
      r = m2;
    else
      l = m1;
  }
  return best_linear(n, y, std::exp(0.5 * (l + r)), b);
}

// --- the published curves (quant-energy curves.json, fitted by the original from measured.csv) --
struct Published {
  const char* arch;
  const char* precision;
  double a, s, n_star, resid_std;
  double loo_mae;  // NaN: fewer than 4 points
};
const Published kPublished[] = {
    {"ada", "INT8", 291.8945, 274.5289, 1.4423, 26.5949, 47.455},
    {"ada", "NF4", 54.2295, 131.0936, 5.2846, 11.4822, 16.123},
    {"ampere", "INT8", 180.8252, 127.9389, 10.082, 2.4297, NAN},
    {"ampere", "NF4", -1.0293, 0.0, 89.9821, 2.7146, NAN},
    {"blackwell", "NF4", 45.8272, 104.4224, 6.0749, 2.8022, 4.846},
    {"turing", "NF4", 7.925, 79.5646, 19.2186, 1.316, 5.262},
};

CurveSet fit_measured() {
  std::vector<std::string> problems;
  const auto table = CsvTable::read(test::fixture("original/measured.csv"));
  const auto points = read_measured_csv(table, problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(points.size(), 29u);
  return fit_curves(points);
}

TEST(Fit, ReproducesThePublishedCurves) {
  const CurveSet set = fit_measured();
  ASSERT_EQ(set.curves.size(), 6u);
  for (const auto& p : kPublished) {
    SCOPED_TRACE(std::string(p.arch) + " " + p.precision);
    const Curve* c = set.find(p.arch, p.precision);
    ASSERT_NE(c, nullptr);
    const CurveParams& q = c->fit.params;
    std::printf("  %-9s %-4s A=%9.4f S=%9.4f N*=%8.4f resid_std=%7.4f loo_mae=%7.3f cov=%.2f\n",
                p.arch, p.precision, q.a, q.s, q.n_star, c->fit.resid_std, c->loo_mae.value_or(NAN),
                c->loo_coverage95.value_or(NAN));
    EXPECT_NEAR(q.a, p.a, 2e-3 * std::max(1.0, std::fabs(p.a)));
    EXPECT_NEAR(q.s, p.s, 2e-3 * std::max(1.0, std::fabs(p.s)));
    // With S = 0 the curve does not depend on N*: any N* is a minimiser, so it is not compared.
    if (p.s > 0) {
      EXPECT_NEAR(q.n_star, p.n_star, 2e-3 * p.n_star);
    }
    EXPECT_NEAR(c->fit.resid_std, p.resid_std, 1e-3);
    if (std::isnan(p.loo_mae)) {
      EXPECT_FALSE(c->loo_mae.has_value());
    } else {
      ASSERT_TRUE(c->loo_mae.has_value());
      EXPECT_NEAR(*c->loo_mae, p.loo_mae, 2e-3);
    }
  }
  // Crossover of ada NF4: N* · A / (S − A) = 3.728 B in the published file.
  EXPECT_NEAR(*set.find("ada", "NF4")->crossover_b, 3.728, 2e-3);
  EXPECT_FALSE(set.find("ada", "INT8")->crossover_b.has_value());
  // FP16 anchors are the mean over every row at that size: ada 0.5 B = (1474.16 + 2·1550.92)/3.
  EXPECT_NEAR(set.fp16_anchors.at("ada").at(0.5), 1525.3333, 1e-3);
}

TEST(Fit, AgreesWithAnIndependentFitter) {
  const CurveSet set = fit_measured();
  for (const auto& c : set.curves) {
    SCOPED_TRACE(c.arch + " " + c.precision);
    std::vector<double> n, y;
    for (const auto& a : c.anchors) {
      n.push_back(a.params_b);
      y.push_back(a.delta_pct);
    }
    const CurveParams ref = reference_fit(n, y, c.precision);
    const double ref_rms = std::sqrt(sse_of(n, y, ref) / static_cast<double>(n.size()));
    std::printf("  reference %-9s %-4s A=%9.4f S=%9.4f N*=%8.4f resid_std=%7.4f\n", c.arch.c_str(),
                c.precision.c_str(), ref.a, ref.s, ref.n_star, ref_rms);
    EXPECT_NEAR(c.fit.resid_std, ref_rms, 1e-4);
    EXPECT_NEAR(c.fit.params.a, ref.a, 1e-3 * std::max(1.0, std::fabs(ref.a)));
    EXPECT_NEAR(c.fit.params.s, ref.s, 1e-3 * std::max(1.0, ref.s));
    if (ref.s > 1e-6) {
      EXPECT_NEAR(c.fit.params.n_star, ref.n_star, 1e-3 * ref.n_star);
    }
  }
}

TEST(Fit, FewerThanThreePointsFixNStarAtTheMedian) {
  const std::vector<double> n{1.1, 7.0};
  const std::vector<double> y{30.0, -10.0};
  const CurveFit f = fit_curve(n, y, "NF4");
  EXPECT_TRUE(f.n_star_fixed);
  EXPECT_DOUBLE_EQ(f.params.n_star, 4.05);
  // Two points, two free parameters, feasible: the curve passes through both.
  EXPECT_NEAR(f.resid_std, 0.0, 1e-6);
  const CurveParams ref = reference_fit(n, y, "NF4");
  EXPECT_NEAR(f.params.a, ref.a, 1e-4);
  EXPECT_NEAR(f.params.s, ref.s, 1e-4);
}

TEST(Fit, RandomDataStaysInBoundsAndMatchesReference) {
  std::mt19937 rng(4090);
  std::uniform_real_distribution<double> size(0.3, 15.0);
  std::uniform_real_distribution<double> noise(-15.0, 15.0);
  for (int trial = 0; trial < 12; ++trial) {
    const std::string precision = trial % 2 ? "INT8" : "NF4";
    const CurveParams truth{40.0 + 10 * trial, 60.0 + 5 * trial, 2.0 + trial};
    std::vector<double> n, y;
    for (int i = 0; i < 3 + trial % 4; ++i) {
      n.push_back(size(rng));
      y.push_back(curve_value(truth, n.back()) + noise(rng));
    }
    const CurveFit f = fit_curve(n, y, precision);
    const CurveBounds b = curve_bounds(y, precision);
    EXPECT_GE(f.params.a, b.a_lo);
    EXPECT_LE(f.params.a, b.a_hi);
    EXPECT_GE(f.params.s, b.s_lo);
    EXPECT_LE(f.params.s, b.s_hi);
    EXPECT_GE(f.params.n_star, b.n_lo * (1 - 1e-9));
    EXPECT_LE(f.params.n_star, b.n_hi * (1 + 1e-9));
    const CurveParams ref = reference_fit(n, y, precision);
    const double ref_rms = std::sqrt(sse_of(n, y, ref) / static_cast<double>(n.size()));
    EXPECT_LE(f.resid_std, ref_rms + 1e-4) << "trial " << trial;
  }
}

TEST(Fit, ClassesWithFewerPointsThanParametersAreRefused) {
  std::vector<FitPoint> points;
  for (double n : {0.5, 1.1, 3.0, 7.0})
    points.push_back({"ada", "NF4", "g", "m", n, 10.0 - n, 0.0, 1, "s"});
  points.push_back({"blackwell", "NF4", "RTX 5090", "Qwen2.5-3B", 3.0, 11.3, 0.0, 1, "s"});
  const CurveSet set = fit_curves(points);
  ASSERT_EQ(set.curves.size(), 1u);
  ASSERT_EQ(set.refused.size(), 1u);
  EXPECT_EQ(set.refused[0].arch, "blackwell");
  EXPECT_EQ(set.refused[0].points.size(), 1u);
  EXPECT_NE(set.refused[0].reason.find("fewer than the curve's 3 parameters"), std::string::npos);
  EXPECT_EQ(curves_to_json(set)["refused"]["blackwell"]["NF4"]["points"].size(), 1u);
  // Asked for, it is fitted, and its zero residual is what it is: N* fixed, no error bar.
  const CurveSet forced = fit_curves(points, default_borrow(), 1);
  ASSERT_EQ(forced.curves.size(), 2u);
  EXPECT_TRUE(forced.find("blackwell", "NF4")->fit.n_star_fixed);
}

TEST(Fit, CurvesJsonRoundTripsAndNamesBorrowing) {
  const CurveSet set = fit_measured();
  const nlohmann::json j = curves_to_json(set);
  EXPECT_EQ(j["borrowed"]["hopper"]["NF4"]["from"], "ampere");
  EXPECT_EQ(j["curves"]["ada"]["NF4"]["anchors"].size(), 9u);
  const CurveSet back = curves_from_json(j, "curves.json");
  ASSERT_EQ(back.curves.size(), set.curves.size());
  EXPECT_DOUBLE_EQ(back.find("turing", "NF4")->fit.params.n_star,
                   set.find("turing", "NF4")->fit.params.n_star);
  EXPECT_EQ(back.borrow.at("hopper"), "ampere");
  EXPECT_DOUBLE_EQ(back.fp16_anchors.at("ampere").at(14.0), 7359.98);
  EXPECT_THROW(curves_from_json(nlohmann::json::array(), "x.json"), Error);
}

}  // namespace
}  // namespace ec::analysis
