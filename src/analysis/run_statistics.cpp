// Mean ± SD, min and max of a run's iterations and the outlier rule behind run's warnings.
#include "analysis/run_statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/stats.h"

namespace ec::analysis {

Spread spread_of(std::span<const double> values) {
  Spread s;
  s.n = values.size();
  if (values.empty()) {
    s.mean = s.sd = s.min = s.max = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  s.mean = mean(values);
  s.sd = sample_sd(values);
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

double median(std::span<const double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
}

std::vector<double> modified_z_scores(std::span<const double> values) {
  const double m = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double x : values) deviations.push_back(std::abs(x - m));
  double mad = median(deviations);
  if (!(mad > 0.0)) mad = std::numeric_limits<double>::min();
  std::vector<double> scores;
  scores.reserve(values.size());
  for (double x : values) scores.push_back((x - m) / mad);
  return scores;
}

namespace {

// Whether value i is an outlier given the sample's scores and median; `one_sided` counts only
// values above the median (slower, for seconds per token).
bool is_outlier(std::span<const double> values, const std::vector<double>& scores, double med,
                size_t i, bool one_sided) {
  const double score = one_sided ? scores[i] : std::abs(scores[i]);
  return score > k_outlier_modified_z &&
         std::abs(values[i] - med) > k_outlier_min_relative * std::abs(med);
}

}  // namespace

std::vector<size_t> outlier_indices(std::span<const double> values) {
  std::vector<size_t> out;
  // Two values have no majority to stand out from (hyperfine's rule finds none there either).
  if (values.size() < 3) return out;
  const auto scores = modified_z_scores(values);
  const double med = median(values);
  for (size_t i = 0; i < values.size(); ++i) {
    if (is_outlier(values, scores, med, i, false)) out.push_back(i);
  }
  return out;
}

RunStatistics run_statistics(const report::DecodeRun& run) {
  RunStatistics stats;
  std::vector<double> tok_s, seconds_per_token, j_per_1k;
  bool all_energy = !run.iterations.empty();
  for (const auto& it : run.iterations) {
    if (it.tokens <= 0 || !(it.seconds > 0.0)) continue;
    const double tokens = static_cast<double>(it.tokens);
    tok_s.push_back(tokens / it.seconds);
    seconds_per_token.push_back(it.seconds / tokens);
    if (it.energy_j) {
      j_per_1k.push_back(*it.energy_j / tokens * 1000.0);
    } else {
      all_energy = false;
    }
  }
  stats.tok_s = spread_of(tok_s);
  stats.median_tok_s = median(tok_s);
  if (!tok_s.empty()) stats.first_tok_s = tok_s.front();
  if (all_energy && j_per_1k.size() == tok_s.size()) {
    stats.j_per_1k_tok = spread_of(j_per_1k);
    stats.energy_outliers = outlier_indices(j_per_1k);
  }
  stats.time_outliers = outlier_indices(seconds_per_token);
  if (seconds_per_token.size() >= 3) {
    const auto scores = modified_z_scores(seconds_per_token);
    stats.slow_first = is_outlier(seconds_per_token, scores, median(seconds_per_token), 0, true);
  }
  return stats;
}

namespace {

std::string iteration_list(const std::vector<size_t>& indices) {
  std::string out;
  for (size_t i : indices) out += (out.empty() ? "" : ", ") + std::to_string(i + 1);
  return out;
}

}  // namespace

std::vector<std::string> run_warnings(const RunStatistics& stats, const std::string& label) {
  std::vector<std::string> lines;
  if (stats.slow_first) {
    lines.push_back(fmt::format(
        "{}: the first measured iteration was much slower than the others ({:.1f} tok/s "
        "against a median of {:.1f}): it probably ran cold; raise --warmup",
        label, stats.first_tok_s, stats.median_tok_s));
  }
  // A slow first iteration is the outlier already explained: name any others.
  std::vector<size_t> time_others;
  for (size_t i : stats.time_outliers) {
    if (!(stats.slow_first && i == 0)) time_others.push_back(i);
  }
  if (!time_others.empty()) {
    lines.push_back(fmt::format(
        "{}: statistical outliers in tok/s (iteration {} of {}): other work on this machine may "
        "have disturbed the measurement",
        label, iteration_list(time_others), stats.tok_s.n));
  }
  if (!stats.energy_outliers.empty()) {
    lines.push_back(fmt::format("{}: statistical outliers in J/1k tok (iteration {} of {})", label,
                                iteration_list(stats.energy_outliers), stats.tok_s.n));
  }
  return lines;
}

}  // namespace ec::analysis
