// What the energy.json and CSV fuzz entries both check on imported runs: the fields every consumer
// relies on, a store round trip that changes nothing, and every printer on the aggregate.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/aggregate.h"
#include "analysis/table.h"
#include "fuzz_support.h"
#include "store/run_row.h"
#include "store/store.h"

namespace ec::fuzz {

inline bool finite_or_absent(const std::optional<double>& v) {
  return !v || std::isfinite(*v);
}

// Fields an imported run must always have, whatever file it came from.
inline void check_run_row(const store::RunRow& row) {
  expect(!row.run_id.empty(), "accepted a run without a run id");
  expect(row.basis.empty() || row.basis == "measured" || row.basis == "interpolated" ||
             row.basis == "extrapolated" || row.basis == "unavailable",
         "accepted an unknown basis '" + row.basis + "'");
  expect(finite_or_absent(row.params_b) && finite_or_absent(row.energy_j_per_1k_tok) &&
             finite_or_absent(row.fp16_energy_j_per_1k_tok) &&
             finite_or_absent(row.vs_fp16_energy_pct) && finite_or_absent(row.throughput_tok_s) &&
             finite_or_absent(row.avg_power_w) && finite_or_absent(row.total_energy_j) &&
             finite_or_absent(row.perplexity) && finite_or_absent(row.fp16_perplexity) &&
             finite_or_absent(row.delta_perplexity_pct),
         "accepted a NaN or infinite number in run '" + row.run_id + "'");
}

// Ingesting into a fresh store and reading back gives every run unchanged (the last row of each
// run id wins), and a second ingest changes nothing.
inline void check_store_round_trip(std::span<const store::RunRow> rows) {
  store::Store db = store::Store::in_memory();
  const store::IngestStats first = db.ingest(rows);
  std::map<std::string, std::string> want;  // run id → content hash of its last row
  for (const auto& r : rows) want[r.run_id] = store::row_hash(r);
  expect(first.inserted == want.size(), "ingest counted a different number of new runs");
  const std::vector<store::RunRow> back = db.runs();
  expect(back.size() == want.size(), "the store holds a different number of runs");
  for (const auto& r : back) {
    auto it = want.find(r.run_id);
    expect(it != want.end(), "the store returned a run id that was never ingested");
    expect(it->second == store::row_hash(r), "run '" + r.run_id + "' changed in the store");
  }
  const store::IngestStats again = db.ingest(rows);
  expect(again.inserted == 0 && again.unchanged + again.updated == rows.size(),
         "re-ingesting the same runs was not a no-op");
}

// Aggregation and every printer accept whatever the importers accepted.
inline void check_printers(std::span<const store::RunRow> rows) {
  const analysis::AggregateResult result = analysis::aggregate(rows);
  size_t measured = 0;  // energy measurements in the summaries
  size_t summarised = 0;
  for (const auto& c : result.configs) {
    measured += c.energy_trials;
    summarised += c.n_trials;
  }
  // A record of the fit input stands for its n trials; every other record is one run.
  size_t trials = 0;
  for (const auto& r : rows) {
    trials +=
        r.is_measured() ? static_cast<size_t>(std::max<int64_t>(1, r.n_trials.value_or(1))) : 1;
  }
  expect(measured + result.not_measured == trials, "aggregate lost or invented runs");
  // Runs without an energy meter join their configuration for throughput and quality only.
  expect(result.without_energy <= result.not_measured &&
             summarised >= measured + result.without_energy,
         "aggregate lost or invented runs without an energy meter");
  for (const analysis::Table& table :
       {analysis::summary_table(result), analysis::aggregate_table(result),
        analysis::raw_table(rows)}) {
    for (auto format :
         {analysis::OutputFormat::md, analysis::OutputFormat::csv, analysis::OutputFormat::json,
          analysis::OutputFormat::jsonl, analysis::OutputFormat::sql}) {
      (void)analysis::render(table, format);
    }
  }
}

}  // namespace ec::fuzz
