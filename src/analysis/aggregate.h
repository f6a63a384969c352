// Grouping runs by configuration (GPU, model, size, precision/format, session) and summarising each
// metric across the replicates: n, mean, sample SD, CV, 95 % t-interval.
#pragma once

#include <compare>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/left_out.h"
#include "analysis/stats.h"
#include "analysis/table.h"
#include "store/run_row.h"

namespace ec::analysis {

struct ConfigKey {
  std::string gpu;
  std::string gpu_arch;
  std::string model;
  double params_b = 0.0;  // NaN when the run did not say
  std::string precision;
  std::string weight_format;
  std::string session;

  // The same configuration in any session: what `compare` pairs across sessions.
  std::string configuration_label() const;
  friend bool operator==(const ConfigKey&, const ConfigKey&) = default;
  friend auto operator<=>(const ConfigKey&, const ConfigKey&) = default;
};

ConfigKey config_key(const store::RunRow& row);

struct MetricSummary {
  size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;      // ddof = 1; NaN for n < 2
  double cv_pct = 0.0;  // 100 · SD / |mean|
  Interval ci95{};
};
MetricSummary summarize(std::span<const double> values);

struct ConfigSummary {
  ConfigKey key;
  size_t n_trials = 0;       // runs behind the summary (a fit-input record counts its own n)
  size_t energy_trials = 0;  // ... of them measured by an energy meter: the energy metrics' runs
  MetricSummary vs_fp16_energy_pct;
  MetricSummary energy_j_per_1k_tok;
  MetricSummary fp16_energy_j_per_1k_tok;
  MetricSummary throughput_tok_s;
  MetricSummary avg_power_w;
  std::optional<double> delta_perplexity_pct;  // the replicates' mean
  // Whether every replicate gave bit-identical perplexities (quantized and FP16); nullopt when the
  // runs carry none. Teacher forcing is deterministic, so a mismatch means the pipeline changed.
  std::optional<bool> perplexity_identical;
  // The quality figures that mean something on synthetic weights; n = 0 when no run carries them.
  MetricSummary mean_kl_vs_fp16;         // nats
  MetricSummary top1_agreement_vs_fp16;  // fraction 0..1
  std::vector<std::string> run_ids;
};

struct AggregateResult {
  std::vector<ConfigSummary> configs;  // sorted by key
  size_t not_measured = 0;             // runs that are not energy measurements
  size_t without_energy = 0;           // ... of them summarised for throughput and quality only
  std::vector<LeftOut> left_out;       // ... the others, in no summary, grouped by why
};

// Measured runs enter every metric. Runs without an energy meter (basis 'unavailable', such as
// CPU runs without RAPL) enter their configuration's throughput and quality, never its energy;
// interpolated/extrapolated records and runs whose source is no hardware meter are left out.
AggregateResult aggregate(std::span<const store::RunRow> rows);

// The summary in the original's published layout: its columns, its value formats (Python's
// round to 3 decimals, CVs to 2, yes/no) and its row order (by size); render_published_csv gives
// its bytes. Like the original's, it holds measured configurations only, and no KL or top-1.
Table summary_table(const AggregateResult& result);
// Everything aggregate knows (key, n, mean, SD, CV, 95 % interval per metric, the replicates' mean
// KL and top-1): csv/json/jsonl/sql output.
Table aggregate_table(const AggregateResult& result);
// The runs in the published CSV layout (with `replicate` when any run has one).
Table raw_table(std::span<const store::RunRow> rows);

}  // namespace ec::analysis
