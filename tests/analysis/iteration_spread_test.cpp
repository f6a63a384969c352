// iteration_energy_cv_pct on hand-made iterations.
#include "analysis/iteration_spread.h"

#include <gtest/gtest.h>

namespace ec::analysis {
namespace {

report::Iteration iteration(std::optional<double> joules, int64_t tokens) {
  report::Iteration it;
  it.seconds = 1.0;
  it.tokens = tokens;
  it.energy_j = joules;
  return it;
}

TEST(IterationSpread, CvOfEnergyPerToken) {
  report::DecodeRun run;
  // 0.1, 0.2, 0.3 J per token (the second iteration is twice as long): mean 0.2, SD 0.1.
  run.iterations = {iteration(10.0, 100), iteration(40.0, 200), iteration(30.0, 100)};
  auto cv = iteration_energy_cv_pct(run);
  ASSERT_TRUE(cv.has_value());
  EXPECT_NEAR(*cv, 50.0, 1e-9);
}

TEST(IterationSpread, AbsentWithoutEnergyTokensOrASecondIteration) {
  report::DecodeRun run;
  EXPECT_FALSE(iteration_energy_cv_pct(run).has_value());
  run.iterations = {iteration(10.0, 100)};
  EXPECT_FALSE(iteration_energy_cv_pct(run).has_value());
  run.iterations = {iteration(10.0, 100), iteration(std::nullopt, 100)};
  EXPECT_FALSE(iteration_energy_cv_pct(run).has_value());
  run.iterations = {iteration(10.0, 100), iteration(10.0, 0)};
  EXPECT_FALSE(iteration_energy_cv_pct(run).has_value());
  run.iterations = {iteration(10.0, 100), iteration(10.0, 100)};
  EXPECT_DOUBLE_EQ(*iteration_energy_cv_pct(run), 0.0);
}

}  // namespace
}  // namespace ec::analysis
