// Statistics against hand-computed values (SD with ddof = 1, CV, t quantiles, Welch) and
// invariances on seeded random samples.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/stats.h"

namespace ec::analysis {
namespace {

TEST(Stats, MeanSdCvOfOneTwoThree) {
  const std::vector<double> v{1, 2, 3};
  EXPECT_DOUBLE_EQ(mean(v), 2.0);
  // sum of squared deviations 1 + 0 + 1 = 2, divided by n - 1 = 2 → variance 1.
  EXPECT_DOUBLE_EQ(sample_sd(v), 1.0);
  EXPECT_DOUBLE_EQ(cv(v), 0.5);
}

TEST(Stats, SampleSdUsesBesselCorrection) {
  // {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, squared deviations sum to 32; 32 / 7 → SD 2.13809.
  const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_NEAR(sample_sd(v), std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(cv(v), std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
}

TEST(Stats, UndefinedCasesAreNaN) {
  const std::vector<double> one{4.2};
  const std::vector<double> none;
  const std::vector<double> zero_mean{-1, 1};
  EXPECT_TRUE(std::isnan(mean(none)));
  EXPECT_TRUE(std::isnan(sample_sd(one)));
  EXPECT_TRUE(std::isnan(cv(one)));
  EXPECT_TRUE(std::isnan(cv(zero_mean)));
  EXPECT_TRUE(std::isnan(t_interval(one).half_width));
  EXPECT_TRUE(std::isnan(welch_t_test(one, zero_mean).t));
}

TEST(Stats, StudentTQuantilesMatchTables) {
  // Two-sided 95 % critical values from any t table.
  EXPECT_NEAR(t_quantile(0.975, 1), 12.706, 5e-4);
  EXPECT_NEAR(t_quantile(0.975, 2), 4.303, 5e-4);
  EXPECT_NEAR(t_quantile(0.975, 4), 2.776, 5e-4);
  EXPECT_NEAR(t_quantile(0.975, 30), 2.042, 5e-4);
  EXPECT_NEAR(t_quantile(0.5, 7), 0.0, 1e-12);
  EXPECT_NEAR(t_quantile(0.025, 2), -4.303, 5e-4);
  EXPECT_TRUE(std::isnan(t_quantile(0.975, 0)));
}

TEST(Stats, TIntervalOfThreeValues) {
  // {10, 12, 14}: mean 12, SD 2, SE 2/sqrt(3); half width 4.303 · 1.1547 = 4.9683.
  const std::vector<double> v{10, 12, 14};
  const Interval ci = t_interval(v);
  EXPECT_NEAR(ci.half_width, 4.302653 * 2.0 / std::sqrt(3.0), 1e-5);
  EXPECT_NEAR(ci.low, 12.0 - ci.half_width, 1e-12);
  EXPECT_NEAR(ci.high, 12.0 + ci.half_width, 1e-12);
}

TEST(Stats, WelchByHand) {
  // a = {1,2,3}: mean 2, var 1; b = {4,6,8}: mean 6, var 4.
  // SE² = 1/3 + 4/3 = 5/3, t = (2 − 6)/sqrt(5/3) = −3.0983867.
  // df = (5/3)² / ((1/3)²/2 + (4/3)²/2) = (25/9) / (17/18) = 50/17 = 2.9411765.
  // p = P(|T_{50/17}| > 3.0983867) = 0.0547868 (Simpson integration of the t density, 200,000
  // intervals, independent of GSL).
  const std::vector<double> a{1, 2, 3};
  const std::vector<double> b{4, 6, 8};
  const WelchResult w = welch_t_test(a, b);
  EXPECT_NEAR(w.t, -4.0 / std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(w.df, 50.0 / 17.0, 1e-12);
  EXPECT_NEAR(w.p_two_sided, 0.0547868, 1e-6);
  const WelchResult swapped = welch_t_test(b, a);
  EXPECT_NEAR(swapped.t, -w.t, 1e-12);
  EXPECT_NEAR(swapped.p_two_sided, w.p_two_sided, 1e-12);
}

TEST(Stats, ShiftAndScaleInvariancesOnRandomSamples) {
  std::mt19937 rng(20260819);
  std::normal_distribution<double> dist(300.0, 12.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> v(3 + trial % 5), shifted, scaled;
    for (double& x : v) x = dist(rng);
    for (double x : v) {
      shifted.push_back(x + 1000.0);
      scaled.push_back(x * 3.0);
    }
    EXPECT_NEAR(sample_sd(shifted), sample_sd(v), 1e-9);
    EXPECT_NEAR(sample_sd(scaled), 3.0 * sample_sd(v), 1e-9);
    EXPECT_NEAR(cv(scaled), cv(v), 1e-12);
    const Interval ci = t_interval(v);
    EXPECT_LT(ci.low, mean(v));
    EXPECT_GT(ci.high, mean(v));
    // Identical samples: no evidence of a difference.
    EXPECT_NEAR(welch_t_test(v, v).p_two_sided, 1.0, 1e-12);
  }
}

}  // namespace
}  // namespace ec::analysis
