// Grouping a sweep's runs by cell configuration; statistics from analysis/stats.
#include "sweep/summary.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "analysis/aggregate.h"

namespace ec::sweep {
namespace {

store::Value rounded(double v) {
  if (!std::isfinite(v)) return {};
  return std::round(v * 1e4) / 1e4;
}

store::Value mean_or_none(const analysis::MetricSummary& s) {
  return s.n == 0 ? store::Value{} : rounded(s.mean);
}

template <class Get>
analysis::MetricSummary metric(const std::vector<const store::RunRow*>& runs, bool measured_only,
                               Get get) {
  std::vector<double> values;
  for (const auto* r : runs) {
    if (measured_only && !r->is_measured()) continue;
    if (std::optional<double> v = get(*r)) values.push_back(*v);
  }
  return analysis::summarize(values);
}

}  // namespace

analysis::Table summary_table(const Manifest& m, std::span<const store::RunRow> rows, bool brief) {
  std::map<std::string, const store::RunRow*> by_id;
  for (const auto& r : rows) by_id[r.run_id] = &r;

  struct Group {
    std::string model, precision;
    int new_tokens = 0;
    size_t cells = 0, done = 0, failed = 0;
    std::set<int> gpus;
    std::vector<const store::RunRow*> runs;
  };
  std::vector<Group> groups;
  std::map<std::tuple<std::string, std::string, int>, size_t> index;
  for (const auto& c : m.cells) {
    auto key = std::make_tuple(c.config.model, c.config.precision, c.config.new_tokens);
    auto [it, added] = index.try_emplace(key, groups.size());
    if (added) {
      Group g;
      g.model = c.config.model;
      g.precision = c.config.precision;
      g.new_tokens = c.config.new_tokens;
      groups.push_back(std::move(g));
    }
    Group& g = groups[it->second];
    g.cells += 1;
    g.failed += c.state == CellState::failed ? 1 : 0;
    if (c.state == CellState::done) {
      if (auto r = by_id.find(c.run_id); r != by_id.end()) {
        g.done += 1;
        g.runs.push_back(r->second);
        if (c.gpu) g.gpus.insert(*c.gpu);
      }
    }
  }

  analysis::Table t;
  t.name = "sweep_summary";
  if (brief) {
    t.columns = {"model",        "precision", "tokens",   "done",       "basis",
                 "ΔE vs FP16 %", "± 95 %",    "J/1k tok", "CV %",       "tok/s",
                 "CV %",         "W",         "Δppl %",   "KL vs FP16", "top-1"};
  } else {
    t.columns = {"model",
                 "precision",
                 "weight_format",
                 "new_tokens",
                 "cells",
                 "done",
                 "failed",
                 "gpus",
                 "basis",
                 "n_measured",
                 "vs_fp16_energy_pct_mean",
                 "vs_fp16_energy_pct_ci95",
                 "vs_fp16_energy_pct_cv_pct",
                 "energy_j_per_1k_tok_mean",
                 "energy_j_per_1k_tok_cv_pct",
                 "fp16_energy_j_per_1k_tok_mean",
                 "throughput_tok_s_mean",
                 "throughput_tok_s_cv_pct",
                 "avg_power_w_mean",
                 "perplexity_mean",
                 "delta_perplexity_pct_mean",
                 "mean_kl_vs_fp16_mean",
                 "top1_agreement_vs_fp16_mean"};
  }
  for (const auto& g : groups) {
    std::set<std::string> bases, formats;
    size_t measured = 0;
    for (const auto* r : g.runs) {
      bases.insert(r->basis);
      if (!r->weight_format.empty()) formats.insert(r->weight_format);
      measured += r->is_measured() ? 1 : 0;
    }
    std::string basis = bases.size() == 1 ? *bases.begin() : bases.empty() ? "" : "mixed";
    std::string format = formats.size() == 1 ? *formats.begin() : "";
    std::string gpus;
    for (int gpu : g.gpus) gpus += (gpus.empty() ? "" : ",") + std::to_string(gpu);

    const auto delta = metric(g.runs, true, [](auto& r) { return r.vs_fp16_energy_pct; });
    const auto energy = metric(g.runs, true, [](auto& r) { return r.energy_j_per_1k_tok; });
    const auto fp16 = metric(g.runs, true, [](auto& r) { return r.fp16_energy_j_per_1k_tok; });
    const auto power = metric(g.runs, true, [](auto& r) { return r.avg_power_w; });
    const auto tok_s = metric(g.runs, false, [](auto& r) { return r.throughput_tok_s; });
    const auto ppl = metric(g.runs, false, [](auto& r) { return r.perplexity; });
    const auto dppl = metric(g.runs, false, [](auto& r) { return r.delta_perplexity_pct; });
    const auto kl = metric(g.runs, false, [](auto& r) { return r.mean_kl_vs_fp16; });
    const auto top1 = metric(g.runs, false, [](auto& r) { return r.top1_agreement_vs_fp16; });
    const store::Value delta_ci = delta.n > 1 ? rounded(delta.ci95.half_width) : store::Value{};
    if (brief) {
      t.rows.push_back({g.model, format.empty() ? g.precision : g.precision + "/" + format,
                        static_cast<int64_t>(g.new_tokens),
                        fmt::format("{}/{}{}", g.done, g.cells,
                                    g.failed ? fmt::format(" ({} failed)", g.failed) : ""),
                        basis, mean_or_none(delta), delta_ci, mean_or_none(energy),
                        rounded(energy.cv_pct), mean_or_none(tok_s), rounded(tok_s.cv_pct),
                        mean_or_none(power), mean_or_none(dppl), mean_or_none(kl),
                        mean_or_none(top1)});
    } else {
      t.rows.push_back({g.model,
                        g.precision,
                        format,
                        static_cast<int64_t>(g.new_tokens),
                        static_cast<int64_t>(g.cells),
                        static_cast<int64_t>(g.done),
                        static_cast<int64_t>(g.failed),
                        gpus,
                        basis,
                        static_cast<int64_t>(measured),
                        mean_or_none(delta),
                        delta_ci,
                        rounded(delta.cv_pct),
                        mean_or_none(energy),
                        rounded(energy.cv_pct),
                        mean_or_none(fp16),
                        mean_or_none(tok_s),
                        rounded(tok_s.cv_pct),
                        mean_or_none(power),
                        mean_or_none(ppl),
                        mean_or_none(dppl),
                        mean_or_none(kl),
                        mean_or_none(top1)});
    }
  }
  return t;
}

}  // namespace ec::sweep
