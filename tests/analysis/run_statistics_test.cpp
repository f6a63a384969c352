// run's per-precision statistics: hand-computed spreads, modified z-scores and the outlier rule
// (hyperfine's own test samples where the rules agree), and the warnings a run gets.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/run_statistics.h"

namespace ec::analysis {
namespace {

TEST(RunStatistics, SpreadIsMeanSampleSdMinMax) {
  const std::vector<double> v{1, 2, 3, 4};
  const Spread s = spread_of(v);
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.sd, std::sqrt(5.0 / 3.0));
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  const std::vector<double> one{7};
  EXPECT_TRUE(std::isnan(spread_of(one).sd));
  EXPECT_TRUE(std::isnan(spread_of({}).mean));
}

TEST(RunStatistics, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(RunStatistics, ModifiedZScoresDivideByTheMedianAbsoluteDeviation) {
  // median 3; |deviations| 2 1 0 1 97 → MAD 1.
  const auto z = modified_z_scores(std::vector<double>{1, 2, 3, 4, 100});
  EXPECT_EQ(z, (std::vector<double>{-2, -1, 0, 1, 97}));
}

TEST(RunStatistics, OutliersAsHyperfineFindsThem) {
  EXPECT_TRUE(outlier_indices(std::vector<double>{50.0}).empty());
  EXPECT_TRUE(outlier_indices(std::vector<double>{1000.0, 0.0}).empty());
  EXPECT_EQ(outlier_indices(std::vector<double>{0.5, 0.30, 0.29, 0.31, 0.30}),
            (std::vector<size_t>{0}));
  const std::vector<double> normal{2.33269488, 1.42195907, -0.57527698, -0.31293437, 2.2948158,
                                   0.75813273, -1.0712388, -0.96394741, -1.15897446, 1.10976285};
  EXPECT_TRUE(outlier_indices(normal).empty());
  std::vector<double> planted = normal;
  planted.push_back(20.0);
  planted.push_back(-500.0);
  EXPECT_EQ(outlier_indices(planted), (std::vector<size_t>{10, 11}));
  // A MAD of 0: every value off the ties stands out.
  EXPECT_EQ(outlier_indices(std::vector<double>{10, 10, 10, 10, 10, 10, 10, 100, 100}),
            (std::vector<size_t>{7, 8}));
}

TEST(RunStatistics, SmallDeviationsAreNeverOutliers) {
  // 1.04 is 40 MADs off the median but only 4 % off it: below the 5 % floor.
  EXPECT_TRUE(outlier_indices(std::vector<double>{1.000, 1.001, 0.999, 1.000, 1.04}).empty());
  // 1.06 is 6 % off and 60 MADs: an outlier.
  EXPECT_EQ(outlier_indices(std::vector<double>{1.000, 1.001, 0.999, 1.000, 1.06}),
            (std::vector<size_t>{4}));
}

report::DecodeRun run_at(const std::vector<double>& tok_s, const std::vector<double>& energy_j) {
  report::DecodeRun run;
  for (size_t i = 0; i < tok_s.size(); ++i) {
    report::Iteration it;
    it.tokens = 256;
    it.seconds = 256.0 / tok_s[i];
    if (i < energy_j.size()) it.energy_j = energy_j[i];
    run.iterations.push_back(it);
  }
  return run;
}

TEST(RunStatistics, AColdFirstIterationIsNamed) {
  // `run --warmup 0` on a GPU: 1897, 3083 and 2931 tok/s.
  const auto stats = run_statistics(run_at({1897, 3083, 2931}, {100, 101, 99}));
  EXPECT_DOUBLE_EQ(stats.tok_s.mean, (1897.0 + 3083.0 + 2931.0) / 3.0);
  EXPECT_DOUBLE_EQ(stats.tok_s.min, 1897.0);
  EXPECT_DOUBLE_EQ(stats.tok_s.max, 3083.0);
  EXPECT_DOUBLE_EQ(stats.first_tok_s, 1897.0);
  EXPECT_DOUBLE_EQ(stats.median_tok_s, 2931.0);
  ASSERT_TRUE(stats.j_per_1k_tok);
  EXPECT_DOUBLE_EQ(stats.j_per_1k_tok->mean, 300.0 / 3.0 / 256.0 * 1000.0);
  EXPECT_DOUBLE_EQ(stats.j_per_1k_tok->min, 99.0 / 256.0 * 1000.0);
  EXPECT_TRUE(stats.slow_first);
  EXPECT_EQ(stats.time_outliers, (std::vector<size_t>{0}));
  EXPECT_TRUE(stats.energy_outliers.empty());
  const auto lines = run_warnings(stats, "INT8");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("raise --warmup"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("1897.0"), std::string::npos) << lines[0];
}

TEST(RunStatistics, AFastFirstIterationIsAnOutlierNotAColdStart) {
  const auto stats = run_statistics(run_at({3500, 3000, 3010, 2990, 3005}, {}));
  EXPECT_FALSE(stats.slow_first);
  EXPECT_EQ(stats.time_outliers, (std::vector<size_t>{0}));
  EXPECT_FALSE(stats.j_per_1k_tok);
  const auto lines = run_warnings(stats, "NF4");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("iteration 1 of 5"), std::string::npos) << lines[0];
}

TEST(RunStatistics, SteadyIterationsGetNoWarning) {
  const auto stats = run_statistics(run_at({3000, 3004, 2998, 3001}, {50, 50.2, 49.9, 50.1}));
  EXPECT_FALSE(stats.slow_first);
  EXPECT_TRUE(stats.time_outliers.empty());
  EXPECT_TRUE(stats.energy_outliers.empty());
  EXPECT_TRUE(run_warnings(stats, "FP16").empty());
}

TEST(RunStatistics, AnEnergyOutlierIsNamed) {
  const auto stats = run_statistics(run_at({3000, 3004, 2998, 3001}, {50, 50.2, 80, 50.1}));
  EXPECT_EQ(stats.energy_outliers, (std::vector<size_t>{2}));
  const auto lines = run_warnings(stats, "FP16");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("J/1k tok (iteration 3 of 4)"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace ec::analysis
