// Counting and wording the runs left out of the statistics.
#include "analysis/left_out.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ec::analysis {

namespace {

std::vector<LeftOut> grouped(std::span<const store::RunRow> rows, bool keep_without_energy) {
  std::map<std::string, size_t> counts;
  for (const auto& r : rows) {
    if (keep_without_energy && r.is_run_without_energy()) continue;
    std::string why = r.why_not_measured();
    if (!why.empty()) ++counts[std::move(why)];
  }
  std::vector<LeftOut> out;
  for (auto& [reason, n] : counts) out.push_back({reason, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const LeftOut& a, const LeftOut& b) { return a.runs > b.runs; });
  return out;
}

}  // namespace

std::vector<LeftOut> left_out(std::span<const store::RunRow> rows) {
  return grouped(rows, false);
}

std::vector<LeftOut> left_out_of_summaries(std::span<const store::RunRow> rows) {
  return grouped(rows, true);
}

std::string left_out_line(const std::vector<LeftOut>& groups) {
  if (groups.empty()) return {};
  size_t total = 0;
  std::string reasons;
  for (const auto& g : groups) {
    total += g.runs;
    reasons += fmt::format("{}{} ({})", reasons.empty() ? "" : "; ", g.reason, g.runs);
  }
  return fmt::format("{} run(s) left out, not measurements: {}", total, reasons);
}

}  // namespace ec::analysis
