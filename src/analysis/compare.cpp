// Session comparison; statistics from stats.h, pairing by configuration label.
#include "analysis/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace ec::analysis {
namespace {

// The per-run fields that are readings, not versions, never enter the stack comparison.
std::map<std::string, std::set<std::string>> stack_values(std::span<const store::RunRow> rows) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& r : rows) {
    if (!r.is_measured()) continue;
    for (const auto& [k, v] : r.versions) out[k].insert(v);
    if (!r.quantization_backend.empty()) out["quantization_backend"].insert(r.quantization_backend);
    if (!r.quality_corpus_sha256.empty())
      out["quality_corpus_sha256"].insert(r.quality_corpus_sha256);
  }
  return out;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& v : s) out += (out.empty() ? "" : "|") + v;
  return out;
}

using PairKey = std::pair<std::string, double>;

std::map<PairKey, std::vector<const store::RunRow*>> by_configuration(
    std::span<const store::RunRow> rows) {
  std::map<PairKey, std::vector<const store::RunRow*>> out;
  for (const auto& r : rows) {
    if (!r.is_measured() || !r.vs_fp16_energy_pct) continue;
    out[{config_key(r).configuration_label(), r.params_b.value_or(-1.0)}].push_back(&r);
  }
  return out;
}

template <class Get>
std::vector<double> values(const std::vector<const store::RunRow*>& runs, Get get) {
  std::vector<double> v;
  for (const auto* r : runs) {
    if (auto x = get(*r)) v.push_back(*x);
  }
  return v;
}

}  // namespace

std::string Comparability::verdict() const {
  if (!comparable) {
    std::string why;
    for (const auto& d : differences) why += (why.empty() ? "" : "; ") + d;
    return "NOT comparable — the version stacks differ (" + why +
           "); numbers from these sessions must not be pooled";
  }
  if (!unknown.empty()) {
    return fmt::format("comparable as far as recorded; {} version(s) recorded on one side only",
                       unknown.size());
  }
  return "comparable: every recorded version agrees";
}

Comparability compare_version_stacks(std::span<const store::RunRow> a,
                                     std::span<const store::RunRow> b) {
  Comparability c;
  const auto va = stack_values(a);
  const auto vb = stack_values(b);
  for (const auto& [key, values_a] : va) {
    auto it = vb.find(key);
    if (it == vb.end()) {
      c.unknown.push_back(key);
    } else if (values_a != it->second || values_a.size() > 1) {
      // A side that mixes versions internally is no single stack either.
      c.comparable = false;
      c.differences.push_back(
          fmt::format("{}: {} vs {}", key, joined(values_a), joined(it->second)));
    }
  }
  for (const auto& [key, values_b] : vb) {
    if (!va.count(key)) c.unknown.push_back(key);
  }
  return c;
}

Comparison compare_sets(std::span<const store::RunRow> a, std::span<const store::RunRow> b) {
  Comparison out;
  out.stacks = compare_version_stacks(a, b);
  const auto ga = by_configuration(a);
  const auto gb = by_configuration(b);
  for (const auto& [key, runs_a] : ga) {
    auto it = gb.find(key);
    if (it == gb.end()) {
      out.only_a.push_back(key.first);
      continue;
    }
    const auto& runs_b = it->second;
    ConfigComparison c;
    c.configuration = key.first;
    c.params_b = key.second;
    const auto da = values(runs_a, [](auto& r) { return r.vs_fp16_energy_pct; });
    const auto db = values(runs_b, [](auto& r) { return r.vs_fp16_energy_pct; });
    c.delta_a = summarize(da);
    c.delta_b = summarize(db);
    c.gap_pp = c.delta_b.mean - c.delta_a.mean;
    // Noise: the quadratic mean of the SDs that exist (one side with n = 1 contributes nothing).
    double ss = 0.0;
    int k = 0;
    for (double sd : {c.delta_a.sd, c.delta_b.sd}) {
      if (std::isfinite(sd)) {
        ss += sd * sd;
        ++k;
      }
    }
    c.noise_pp = k ? std::sqrt(ss / k) : NAN;
    c.gap_in_noise = c.noise_pp > 0 ? std::fabs(c.gap_pp) / c.noise_pp : NAN;
    c.welch = welch_t_test(da, db);
    const double ea = mean(values(runs_a, [](auto& r) { return r.energy_j_per_1k_tok; }));
    const double eb = mean(values(runs_b, [](auto& r) { return r.energy_j_per_1k_tok; }));
    const double fa = mean(values(runs_a, [](auto& r) { return r.fp16_energy_j_per_1k_tok; }));
    const double fb = mean(values(runs_b, [](auto& r) { return r.fp16_energy_j_per_1k_tok; }));
    c.energy_drift_pct = (eb / ea - 1.0) * 100.0;
    c.fp16_energy_drift_pct = (fb / fa - 1.0) * 100.0;
    out.configs.push_back(std::move(c));
  }
  for (const auto& [key, runs] : gb) {
    if (!ga.count(key)) out.only_b.push_back(key.first);
  }
  return out;
}

Table comparison_table(const Comparison& c) {
  Table t;
  t.name = "comparison";
  t.columns = {"configuration",
               "params_b",
               "n_a",
               "delta_a_mean",
               "delta_a_sd",
               "n_b",
               "delta_b_mean",
               "delta_b_sd",
               "gap_pp",
               "noise_pp",
               "gap_in_noise",
               "welch_t",
               "welch_df",
               "welch_p",
               "energy_drift_pct",
               "fp16_energy_drift_pct"};
  auto r4 = [](double v) -> store::Value {
    if (!std::isfinite(v)) return {};
    return std::round(v * 1e4) / 1e4;
  };
  for (const auto& x : c.configs) {
    t.rows.push_back({x.configuration, r4(x.params_b), static_cast<int64_t>(x.delta_a.n),
                      r4(x.delta_a.mean), r4(x.delta_a.sd), static_cast<int64_t>(x.delta_b.n),
                      r4(x.delta_b.mean), r4(x.delta_b.sd), r4(x.gap_pp), r4(x.noise_pp),
                      r4(x.gap_in_noise), r4(x.welch.t), r4(x.welch.df), r4(x.welch.p_two_sided),
                      r4(x.energy_drift_pct), r4(x.fp16_energy_drift_pct)});
  }
  return t;
}

}  // namespace ec::analysis
