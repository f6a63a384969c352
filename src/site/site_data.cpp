// Building the site's data document from analysis results; every number is computed by
// src/analysis, this file only arranges them for the pages.
#include "site/site_data.h"

#include "analysis/estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/aggregate.h"
#include "analysis/compare.h"

namespace ec::site {
namespace {

using nlohmann::json;

// NaN/absent are `null` in the data, never 0.
json num(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}
template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json metric(const analysis::MetricSummary& m) {
  if (m.n == 0) return nullptr;
  return {{"n", m.n},
          {"mean", num(m.mean)},
          {"sd", num(m.sd)},
          {"cv_pct", num(m.cv_pct)},
          {"ci_low", num(m.ci95.low)},
          {"ci_high", num(m.ci95.high)}};
}

json config_json(const analysis::ConfigSummary& c) {
  return {{"gpu", c.key.gpu},
          {"gpu_arch", c.key.gpu_arch},
          {"model", c.key.model},
          {"params_b", num(c.key.params_b)},
          {"precision", c.key.precision},
          {"weight_format", c.key.weight_format},
          {"session", c.key.session},
          {"configuration", c.key.configuration_label()},
          {"n", c.n_trials},
          {"delta_pct", metric(c.vs_fp16_energy_pct)},
          {"energy_j_per_1k_tok", metric(c.energy_j_per_1k_tok)},
          {"fp16_energy_j_per_1k_tok", metric(c.fp16_energy_j_per_1k_tok)},
          {"throughput_tok_s", metric(c.throughput_tok_s)},
          {"avg_power_w", metric(c.avg_power_w)},
          {"delta_perplexity_pct", opt(c.delta_perplexity_pct)},
          {"perplexity_identical", opt(c.perplexity_identical)},
          {"mean_kl_vs_fp16", metric(c.mean_kl_vs_fp16)},
          {"top1_agreement_vs_fp16", metric(c.top1_agreement_vs_fp16)},
          {"n_energy", c.energy_trials},
          {"run_ids", c.run_ids}};
}

json comparison_json(const std::string& a, const std::string& b, const analysis::Comparison& c) {
  json rows = json::array();
  for (const auto& r : c.configs) {
    rows.push_back({{"configuration", r.configuration},
                    {"params_b", num(r.params_b)},
                    {"a", metric(r.delta_a)},
                    {"b", metric(r.delta_b)},
                    {"gap_pp", num(r.gap_pp)},
                    {"noise_pp", num(r.noise_pp)},
                    {"gap_in_noise", num(r.gap_in_noise)},
                    {"welch_t", num(r.welch.t)},
                    {"welch_df", num(r.welch.df)},
                    {"welch_p", num(r.welch.p_two_sided)},
                    {"energy_drift_pct", num(r.energy_drift_pct)},
                    {"fp16_energy_drift_pct", num(r.fp16_energy_drift_pct)},
                    {"kl_a", metric(r.kl_a)},
                    {"kl_b", metric(r.kl_b)},
                    {"top1_a", metric(r.top1_a)},
                    {"top1_b", metric(r.top1_b)}});
  }
  return {{"a", a},
          {"b", b},
          {"comparable", c.stacks.comparable},
          {"verdict", c.stacks.verdict()},
          {"differences", c.stacks.differences},
          {"rows", rows},
          {"only_a", c.only_a},
          {"only_b", c.only_b}};
}

// Distinct values of a setting across runs, with how many runs used each: the method page states
// what the data used, and a setting that varies shows every value.
class SettingCounter {
 public:
  void add(const std::string& name, const store::Value& v) {
    std::string text;
    if (auto* s = std::get_if<std::string>(&v)) text = *s;
    if (auto* d = std::get_if<double>(&v)) text = fmt::format("{:g}", *d);
    if (auto* i = std::get_if<int64_t>(&v)) text = std::to_string(*i);
    if (text.empty()) text = "(not recorded)";
    ++counts_[name][text];
    if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
  }
  json to_json() const {
    json out = json::array();
    for (const auto& name : order_) {
      json values = json::array();
      for (const auto& [v, n] : counts_.at(name)) values.push_back({{"value", v}, {"runs", n}});
      out.push_back({{"name", name}, {"values", values}});
    }
    return out;
  }

 private:
  std::map<std::string, std::map<std::string, size_t>> counts_;
  std::vector<std::string> order_;
};

json method_json(std::span<const store::RunRow> runs) {
  static const char* const kProtocol[] = {
      "batch_size", "context_length", "generated_tokens_per_iter", "decode_iterations", "warmup"};
  static const char* const kMeter[] = {"measurement_source", "sampling_rate_hz"};
  static const char* const kQuality[] = {"quality_corpus_sha256", "quality_tokens_evaluated",
                                         "quality_seq_len"};
  std::map<std::string, std::vector<const store::RunRow*>> by_session;
  for (const auto& r : runs) {
    if (r.is_measured()) by_session[r.session].push_back(&r);
  }
  json sessions = json::array();
  for (const auto& [session, rows] : by_session) {
    SettingCounter protocol, meter, quality, versions;
    auto field = [](const char* name, const store::RunRow& r) {
      return store::find_run_field(name)->get(r);
    };
    std::set<std::string> version_keys;
    for (const auto* r : rows) {
      for (const char* f : kProtocol) protocol.add(f, field(f, *r));
      for (const char* f : kMeter) meter.add(f, field(f, *r));
      for (const auto& [k, v] : r->versions) {
        if (k.starts_with("meter.")) meter.add(k, v);
      }
      meter.add("quantization_backend", r->quantization_backend);
      for (const char* f : kQuality) quality.add(f, field(f, *r));
      for (const auto& [k, v] : r->versions) version_keys.insert(k);
    }
    for (const auto& k : version_keys) {
      if (k.starts_with("meter.")) continue;
      for (const auto* r : rows) {
        auto it = r->versions.find(k);
        versions.add(k, it == r->versions.end() ? store::Value{} : store::Value{it->second});
      }
    }
    std::set<std::string> gpus, precisions;
    for (const auto* r : rows) {
      gpus.insert(r->gpu);
      precisions.insert(r->precision);
    }
    sessions.push_back({{"session", session},
                        {"runs", rows.size()},
                        {"gpus", gpus},
                        {"precisions", precisions},
                        {"protocol", protocol.to_json()},
                        {"meter", meter.to_json()},
                        {"quality", quality.to_json()},
                        {"versions", versions.to_json()}});
  }
  return sessions;
}

json run_json(const store::RunRow& r) {
  return {{"run_id", r.run_id},
          {"session", r.session},
          {"gpu", r.gpu},
          {"gpu_arch", r.gpu_arch},
          {"model", r.model},
          {"params_b", opt(r.params_b)},
          {"precision", r.precision},
          {"basis", r.basis},
          {"vs_fp16_energy_pct", opt(r.vs_fp16_energy_pct)},
          {"source_path", r.source_path},
          {"measurement_source", r.measurement_source},
          {"why", r.why_not_measured()}};
}

}  // namespace

json site_data(const SiteInput& input, const std::string& generated_utc) {
  json out;
  out["generated_utc"] = generated_utc;
  const analysis::AggregateResult agg = analysis::aggregate(input.runs);
  json configs = json::array();
  for (const auto& c : agg.configs) configs.push_back(config_json(c));
  out["configs"] = configs;

  std::map<std::string, std::vector<store::RunRow>> by_session;
  json not_measured = json::array();
  for (const auto& r : input.runs) {
    if (r.is_measured()) {
      by_session[r.session].push_back(r);
    } else {
      not_measured.push_back(run_json(r));
    }
  }
  out["not_measured"] = not_measured;
  // Every run that is not an energy measurement, by why: runs without a meter are counted here
  // too, although their configurations show throughput and quality.
  json left_out = json::array();
  for (const auto& g : analysis::left_out(input.runs)) {
    left_out.push_back({{"reason", g.reason}, {"runs", g.runs}});
  }
  out["left_out"] = left_out;
  json sessions = json::array();
  for (const auto& [name, rows] : by_session) {
    size_t n_configs = 0;
    for (const auto& c : agg.configs) n_configs += c.key.session == name ? 1 : 0;
    sessions.push_back({{"session", name}, {"runs", rows.size()}, {"configs", n_configs}});
  }
  out["sessions"] = sessions;

  // Every pair of sessions that share a configuration; a bounded number so a large store still
  // gives a page people can read.
  constexpr size_t kMaxComparisons = 60;
  json comparisons = json::array();
  for (auto a = by_session.begin(); a != by_session.end(); ++a) {
    for (auto b = std::next(a); b != by_session.end(); ++b) {
      if (comparisons.size() >= kMaxComparisons) break;
      const analysis::Comparison c = analysis::compare_sets(a->second, b->second);
      if (!c.configs.empty()) comparisons.push_back(comparison_json(a->first, b->first, c));
    }
  }
  out["comparisons"] = comparisons;
  out["method"] = method_json(input.runs);
  out["counts"] = {{"runs", input.runs.size()},
                   {"measured", input.runs.size() - agg.not_measured},
                   {"not_measured", agg.not_measured},
                   {"configs", agg.configs.size()},
                   {"sessions", by_session.size()}};
  out["curves"] = input.curves ? analysis::curves_to_json(*input.curves) : json(nullptr);
  out["curves_source"] = input.curves_source;
  // The estimate page and the overview's curves read these rows; the browser computes nothing.
  out["estimates"] = input.curves ? analysis::estimate_tables(*input.curves) : json(nullptr);
  out["problems"] = input.problems;
  out["warnings"] = input.warnings;
  return out;
}

}  // namespace ec::site
