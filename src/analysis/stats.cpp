// Summary statistics; the t distribution comes from GSL so quantiles and p-values are exact.
#include "analysis/stats.h"

#include <gsl/gsl_cdf.h>

#include <cmath>
#include <limits>

namespace ec::analysis {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double mean(std::span<const double> values) {
  if (values.empty()) return kNaN;
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double sample_sd(std::span<const double> values) {
  if (values.size() < 2) return kNaN;
  // Two passes: subtracting the mean first keeps precision when values are large and close.
  const double m = mean(values);
  double ss = 0.0;
  for (double v : values) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(values.size() - 1));
}

double cv(std::span<const double> values) {
  const double m = mean(values);
  if (!(std::fabs(m) > 0.0)) return kNaN;
  return sample_sd(values) / std::fabs(m);
}

double t_quantile(double p, double df) {
  if (!(df > 0.0) || !(p > 0.0 && p < 1.0)) return kNaN;
  return gsl_cdf_tdist_Pinv(p, df);
}

Interval t_interval(std::span<const double> values, double level) {
  const double m = mean(values);
  const double n = static_cast<double>(values.size());
  const double half = t_quantile(0.5 + level / 2.0, n - 1.0) * sample_sd(values) / std::sqrt(n);
  return {m - half, m + half, half};
}

WelchResult welch_t_test(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return {kNaN, kNaN, kNaN};
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  const double va = sample_sd(a) * sample_sd(a) / na;  // squared standard errors
  const double vb = sample_sd(b) * sample_sd(b) / nb;
  const double se2 = va + vb;
  if (!(se2 > 0.0)) return {kNaN, kNaN, kNaN};
  const double t = (mean(a) - mean(b)) / std::sqrt(se2);
  const double df = se2 * se2 / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
  const double p = 2.0 * gsl_cdf_tdist_Q(std::fabs(t), df);
  return {t, df, p};
}

}  // namespace ec::analysis
