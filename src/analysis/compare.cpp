// Session comparison; statistics from stats.h, pairing by normalised configuration names.
#include "analysis/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include "core/trim.h"

namespace ec::analysis {
namespace {

// Runs of one side that share GPU, precision, format and size; by normalised model name.
using Bucket = std::tuple<std::string, std::string, std::string, double>;
using Groups = std::map<Bucket, std::map<std::string, std::vector<const store::RunRow*>>>;

Groups by_configuration(std::span<const store::RunRow> rows) {
  Groups out;
  for (const auto& r : rows) {
    const bool energy = r.is_measured() && r.vs_fp16_energy_pct;
    if (!energy && !r.is_run_without_energy()) continue;
    out[{normalised_gpu(r.gpu), r.precision, r.weight_format, r.params_b.value_or(-1.0)}]
       [normalised_model(r.model)]
           .push_back(&r);
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

// The runs an energy meter measured: the only ones energy figures come from.
std::vector<const store::RunRow*> metered(const std::vector<const store::RunRow*>& runs) {
  std::vector<const store::RunRow*> out;
  for (const auto* r : runs) {
    if (r->is_measured()) out.push_back(r);
  }
  return out;
}

std::string label(const store::RunRow& r) {
  return config_key(r).configuration_label();
}

ConfigComparison compare_runs(const std::vector<const store::RunRow*>& runs_a,
                              const std::vector<const store::RunRow*>& runs_b) {
  ConfigComparison c;
  c.configuration = label(*runs_a.front());
  if (label(*runs_b.front()) != c.configuration) c.matched_as = label(*runs_b.front());
  c.params_b = runs_a.front()->params_b.value_or(NAN);
  c.runs_a = runs_a.size();
  c.runs_b = runs_b.size();
  const auto ma = metered(runs_a);
  const auto mb = metered(runs_b);
  const auto da = values(ma, [](auto& r) { return r.vs_fp16_energy_pct; });
  const auto db = values(mb, [](auto& r) { return r.vs_fp16_energy_pct; });
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
  const double ea = mean(values(ma, [](auto& r) { return r.energy_j_per_1k_tok; }));
  const double eb = mean(values(mb, [](auto& r) { return r.energy_j_per_1k_tok; }));
  const double fa = mean(values(ma, [](auto& r) { return r.fp16_energy_j_per_1k_tok; }));
  const double fb = mean(values(mb, [](auto& r) { return r.fp16_energy_j_per_1k_tok; }));
  c.energy_drift_pct = (eb / ea - 1.0) * 100.0;
  c.fp16_energy_drift_pct = (fb / fa - 1.0) * 100.0;
  c.kl_a = summarize(values(runs_a, [](auto& r) { return r.mean_kl_vs_fp16; }));
  c.kl_b = summarize(values(runs_b, [](auto& r) { return r.mean_kl_vs_fp16; }));
  c.top1_a = summarize(values(runs_a, [](auto& r) { return r.top1_agreement_vs_fp16; }));
  c.top1_b = summarize(values(runs_b, [](auto& r) { return r.top1_agreement_vs_fp16; }));
  return c;
}

}  // namespace

std::string normalised_gpu(std::string_view gpu) {
  std::string out;
  for (size_t i = 0; i < gpu.size();) {
    const size_t end = std::min(gpu.find(' ', i), gpu.size());
    const std::string word = ascii_lower(gpu.substr(i, end - i));
    if (!word.empty() && word != "nvidia" && word != "geforce") {
      out += (out.empty() ? "" : " ") + word;
    }
    i = end + 1;
  }
  return out;
}

std::string normalised_model(std::string_view model) {
  const size_t slash = model.rfind('/');
  return ascii_lower(slash == std::string_view::npos ? model : model.substr(slash + 1));
}

bool same_model(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.substr(0, a.size()) == a && (b.size() == a.size() || b[a.size()] == '-');
}

Comparison compare_sets(std::span<const store::RunRow> a, std::span<const store::RunRow> b,
                        const std::set<std::string>& accept) {
  Comparison out;
  out.stacks = compare_version_stacks(a, b, accept);
  out.left_out_a = left_out_of_summaries(a);
  out.left_out_b = left_out_of_summaries(b);
  const Groups ga = by_configuration(a);
  const Groups gb = by_configuration(b);
  std::set<std::pair<Bucket, std::string>> matched_b;
  for (const auto& [bucket, models_a] : ga) {
    const auto it = gb.find(bucket);
    for (const auto& [model_a, runs_a] : models_a) {
      const std::vector<const store::RunRow*>* runs_b = nullptr;
      if (it != gb.end()) {
        // The same name first, else one that extends it (or that it extends).
        if (auto exact = it->second.find(model_a); exact != it->second.end()) {
          runs_b = &exact->second;
          matched_b.insert({bucket, model_a});
        } else {
          for (const auto& [model_b, runs] : it->second) {
            if (!matched_b.count({bucket, model_b}) && same_model(model_a, model_b)) {
              runs_b = &runs;
              matched_b.insert({bucket, model_b});
              break;
            }
          }
        }
      }
      if (runs_b) {
        out.configs.push_back(compare_runs(runs_a, *runs_b));
      } else {
        out.only_a.push_back(label(*runs_a.front()));
      }
    }
  }
  for (const auto& [bucket, models_b] : gb) {
    for (const auto& [model_b, runs] : models_b) {
      if (!matched_b.count({bucket, model_b})) out.only_b.push_back(label(*runs.front()));
    }
  }
  // By size, then name: the order people read a size sweep in.
  std::stable_sort(out.configs.begin(), out.configs.end(),
                   [](const ConfigComparison& x, const ConfigComparison& y) {
                     return std::tie(x.params_b, x.configuration) <
                            std::tie(y.params_b, y.configuration);
                   });
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
               "fp16_energy_drift_pct",
               "b_names_it",
               "kl_a_mean",
               "kl_b_mean",
               "top1_a_mean",
               "top1_b_mean"};
  auto r4 = [](double v) -> store::Value {
    if (!std::isfinite(v)) return {};
    return std::round(v * 1e4) / 1e4;
  };
  auto mean4 = [&](const MetricSummary& m) { return m.n == 0 ? store::Value{} : r4(m.mean); };
  for (const auto& x : c.configs) {
    t.rows.push_back({x.configuration,
                      r4(x.params_b),
                      static_cast<int64_t>(x.runs_a),
                      r4(x.delta_a.mean),
                      r4(x.delta_a.sd),
                      static_cast<int64_t>(x.runs_b),
                      r4(x.delta_b.mean),
                      r4(x.delta_b.sd),
                      r4(x.gap_pp),
                      r4(x.noise_pp),
                      r4(x.gap_in_noise),
                      r4(x.welch.t),
                      r4(x.welch.df),
                      r4(x.welch.p_two_sided),
                      r4(x.energy_drift_pct),
                      r4(x.fp16_energy_drift_pct),
                      x.matched_as.empty() ? store::Value{} : store::Value{x.matched_as},
                      mean4(x.kl_a),
                      mean4(x.kl_b),
                      mean4(x.top1_a),
                      mean4(x.top1_b)});
  }
  return t;
}

}  // namespace ec::analysis
