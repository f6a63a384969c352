// Summary statistics as free functions: mean, sample SD (ddof = 1), CV, Student-t quantiles and
// intervals, Welch's t-test. Undefined results (too few values, zero mean) are NaN, never a throw.
#pragma once

#include <span>

namespace ec::analysis {

double mean(std::span<const double> values);

// Sample standard deviation with Bessel's correction (ddof = 1); NaN for fewer than 2 values.
double sample_sd(std::span<const double> values);

// Coefficient of variation SD / |mean| as a fraction (0.5, not 50 %); NaN when undefined.
double cv(std::span<const double> values);

// Student-t quantile: the t with P(T <= t) = p for `df` degrees of freedom (df may be fractional).
double t_quantile(double p, double df);

// A two-sided confidence interval for the mean: mean ± t_{(1+level)/2, n-1} · SD / sqrt(n).
struct Interval {
  double low;
  double high;
  double half_width;
};
Interval t_interval(std::span<const double> values, double level = 0.95);

// Welch's unequal-variance t-test of mean(a) - mean(b): the statistic, the Welch–Satterthwaite
// degrees of freedom and the two-sided p-value. NaN fields when either sample has fewer than 2
// values or both have zero variance.
struct WelchResult {
  double t;
  double df;
  double p_two_sided;
};
WelchResult welch_t_test(std::span<const double> a, std::span<const double> b);

}  // namespace ec::analysis
