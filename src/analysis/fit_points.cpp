// Fit points from runs, refusing to pool sessions whose version stacks disagree.
#include <cmath>
#include <map>

#include "analysis/aggregate.h"
#include "analysis/fit.h"
#include "analysis/version_stack.h"
#include "core/error.h"

namespace ec::analysis {

std::vector<FitPoint> fit_points_from_runs(std::span<const store::RunRow> rows, bool force,
                                           std::vector<std::string>& warnings,
                                           const std::set<std::string>& accept) {
  // Sessions per (arch, precision), to check every pair that would share a curve.
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<store::RunRow>>>
      sessions;
  for (const auto& r : rows) {
    if (r.is_measured()) sessions[{r.gpu_arch, r.precision}][r.session].push_back(r);
  }
  for (const auto& [cls, by_session] : sessions) {
    for (auto a = by_session.begin(); a != by_session.end(); ++a) {
      for (auto b = std::next(a); b != by_session.end(); ++b) {
        const Comparability c = compare_version_stacks(a->second, b->second, accept);
        if (c.comparable) continue;
        const std::string message = fmt::format("{} {}: sessions '{}' and '{}' are {}", cls.first,
                                                cls.second, a->first, b->first, c.verdict());
        if (!force) {
          fail(
              "{} (fit them separately, accept a named difference with --accept-difference, or "
              "pass --force to pool anyway)",
              message);
        }
        warnings.push_back(message + " — pooled because of --force");
      }
    }
  }
  std::vector<FitPoint> points;
  for (const auto& s : aggregate(rows).configs) {
    if (std::isnan(s.key.params_b) || s.vs_fp16_energy_pct.n == 0) continue;
    FitPoint p;
    p.arch = s.key.gpu_arch;
    p.precision = s.key.precision;
    p.gpu = s.key.gpu;
    p.model = s.key.model;
    p.params_b = s.key.params_b;
    p.delta_pct = s.vs_fp16_energy_pct.mean;
    p.fp16_energy_j_per_1k_tok =
        s.fp16_energy_j_per_1k_tok.n ? s.fp16_energy_j_per_1k_tok.mean : 0.0;
    p.n = static_cast<int64_t>(s.energy_trials);
    p.source = s.key.session;
    if (p.precision == "FP16") continue;  // the baseline itself has no curve
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace ec::analysis
