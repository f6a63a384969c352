// Per-configuration summaries; the statistics come from stats.h, the tables only lay them out.
#include "analysis/aggregate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <tuple>

namespace ec::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class Get>
MetricSummary summarize_field(const std::vector<const store::RunRow*>& runs, Get get) {
  std::vector<double> values;
  for (const auto* r : runs) {
    if (auto v = get(*r)) values.push_back(*v);
  }
  return summarize(values);
}

// A configuration's runs, and those of them an energy meter measured (the measurement rule is
// asked once per run: it is string work, and 100,000 runs ask it).
struct GroupRuns {
  std::vector<const store::RunRow*> all, metered;
};

size_t trials(const store::RunRow& r) {
  // A record of the fit input stands for its n trials; every other record is one run.
  return static_cast<size_t>(std::max<int64_t>(1, r.n_trials.value_or(1)));
}

// Rounded for the tables: 4 decimals are below any meter's resolution and keep CSVs readable.
store::Value rounded(double v) {
  if (!std::isfinite(v)) return {};
  return std::round(v * 1e4) / 1e4;
}

store::Value mean_or_absent(const MetricSummary& m) {
  return m.n == 0 ? store::Value{} : rounded(m.mean);
}

// As the original's summary writes its numbers: Python's round(v, decimals), correctly rounded
// from the binary value (as printf's %.Nf is), then printed by repr (format_real does).
store::Value published_round(double v, int decimals) {
  if (!std::isfinite(v)) return {};
  const std::string text = fmt::format("{:.{}f}", v, decimals);
  const double r = std::strtod(text.c_str(), nullptr);
  return r == 0.0 ? 0.0 : r;  // round(-0.0001, 3) prints as -0.0 in Python; 0.0 here, as stored
}

}  // namespace

std::string ConfigKey::configuration_label() const {
  std::string label = fmt::format("{} {} {}", gpu, model, precision);
  if (!weight_format.empty()) label += "/" + weight_format;
  return label;
}

ConfigKey config_key(const store::RunRow& row) {
  return {row.gpu,       row.gpu_arch,      row.model,  row.params_b.value_or(kNaN),
          row.precision, row.weight_format, row.session};
}

MetricSummary summarize(std::span<const double> values) {
  MetricSummary m;
  m.n = values.size();
  m.mean = mean(values);
  m.sd = sample_sd(values);
  m.cv_pct = 100.0 * cv(values);
  m.ci95 = t_interval(values, 0.95);
  return m;
}

AggregateResult aggregate(std::span<const store::RunRow> rows) {
  AggregateResult result;
  // NaN params would break the ordering; such runs group under a key with params_b = -1 instead.
  std::map<ConfigKey, GroupRuns> groups;
  result.left_out = left_out_of_summaries(rows);
  for (const auto& r : rows) {
    const bool measured = r.is_measured();
    if (!measured) {
      ++result.not_measured;
      if (!r.is_run_without_energy()) continue;
      ++result.without_energy;
    }
    ConfigKey key = config_key(r);
    if (std::isnan(key.params_b)) key.params_b = -1.0;
    GroupRuns& g = groups[key];
    g.all.push_back(&r);
    if (measured) g.metered.push_back(&r);
  }
  for (auto& [key, group] : groups) {
    const auto& runs = group.all;
    const auto& metered = group.metered;
    ConfigSummary s;
    s.key = key;
    if (s.key.params_b < 0) s.key.params_b = kNaN;
    for (const auto* r : runs) s.n_trials += trials(*r);
    for (const auto* r : metered) s.energy_trials += trials(*r);
    s.vs_fp16_energy_pct = summarize_field(metered, [](auto& r) { return r.vs_fp16_energy_pct; });
    s.energy_j_per_1k_tok = summarize_field(metered, [](auto& r) { return r.energy_j_per_1k_tok; });
    s.fp16_energy_j_per_1k_tok =
        summarize_field(metered, [](auto& r) { return r.fp16_energy_j_per_1k_tok; });
    s.throughput_tok_s = summarize_field(runs, [](auto& r) { return r.throughput_tok_s; });
    s.avg_power_w = summarize_field(metered, [](auto& r) { return r.avg_power_w; });
    s.mean_kl_vs_fp16 = summarize_field(runs, [](auto& r) { return r.mean_kl_vs_fp16; });
    s.top1_agreement_vs_fp16 =
        summarize_field(runs, [](auto& r) { return r.top1_agreement_vs_fp16; });
    const MetricSummary dppl =
        summarize_field(runs, [](auto& r) { return r.delta_perplexity_pct; });
    if (dppl.n > 0) s.delta_perplexity_pct = dppl.mean;
    bool any_ppl = false;
    bool identical = true;
    for (const auto* r : runs) {
      if (!r->perplexity) continue;
      const auto* first = runs.front();
      any_ppl = true;
      if (!first->perplexity || *r->perplexity != *first->perplexity ||
          r->fp16_perplexity != first->fp16_perplexity) {
        identical = false;
      }
    }
    if (any_ppl) s.perplexity_identical = identical;
    for (const auto* r : runs) s.run_ids.push_back(r->run_id);
    result.configs.push_back(std::move(s));
  }
  return result;
}

Table summary_table(const AggregateResult& result) {
  Table t;
  t.name = "summary";
  t.columns = {"params_b",
               "model",
               "precision",
               "n_trials",
               "energy_j_per_1k_tok_mean",
               "energy_j_per_1k_tok_sd",
               "energy_cv_pct",
               "fp16_energy_j_per_1k_tok_mean",
               "fp16_energy_j_per_1k_tok_sd",
               "fp16_energy_cv_pct",
               "vs_fp16_energy_pct_mean",
               "vs_fp16_energy_pct_sd",
               "vs_fp16_energy_cv_pct",
               "throughput_tok_s_mean",
               "throughput_cv_pct",
               "avg_power_w_mean",
               "avg_power_cv_pct",
               "delta_perplexity_pct",
               "perplexity_identical_across_replicates"};
  // The original's value formats: means and SDs to 3 decimals, CVs (%) to 2, yes/no; rows by size.
  std::vector<const ConfigSummary*> order;
  for (const auto& s : result.configs) {
    if (s.energy_trials > 0) order.push_back(&s);
  }
  std::stable_sort(order.begin(), order.end(), [](const ConfigSummary* a, const ConfigSummary* b) {
    auto size = [](double n) {
      return std::isnan(n) ? std::numeric_limits<double>::infinity() : n;
    };
    return std::tuple(size(a->key.params_b), a->key.model, a->key.precision) <
           std::tuple(size(b->key.params_b), b->key.model, b->key.precision);
  });
  auto m3 = [](double v) { return published_round(v, 3); };
  auto cv2 = [](double v) { return published_round(v, 2); };
  for (const ConfigSummary* s : order) {
    store::Value identical;
    if (s->perplexity_identical) identical = std::string(*s->perplexity_identical ? "yes" : "no");
    t.rows.push_back(
        {std::isfinite(s->key.params_b) ? store::Value{s->key.params_b} : store::Value{},
         s->key.model, s->key.precision, static_cast<int64_t>(s->energy_trials),
         m3(s->energy_j_per_1k_tok.mean), m3(s->energy_j_per_1k_tok.sd),
         cv2(s->energy_j_per_1k_tok.cv_pct), m3(s->fp16_energy_j_per_1k_tok.mean),
         m3(s->fp16_energy_j_per_1k_tok.sd), cv2(s->fp16_energy_j_per_1k_tok.cv_pct),
         m3(s->vs_fp16_energy_pct.mean), m3(s->vs_fp16_energy_pct.sd),
         cv2(s->vs_fp16_energy_pct.cv_pct), m3(s->throughput_tok_s.mean),
         cv2(s->throughput_tok_s.cv_pct), m3(s->avg_power_w.mean), cv2(s->avg_power_w.cv_pct),
         s->delta_perplexity_pct ? m3(*s->delta_perplexity_pct) : store::Value{}, identical});
  }
  return t;
}

Table aggregate_table(const AggregateResult& result) {
  Table t;
  t.name = "aggregate";
  t.columns = {"session",  "gpu",       "gpu_arch",      "model",
               "params_b", "precision", "weight_format", "n"};
  const char* metrics[] = {"vs_fp16_energy_pct", "energy_j_per_1k_tok", "fp16_energy_j_per_1k_tok",
                           "throughput_tok_s", "avg_power_w"};
  for (const char* m : metrics) {
    for (const char* stat : {"mean", "sd", "cv_pct", "ci95_low", "ci95_high"}) {
      t.columns.push_back(fmt::format("{}_{}", m, stat));
    }
  }
  for (const char* c : {"delta_perplexity_pct", "perplexity_identical", "mean_kl_vs_fp16",
                        "top1_agreement_vs_fp16", "n_energy"}) {
    t.columns.push_back(c);
  }
  for (const auto& s : result.configs) {
    std::vector<store::Value> row{
        s.key.session,
        s.key.gpu,
        s.key.gpu_arch,
        s.key.model,
        rounded(s.key.params_b),
        s.key.precision,
        s.key.weight_format.empty() ? store::Value{} : s.key.weight_format,
        static_cast<int64_t>(s.n_trials)};
    for (const MetricSummary* m :
         {&s.vs_fp16_energy_pct, &s.energy_j_per_1k_tok, &s.fp16_energy_j_per_1k_tok,
          &s.throughput_tok_s, &s.avg_power_w}) {
      for (double v : {m->mean, m->sd, m->cv_pct, m->ci95.low, m->ci95.high}) {
        row.push_back(rounded(v));
      }
    }
    // Absent unless known; assigned rather than built in a conditional, which GCC 12 misreads
    // as a read of an uninitialised variant (-Wmaybe-uninitialized) in the static build.
    store::Value delta_ppl, identical;
    if (s.delta_perplexity_pct) delta_ppl = rounded(*s.delta_perplexity_pct);
    if (s.perplexity_identical) identical = std::string(*s.perplexity_identical ? "yes" : "no");
    row.push_back(std::move(delta_ppl));
    row.push_back(std::move(identical));
    row.push_back(mean_or_absent(s.mean_kl_vs_fp16));
    row.push_back(mean_or_absent(s.top1_agreement_vs_fp16));
    row.push_back(static_cast<int64_t>(s.energy_trials));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table raw_table(std::span<const store::RunRow> rows) {
  bool with_replicate = false;
  for (const auto& r : rows) with_replicate = with_replicate || r.replicate.has_value();
  Table t;
  t.name = "runs";
  for (auto c : store::published_columns(with_replicate)) t.columns.emplace_back(c);
  for (const auto& r : rows) {
    std::vector<store::Value> row;
    for (auto c : store::published_columns(with_replicate)) {
      row.push_back(store::find_run_field(c)->get(r));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace ec::analysis
