// The statistics `run` prints for each precision: tok/s and J/1k tok as mean ± SD with min and max
// over the measured iterations, and warnings for outlying iterations and a slow first one
// (modified z-scores, as hyperfine; docs/analysis.md).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "report/run_record.h"

namespace ec::analysis {

// Mean, sample SD (NaN below two values), min and max of a sample.
struct Spread {
  size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;
  double min = 0.0;
  double max = 0.0;
};
Spread spread_of(std::span<const double> values);

// The median (the mean of the middle two for an even count); NaN for no values.
double median(std::span<const double> values);

// (x − median) / MAD per value, MAD the median absolute deviation from the median: hyperfine's
// modified z-score. A MAD of 0 counts as the smallest positive double, so a value off a sample of
// ties scores huge and one on it scores 0.
std::vector<double> modified_z_scores(std::span<const double> values);

// An iteration is an outlier when |modified z| exceeds Iglewicz and Hoaglin's 3.5 / 0.6745 (the
// 3.5 of their 0.6745·(x − median)/MAD rule; hyperfine, timing noisy shell commands, asks for ten
// standard deviations) and it is more than 5 % off the median: decode iterations repeat the same
// work, so they agree closely and a 1 % wobble would otherwise count as an outlier.
inline constexpr double k_outlier_modified_z = 3.5 / 0.6745;
inline constexpr double k_outlier_min_relative = 0.05;

// Outliers of a sample by the rule above: their indices, in order.
std::vector<size_t> outlier_indices(std::span<const double> values);

// One precision's measured iterations, summarised.
struct RunStatistics {
  Spread tok_s;
  double median_tok_s = 0.0;
  double first_tok_s = 0.0;            // the first measured iteration's
  std::optional<Spread> j_per_1k_tok;  // absent when an iteration has no energy
  // The first iteration took longer per token than the rule above allows (seconds per token
  // scored): it was probably not warmed up.
  bool slow_first = false;
  std::vector<size_t> time_outliers;    // iterations whose seconds per token are outliers
  std::vector<size_t> energy_outliers;  // iterations whose joules per token are outliers
};
RunStatistics run_statistics(const report::DecodeRun& run);

// The warnings for the user, one line each ("" when none); `label` names the precision.
std::vector<std::string> run_warnings(const RunStatistics& stats, const std::string& label);

}  // namespace ec::analysis
