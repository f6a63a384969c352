// run's summary rows, as numbers and as text.
#include "analysis/run_summary.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>

#include "analysis/run_statistics.h"

namespace ec::analysis {
namespace {

// One printed row: a decode run and the quality figures that belong to it.
struct Row {
  const report::DecodeRun* run;
  const report::Quality* quality;  // nullptr when there is none
  bool baseline;
  size_t record;  // index of the record the row comes from
};

std::vector<Row> rows_of(std::span<const report::RunRecord> records) {
  std::vector<Row> rows;
  if (!records.empty() && records.front().baseline) {
    rows.push_back({&*records.front().baseline, nullptr, true, 0});
  }
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& q = records[i].quality;
    rows.push_back({&records[i].run, q ? &*q : nullptr, false, i});
  }
  return rows;
}

// The iterations' energy counts only when the report itself carries a measured energy per token
// (a run too short for the counter has iteration energies but no figure).
std::optional<Spread> energy_spread(const Row& row, const RunStatistics& stats) {
  if (!row.run->results.energy_per_token_mj) return std::nullopt;
  return stats.j_per_1k_tok;
}

store::Value real(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return {};
  return *v;
}

// The baseline's perplexity is the FP16 one scored beside the first precision.
std::optional<double> perplexity_of(const Row& row, std::span<const report::RunRecord> records) {
  if (row.baseline) {
    const auto& q = records[row.record].quality;
    return q ? q->fp16_perplexity : std::nullopt;
  }
  return row.quality ? row.quality->perplexity : std::nullopt;
}

}  // namespace

Table run_summary_table(std::span<const report::RunRecord> records,
                        std::span<const std::string> report_paths) {
  Table t;
  t.name = "run";
  t.columns = {"precision",
               "weight_format",
               "backend",
               "iterations",
               "tok_s_mean",
               "tok_s_sd",
               "tok_s_min",
               "tok_s_max",
               "j_per_1k_tok_mean",
               "j_per_1k_tok_sd",
               "j_per_1k_tok_min",
               "j_per_1k_tok_max",
               "vs_fp16_energy_pct",
               "perplexity",
               "kl_vs_fp16",
               "top1_vs_fp16",
               "basis",
               "report"};
  for (const Row& row : rows_of(records)) {
    const RunStatistics stats = run_statistics(*row.run);
    const auto energy = energy_spread(row, stats);
    const auto& r = row.run->results;
    t.rows.push_back({
        row.run->engine.precision,
        row.run->engine.weight_format,
        row.run->engine.backend,
        static_cast<int64_t>(stats.tok_s.n),
        real(stats.tok_s.mean),
        real(stats.tok_s.sd),
        real(stats.tok_s.min),
        real(stats.tok_s.max),
        energy ? real(energy->mean) : store::Value{},
        energy ? real(energy->sd) : store::Value{},
        energy ? real(energy->min) : store::Value{},
        energy ? real(energy->max) : store::Value{},
        row.baseline ? store::Value{} : real(r.vs_fp16_energy_pct),
        real(perplexity_of(row, records)),
        row.quality ? real(row.quality->mean_kl_vs_fp16) : store::Value{},
        row.quality ? real(row.quality->top1_agreement_vs_fp16) : store::Value{},
        std::string(report::basis_name(r.basis)),
        row.record < report_paths.size() ? store::Value{report_paths[row.record]} : store::Value{},
    });
  }
  return t;
}

namespace {

std::string mean_sd(const Spread& s, int digits) {
  if (s.n == 0 || !std::isfinite(s.mean)) return "n/a";
  if (!std::isfinite(s.sd)) return fmt::format("{:.{}f}", s.mean, digits);
  return fmt::format("{:.{}f} ± {:.{}f}", s.mean, digits, s.sd, digits);
}

std::string min_max(const Spread& s, int digits) {
  if (s.n == 0 || !std::isfinite(s.min)) return "n/a";
  return fmt::format("{:.{}f} … {:.{}f}", s.min, digits, s.max, digits);
}

std::string or_na(std::optional<double> v, std::string_view spec) {
  if (!v || !std::isfinite(*v)) return "n/a";
  return fmt::format(fmt::runtime(spec), *v);
}

}  // namespace

Table run_summary_text_table(std::span<const report::RunRecord> records) {
  Table t;
  t.name = "run";
  t.columns = {"precision",          "format",  "tok/s",      "tok/s min … max", "J/1k tok",
               "J/1k tok min … max", "vs FP16", "perplexity", "KL vs FP16",      "top-1"};
  for (const Row& row : rows_of(records)) {
    const RunStatistics stats = run_statistics(*row.run);
    const auto energy = energy_spread(row, stats);
    const auto& r = row.run->results;
    const bool q = row.quality != nullptr;
    t.rows.push_back({
        row.run->engine.precision,
        row.run->engine.weight_format,
        mean_sd(stats.tok_s, 1),
        min_max(stats.tok_s, 1),
        energy ? mean_sd(*energy, 2) : std::string("n/a"),
        energy ? min_max(*energy, 2) : std::string("n/a"),
        row.baseline ? std::string("—") : or_na(r.vs_fp16_energy_pct, "{:+.1f} %"),
        or_na(perplexity_of(row, records), "{:.4f}"),
        row.baseline ? std::string("—")
        : q          ? or_na(row.quality->mean_kl_vs_fp16, "{:.5f}")
                     : "n/a",
        row.baseline ? std::string("—")
        : q          ? or_na(row.quality->top1_agreement_vs_fp16, "{:.3f}")
                     : "n/a",
    });
  }
  return t;
}

}  // namespace ec::analysis
