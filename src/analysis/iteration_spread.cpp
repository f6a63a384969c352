// iteration_energy_cv_pct: the CV of a run's per-iteration energy per token.
#include "analysis/iteration_spread.h"

#include <cmath>
#include <vector>

#include "analysis/stats.h"

namespace ec::analysis {

std::optional<double> iteration_energy_cv_pct(const report::DecodeRun& run) {
  std::vector<double> per_token;
  for (const auto& it : run.iterations) {
    if (!it.energy_j || it.tokens <= 0) return std::nullopt;
    per_token.push_back(*it.energy_j / static_cast<double>(it.tokens));
  }
  const double c = cv(per_token);
  if (std::isnan(c)) return std::nullopt;
  return c * 100.0;
}

}  // namespace ec::analysis
