// The estimate and regression grading. The band follows the original estimator: a residual floor of
// 2 points, widened with the log-distance outside the measured range, by 10 points for a borrowed
// shape and by half the savings a modelled batch/context removes; a measured size's band is its
// cards' spread; estimates never promise more savings than the weight-byte bound (−S_cap).
#include "analysis/estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/js_number.h"
#include "core/error.h"

namespace ec::analysis {
namespace {

constexpr double kZ = 1.96;         // the original's two-sided 95 % factor
constexpr double kCtxBase = 2048;   // the measurements' context
constexpr double kBatchHalf = 8;    // the batch at which memory-bound savings about halve
constexpr double kSameSize = 1e-6;  // billions: an anchor at this size

std::string classes(const CurveSet& set) {
  std::string out;
  for (const auto& c : set.curves) out += (out.empty() ? "" : ", ") + c.arch + "/" + c.precision;
  return out;
}

store::Value r2(double v) {
  return std::isfinite(v) ? store::Value{std::round(v * 100) / 100} : store::Value{};
}

// Bits per weight of a weight-only format; anything else counts as FP16.
double bits(const std::string& precision) {
  if (precision == "INT8") return 8;
  if (precision == "NF4") return 4;
  return 16;
}

double weight_gb(double params_b, const std::string& precision) {
  return js_round(params_b * bits(precision) / 8, 2);
}

// The share of the batch-1, 2,048-token savings left at this batch and context: 1 at the
// measurement, shrinking toward zero; a model, never a measurement.
double savings_factor(double batch, double ctx) {
  const double b = batch > 1 ? batch : 1;
  const double c = ctx > kCtxBase ? ctx : kCtxBase;
  return 1 / (1 + (b - 1) / kBatchHalf) / (1 + std::max(0.0, std::log2(c / kCtxBase)) * 0.12);
}

// Math.round(x · 10) / 10 written as JavaScript writes it.
std::string one_decimal(double x) {
  return js_string(std::floor(x * 10 + 0.5) / 10);
}

// An anchor's ΔE as curves.json stores it (0.01 point), so an estimate is the same whether the
// curves were just fitted or read back from the file.
double stored(double delta_pct) {
  return std::round(delta_pct * 100) / 100;
}

std::string signed_whole(double x) {
  return (x >= 0 ? "+" : "") + js_fixed(x, 0);
}

}  // namespace

std::optional<Fp16Baseline> fp16_baseline(const CurveSet& curves, double params_b,
                                          const std::string& arch) {
  auto it = curves.fp16_anchors.find(arch);
  if (it == curves.fp16_anchors.end() || it->second.empty()) return std::nullopt;
  const std::vector<std::pair<double, double>> sorted(it->second.begin(), it->second.end());
  for (const auto& [n, e] : sorted) {
    if (std::fabs(n - params_b) < kSameSize) return Fp16Baseline{e, "measured"};
  }
  if (sorted.size() < 2) return std::nullopt;  // one size: no slope to carry it elsewhere
  const std::pair<double, double>* lo = nullptr;
  const std::pair<double, double>* hi = nullptr;
  for (const auto& p : sorted) {
    if (p.first < params_b) lo = &p;
    if (p.first > params_b && !hi) hi = &p;
  }
  const auto& p0 = lo && hi ? *lo : (!lo ? sorted[0] : sorted[sorted.size() - 2]);
  const auto& p1 = lo && hi ? *hi : (!lo ? sorted[1] : sorted[sorted.size() - 1]);
  const double slope =
      (std::log(p1.second) - std::log(p0.second)) / (std::log(p1.first) - std::log(p0.first));
  const double e =
      std::exp(std::log(p0.second) + slope * (std::log(params_b) - std::log(p0.first)));
  auto range = curves.fp16_ranges.find(arch);
  const double n_min = range != curves.fp16_ranges.end() ? range->second.first : sorted[0].first;
  const double n_max =
      range != curves.fp16_ranges.end() ? range->second.second : sorted.back().first;
  return Fp16Baseline{js_round(e, 1),
                      params_b >= n_min && params_b <= n_max ? "interpolated" : "estimated"};
}

Estimate estimate(const CurveSet& curves, const EstimateInput& in) {
  const double n = in.params_b;
  if (!(n > 0)) fail("params_b must be a positive number of billions, got {}", n);
  Estimate e;
  e.input = in;
  const std::string& precision = in.precision;
  const Curve* c = curves.find(in.arch, precision);
  const Curve* borrowed_from = nullptr;
  if (!c) {
    auto it = curves.borrow.find(in.arch);
    if (it != curves.borrow.end()) borrowed_from = curves.find(it->second, precision);
    if (!borrowed_from) {
      std::string has;
      for (const auto& k : curves.curves) {
        if (k.arch == in.arch) has += (has.empty() ? "" : ", ") + k.precision;
      }
      if (!has.empty()) {
        fail("{} not measured for this architecture ({} has: {})", precision, in.arch, has);
      }
      fail("no curve for this architecture '{}' (curves: {})", in.arch, classes(curves));
    }
    c = borrowed_from;
  }
  e.arch_used = c->arch;
  const double s_cap = curves.s_cap_for(precision);

  double delta = std::max(curve_value(c->fit.params, n), -s_cap);
  std::vector<const FitPoint*> exact;
  if (!borrowed_from) {
    for (const auto& a : c->anchors) {
      if (std::fabs(a.params_b - n) < kSameSize) exact.push_back(&a);
    }
  }
  // A size measured once is an observation, not a distribution: it stays "measured" but never
  // earns "high" confidence. A file that does not give n counts as replicated, as the original.
  const bool single_trial =
      !exact.empty() && std::all_of(exact.begin(), exact.end(),
                                    [](const FitPoint* a) { return a->n > 0 && a->n < 2; });
  double spread = 0.0;
  if (!exact.empty()) {
    // Several cards of one class at this size: their mean, the disagreement carried in the band.
    e.basis = "measured";
    double sum = 0.0, lo = stored(exact[0]->delta_pct), hi = lo;
    for (const auto* a : exact) {
      sum += stored(a->delta_pct);
      lo = std::min(lo, stored(a->delta_pct));
      hi = std::max(hi, stored(a->delta_pct));
    }
    delta = sum / static_cast<double>(exact.size());
    spread = hi - lo;
  } else if (borrowed_from) {
    e.basis = "estimated";
  } else if (n >= c->n_min && n <= c->n_max) {
    e.basis = "interpolated";
  } else {
    e.basis = "estimated";
  }

  const double factor = savings_factor(in.batch, in.ctx);
  e.modelled = factor < 0.999;
  const double delta_base = delta;
  if (e.modelled && delta < 0) delta *= factor;  // only savings shrink; no penalty is invented

  const double base = std::max(c->fit.resid_std, 2.0);
  double distance = 0.0;
  if (n < c->n_min) distance = std::log(c->n_min / n);
  if (n > c->n_max) distance = std::log(n / c->n_max);
  const double extrap = (base + 4) * distance * 1.2;
  const double borrow_term = borrowed_from ? 10.0 : 0.0;
  const double model_term = e.modelled ? std::fabs(delta_base) * (1 - factor) * 0.5 : 0.0;
  double sigma = std::sqrt(base * base + extrap * extrap + borrow_term * borrow_term +
                           model_term * model_term);
  if (e.basis == "measured" && !e.modelled) sigma = std::max(base * 0.5, spread / 2);

  const double lo = std::max(delta - kZ * sigma, -s_cap);
  const double hi = delta + kZ * sigma;
  const double width = hi - lo;

  if (e.basis == "measured" && !e.modelled) {
    // Cards inside a class that disagree by more than 10 points are not a "high" answer.
    e.confidence = spread > 10 || single_trial ? "medium" : "high";
  } else if (borrowed_from) {
    e.confidence = "low";
  } else if (e.basis == "interpolated") {
    e.confidence = width < 12 ? "high" : (width < 22 ? "medium" : "low");
  } else {
    e.confidence = distance < 0.5 && width < 25 ? "medium" : "low";
  }
  if (e.modelled && e.confidence == "high") e.confidence = "medium";
  if (e.modelled && factor < 0.5 && e.confidence == "medium") e.confidence = "low";

  if (hi < 0) {
    e.recommendation = "quantize";
    e.verdict = precision + " ≈ " + js_fixed(delta, 0) + "% energy — saves; worth quantizing.";
  } else if (lo > 0) {
    e.recommendation = "do_not_quantize";
    e.verdict = precision + " ≈ +" + js_fixed(delta, 0) + "% energy — costs more; keep FP16.";
  } else {
    e.recommendation = "depends";
    e.verdict = precision + " ≈ " + (delta >= 0 ? "+" : "") + js_fixed(delta, 0) +
                "% energy, but the range crosses zero — near the crossover; verify on your stack.";
  }

  if (single_trial) {
    std::vector<std::string> gpus;
    for (const auto* a : exact) {
      if (std::find(gpus.begin(), gpus.end(), a->gpu) == gpus.end()) gpus.push_back(a->gpu);
    }
    std::sort(gpus.begin(), gpus.end());
    std::string list;
    for (const auto& g : gpus) list += (list.empty() ? "" : ", ") + g;
    e.notes.push_back("Measured once (n=1) on " + list +
                      ": a single trial with no measured spread, so this is one observation "
                      "rather than a replicated result.");
  }
  if (exact.size() > 1) {
    std::string per_card;
    for (const auto* a : exact) {
      per_card +=
          (per_card.empty() ? "" : ", ") + a->gpu + " " + signed_whole(stored(a->delta_pct)) + "%";
    }
    e.notes.push_back(std::to_string(exact.size()) +
                      " cards in this architecture class measured this size and disagree by " +
                      js_fixed(spread, 0) + " pts (" + per_card +
                      "); the value shown is their mean and the band covers the spread.");
  }
  if (borrowed_from) {
    e.notes.push_back("No measurements for this architecture; curve shape borrowed from " +
                      curves.label(borrowed_from->arch) + " — treat as a rough estimate.");
  }
  if (e.basis == "estimated" && !borrowed_from) {
    e.notes.push_back("Extrapolated beyond the measured range (" + one_decimal(c->n_min) + "–" +
                      one_decimal(c->n_max) + "B); uncertainty is wider.");
  }
  if (e.modelled) {
    e.notes.push_back(
        "Batch/context effect is modelled (batch=" + js_string(in.batch != 0 ? in.batch : 1) +
        ", context=" + js_string(in.ctx != 0 ? in.ctx : kCtxBase) +
        ") — not yet measured; treated as savings shrinking toward zero.");
  }
  if (!c->crossover_b && e.basis != "measured") {
    e.notes.push_back(
        "Crossover is not pinned down within the measured range for this architecture.");
  }

  e.delta_pct = js_round(delta, 1);
  e.ci_low = js_round(lo, 1);
  e.ci_high = js_round(hi, 1);
  e.crossover_b = c->crossover_b;
  e.anchors = c->anchors;
  e.weight_gb = weight_gb(n, precision);
  e.weight_gb_fp16 = weight_gb(n, "FP16");
  // The FP16 baseline of the class asked about: a borrowed shape borrows no energy.
  e.fp16 = fp16_baseline(curves, n, in.arch);
  if (e.fp16 && !e.modelled)
    e.energy_j_per_1k_tok = js_round(e.fp16->e_j1k * (1 + e.delta_pct / 100), 1);
  return e;
}

nlohmann::json estimate_json(const Estimate& e) {
  using nlohmann::json;
  json anchors = json::array();
  for (const auto& a : e.anchors) {
    json o{{"N", js_json(a.params_b)},
           {"dE", js_json(stored(a.delta_pct))},
           {"model", a.model},
           {"gpu", a.gpu}};
    if (a.n > 0) o["n"] = a.n;
    anchors.push_back(std::move(o));
  }
  json out{
      {"input",
       {{"params_b", js_json(e.input.params_b)},
        {"arch", e.input.arch},
        {"precision", e.input.precision},
        {"batch", js_json(e.input.batch)},
        {"ctx", js_json(e.input.ctx)}}},
      {"delta_pct", js_json(e.delta_pct)},
      {"ci", {js_json(e.ci_low), js_json(e.ci_high)}},
      {"basis", e.basis},
      {"confidence", e.confidence},
      {"recommendation", e.recommendation},
      {"verdict", e.verdict},
      {"crossover_b", e.crossover_b ? js_json(*e.crossover_b) : json(nullptr)},
      {"anchors", anchors},
      {"arch_used", e.arch_used},
      {"modelled", e.modelled},
      {"weight_gb", js_json(e.weight_gb)},
      {"weight_gb_fp16", js_json(e.weight_gb_fp16)},
      {"notes", e.notes},
  };
  out["fp16_baseline"] =
      e.fp16 ? json{{"e_j1k", js_json(e.fp16->e_j1k)}, {"basis", e.fp16->basis}} : json(nullptr);
  out["energy_j_per_1k_tok"] =
      e.energy_j_per_1k_tok ? js_json(*e.energy_j_per_1k_tok) : json(nullptr);
  return out;
}

Table estimate_table(const Estimate& e) {
  Table t;
  t.name = "estimate";
  t.columns = {"params_b",
               "arch",
               "precision",
               "batch",
               "ctx",
               "delta_pct",
               "ci_low",
               "ci_high",
               "basis",
               "confidence",
               "recommendation",
               "fp16_energy_j_per_1k_tok",
               "energy_j_per_1k_tok",
               "notes"};
  std::string notes;
  for (const auto& n : e.notes) notes += (notes.empty() ? "" : " ") + n;
  t.rows.push_back({e.input.params_b, e.input.arch, e.input.precision, e.input.batch, e.input.ctx,
                    e.delta_pct, e.ci_low, e.ci_high, e.basis, e.confidence, e.recommendation,
                    e.fp16 ? store::Value{e.fp16->e_j1k} : store::Value{},
                    e.energy_j_per_1k_tok ? store::Value{*e.energy_j_per_1k_tok} : store::Value{},
                    notes});
  return t;
}

nlohmann::json estimate_tables(const CurveSet& curves) {
  using nlohmann::json;
  std::set<double> sizes{0.5, 1.1, 1.5, 3, 7, 8, 9, 13, 14, 32, 34, 70, 180};
  constexpr int kSteps = 48;  // 0.1 → 200 B, about 1.17× apart
  for (int i = 0; i <= kSteps; ++i) {
    const double n = 0.1 * std::pow(2000.0, static_cast<double>(i) / kSteps);
    sizes.insert(std::round(n * 1000) / 1000);
  }
  std::set<std::pair<std::string, std::string>> classes;
  for (const auto& c : curves.curves) {
    classes.insert({c.arch, c.precision});
    for (const auto& a : c.anchors) sizes.insert(a.params_b);
  }
  for (const auto& [to, from] : curves.borrow) {
    for (const auto& c : curves.curves) {
      if (c.arch == from && !curves.find(to, c.precision)) classes.insert({to, c.precision});
    }
  }
  json out = json::object();
  for (const auto& [arch, precision] : classes) {
    json rows = json::array();
    for (double n : sizes) {
      EstimateInput in;
      in.params_b = n;
      in.arch = arch;
      in.precision = precision;
      const Table t = estimate_table(estimate(curves, in));
      json row = json::object();
      for (size_t i = 0; i < t.columns.size(); ++i) {
        const store::Value& v = t.rows[0][i];
        if (const auto* d = std::get_if<double>(&v)) {
          row[t.columns[i]] = js_json(*d);
        } else if (const auto* str = std::get_if<std::string>(&v)) {
          row[t.columns[i]] = *str;
        } else {
          row[t.columns[i]] = nullptr;
        }
      }
      rows.push_back(std::move(row));
    }
    out[arch + "/" + precision] = std::move(rows);
  }
  return out;
}

nlohmann::json architectures_json(const CurveSet& curves) {
  using nlohmann::json;
  json out = json::object();
  for (const auto& c : curves.curves) {
    json& a = out[c.arch];
    a["label"] = curves.label(c.arch);
    a["precisions"][c.precision] = {
        {"measured_range_b", {js_json(c.n_min), js_json(c.n_max)}},
        {"crossover_b", c.crossover_b ? js_json(*c.crossover_b) : json(nullptr)}};
  }
  for (const auto& [to, from] : curves.borrow) {
    if (!out.contains(to)) {
      out[to] = {
          {"label", curves.label(to)}, {"borrows_from", from}, {"precisions", json::object()}};
    }
  }
  return out;
}

RegressionCheck check_regression(const CurveSet& curves, const store::RunRow& report, double k) {
  if (!report.is_measured()) {
    fail("{}: not a measurement ({}): only a measurement can be graded", report.source_path,
         report.why_not_measured());
  }
  if (!report.vs_fp16_energy_pct || !report.params_b) {
    fail("{}: the report has no vs_fp16_energy_pct or params_b to grade", report.source_path);
  }
  const Curve* c = curves.find(report.gpu_arch, report.precision);
  if (!c) {
    fail("{}: no curve for {} {} (curves: {})", report.source_path, report.gpu_arch,
         report.precision, classes(curves));
  }
  RegressionCheck r;
  r.measured_pct = *report.vs_fp16_energy_pct;
  r.band_pp = k * c->fit.resid_std;
  double sum = 0.0;
  int count = 0;
  for (const auto& a : c->anchors) {
    if (std::fabs(a.params_b - *report.params_b) < 1e-6) {
      sum += a.delta_pct;
      ++count;
    }
  }
  if (count > 0) {
    r.against = "anchors";
    r.expected_pct = sum / count;
  } else {
    r.against = "curve";
    r.expected_pct = curve_value(c->fit.params, *report.params_b);
  }
  r.deviation_pp = r.measured_pct - r.expected_pct;
  if (r.deviation_pp > r.band_pp) {
    r.verdict = "regression";
  } else if (r.deviation_pp < -r.band_pp) {
    r.verdict = "improvement";
  } else {
    r.verdict = "within";
  }
  return r;
}

Table regression_table(const RegressionCheck& r, const store::RunRow& report) {
  Table t;
  t.name = "regression";
  t.columns = {"run_id",       "gpu_arch", "params_b", "precision",    "measured_pct",
               "expected_pct", "against",  "band_pp",  "deviation_pp", "verdict"};
  t.rows.push_back({report.run_id, report.gpu_arch, report.params_b.value_or(NAN), report.precision,
                    r2(r.measured_pct), r2(r.expected_pct), r.against, r2(r.band_pp),
                    r2(r.deviation_pp), r.verdict});
  return t;
}

}  // namespace ec::analysis
