// The optimizer: every candidate scored (energy from the estimate × the FP16 baseline × a batch
// amortization model; VRAM from weights + KV cache; latency from a roofline), sorted by the
// objective with the original's tie-breaks, filtered by the budgets, and the energy–latency
// Pareto front. The grid is small (3 × 6 × 5), so the search is exhaustive and exact.
#include "analysis/optimize.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "analysis/estimate.h"
#include "analysis/js_number.h"
#include "core/error.h"

namespace ec::analysis {

const std::vector<std::string> kObjectives{"min_energy", "min_latency", "max_throughput",
                                           "min_vram"};

namespace {

using nlohmann::json;

// Modelling constants (documented, not measured).
constexpr double kMemoryUtilization = 0.70;   // share of datasheet bandwidth decode reaches
constexpr double kComputeUtilization = 0.30;  // share of tensor throughput decode reaches
constexpr double kKvElementBytes = 2;         // KV cache in FP16
constexpr double kBatchEnergyFixed = 0.35;    // per-token energy share batching amortizes

double bits(const std::string& precision) {
  if (precision == "INT8") return 8;
  if (precision == "NF4") return 4;
  return 16;
}

int basis_rank(const std::string& b) {
  if (b == "measured" || b == "computed") return 3;
  if (b == "interpolated") return 2;
  return 1;
}

std::optional<std::string> worse_basis(const std::optional<std::string>& a,
                                       const std::optional<std::string>& b) {
  if (!a) return b;
  if (!b) return a;
  return basis_rank(*a) <= basis_rank(*b) ? a : b;
}

struct Shape {
  double layers;
  double hidden;
};

// Parameters (billions) → layers and width, for sizing the KV cache only: a table of common
// models, interpolated linearly and rounded.
Shape shape(double n) {
  static const std::array<std::array<double, 3>, 9> table{{{0.5, 24, 896},
                                                           {1.1, 22, 2048},
                                                           {1.5, 28, 1536},
                                                           {3.0, 36, 2048},
                                                           {7.0, 32, 4096},
                                                           {9.0, 48, 4096},
                                                           {14.0, 48, 5120},
                                                           {32.0, 64, 6656},
                                                           {70.0, 80, 8192}}};
  if (n <= table[0][0]) return {table[0][1], table[0][2]};
  for (size_t i = 1; i < table.size(); ++i) {
    if (n <= table[i][0]) {
      const auto& a = table[i - 1];
      const auto& b = table[i];
      const double t = (n - a[0]) / (b[0] - a[0]);
      // Math.round: halves go up.
      return {std::floor(a[1] + (b[1] - a[1]) * t + 0.5),
              std::floor(a[2] + (b[2] - a[2]) * t + 0.5)};
    }
  }
  return {table.back()[1], table.back()[2]};
}

double vram_gb(double n, const std::string& precision, double ctx, double batch) {
  const double weights = n * 1e9 * bits(precision) / 8;
  const Shape s = shape(n);
  const double kv = 2 * s.layers * s.hidden * ctx * batch * kKvElementBytes;
  const double overhead = 0.8e9 + weights * 0.05;  // CUDA context and activations
  return js_round((weights + kv + overhead) / 1e9, 2);
}

// The original optimizer's FP16 baseline: linear between anchors, through zero below the first.
std::optional<double> linear_fp16_baseline(const CurveSet& curves, double n,
                                           const std::string& arch) {
  auto it = curves.fp16_anchors.find(arch);
  if (it == curves.fp16_anchors.end() || it->second.empty()) return std::nullopt;
  const std::vector<std::pair<double, double>> a(it->second.begin(), it->second.end());
  if (n <= a[0].first) return js_round(a[0].second * (n / a[0].first), 2);
  for (size_t i = 1; i < a.size(); ++i) {
    if (n <= a[i].first) {
      const double t = (n - a[i - 1].first) / (a[i].first - a[i - 1].first);
      return js_round(a[i - 1].second + (a[i].second - a[i - 1].second) * t, 2);
    }
  }
  if (a.size() < 2) return a[0].second;
  const auto& last = a.back();
  const auto& prev = a[a.size() - 2];
  const double slope = (last.second - prev.second) / (last.first - prev.first);
  return js_round(last.second + slope * (n - last.first), 2);
}

std::optional<std::string> fp16_basis(const CurveSet& curves, double n, const std::string& arch) {
  auto it = curves.fp16_anchors.find(arch);
  if (it == curves.fp16_anchors.end()) return std::nullopt;
  for (const auto& [size, e] : it->second) {
    if (std::fabs(size - n) < 1e-6) return "measured";
  }
  const auto& range = curves.fp16_ranges.at(arch);
  return n >= range.first && n <= range.second ? "interpolated" : "estimated";
}

struct Candidate {
  std::string precision;
  double batch = 1, context = 2048;
  std::optional<double> energy_j1k, energy_mj;
  double energy_rel_fp16 = 1, delta_pct = 0;
  std::optional<double> latency_ms, throughput;
  std::optional<std::string> bound;
  double vram = 0;
  std::optional<std::string> energy_basis;
  std::string confidence;
  std::optional<std::string> recommendation;
};

json opt(const std::optional<double>& v) {
  return v ? js_json(*v) : json(nullptr);
}
json opt(const std::optional<std::string>& v) {
  return v ? json(*v) : json(nullptr);
}

json candidate_json(const Candidate& c) {
  json o{
      {"precision", c.precision},
      {"batch", js_json(c.batch)},
      {"context", js_json(c.context)},
      {"energy_j_per_1k_tokens", opt(c.energy_j1k)},
      {"energy_mj_per_token", opt(c.energy_mj)},
      {"energy_rel_fp16", js_json(c.energy_rel_fp16)},
      {"delta_pct_vs_fp16", js_json(c.delta_pct)},
      {"latency_ms_per_token", opt(c.latency_ms)},
      {"throughput_tok_s", opt(c.throughput)},
      {"bound", opt(c.bound)},
      {"vram_gb", js_json(c.vram)},
      {"basis",
       {{"energy", opt(c.energy_basis)}, {"latency", "modelled (roofline)"}, {"vram", "computed"}}},
      {"confidence", c.confidence}};
  if (c.recommendation) o["recommendation"] = *c.recommendation;
  return o;
}

json decorate(const Candidate& c, const std::string& role) {
  json o = candidate_json(c);
  o["role"] = role;
  std::string summary =
      c.precision + ", batch=" + js_string(c.batch) + ", context=" + js_string(c.context);
  if (c.energy_j1k) summary += " -> " + js_string(*c.energy_j1k) + " J/1k tok";
  if (c.throughput) summary += ", " + js_string(*c.throughput) + " tok/s";
  if (c.latency_ms) summary += ", " + js_string(*c.latency_ms) + " ms/tok";
  summary += ", " + js_string(c.vram) + " GB";
  o["summary"] = summary;
  return o;
}

Candidate score(const CurveSet& curves, const OptimizeRequest& r, const std::string& precision,
                double batch, double ctx) {
  const double n = r.params_b;
  Candidate c;
  c.precision = precision;
  c.batch = batch;
  c.context = ctx;
  // The pure precision effect at the measurement (batch 1, context 2,048); batch and context enter
  // through the optimizer's own models below, so they are not passed to the estimate twice.
  double delta = 0;
  std::optional<std::string> est_basis = "measured";
  std::string est_confidence = "high";
  if (precision == "FP16") {
    c.recommendation = "baseline";
  } else {
    EstimateInput in;
    in.params_b = n;
    in.arch = r.arch;
    in.precision = precision;
    in.batch = 0;  // the original passes none: the measurement's batch and context
    in.ctx = 0;
    const Estimate e = estimate(curves, in);
    delta = e.delta_pct;
    est_basis = e.basis;
    est_confidence = e.confidence;
    c.recommendation = e.recommendation;
  }
  std::optional<double> base;
  if (r.original_fp16_baseline) {
    base = linear_fp16_baseline(curves, n, r.arch);
  } else if (auto b = fp16_baseline(curves, n, r.arch)) {
    base = b->e_j1k;
  }
  const auto base_basis = fp16_basis(curves, n, r.arch);
  const double factor = 1 + delta / 100;
  const double amortization = (1 - kBatchEnergyFixed) + kBatchEnergyFixed / batch;
  if (base) {
    c.energy_j1k = js_round(*base * factor * amortization, 1);
    c.energy_mj = js_round(*c.energy_j1k / 1000, 3);
  }
  c.energy_rel_fp16 = js_round(factor, 3);
  c.delta_pct = js_round(delta, 1);
  c.vram = vram_gb(n, precision, ctx, batch);
  auto hw = curves.hardware.find(r.arch);
  if (hw != curves.hardware.end()) {
    const double weight_bytes = n * 1e9 * bits(precision) / 8;
    const Shape s = shape(n);
    const double kv_per_sequence = 2 * s.layers * s.hidden * ctx * kKvElementBytes;
    const double bandwidth = hw->second.mem_bw_gbps * 1e9 * kMemoryUtilization;
    const double memory_step = (weight_bytes + batch * kv_per_sequence) / bandwidth;
    const double flops = hw->second.fp16_tflops * 1e12 * kComputeUtilization;
    const double compute_step = batch * (2 * n * 1e9) / flops;
    const double step = std::max(memory_step, compute_step);
    c.latency_ms = js_round(step * 1000, 2);
    c.throughput = js_round(batch / step, 1);
    c.bound = compute_step > memory_step ? "compute" : "memory";
  }
  c.energy_basis = worse_basis(precision == "FP16" ? base_basis : est_basis, base_basis);
  // Overall confidence is the weakest field's: latency is always modelled, so at most medium.
  c.confidence = est_confidence == "high" ? "medium" : est_confidence;
  return c;
}

bool feasible(const Candidate& c, const OptimizeRequest& r) {
  if (r.max_vram_gb && c.vram > *r.max_vram_gb) return false;
  if (r.max_latency_ms && c.latency_ms && *c.latency_ms > *r.max_latency_ms) return false;
  if (r.min_throughput && c.throughput && *c.throughput < *r.min_throughput) return false;
  return true;
}

double violation(const Candidate& c, const OptimizeRequest& r) {
  double v = 0;
  if (r.max_vram_gb && c.vram > *r.max_vram_gb) v += (c.vram - *r.max_vram_gb) / *r.max_vram_gb;
  if (r.max_latency_ms && c.latency_ms && *c.latency_ms > *r.max_latency_ms)
    v += (*c.latency_ms - *r.max_latency_ms) / *r.max_latency_ms;
  if (r.min_throughput && c.throughput && *c.throughput < *r.min_throughput)
    v += (*r.min_throughput - *c.throughput) / *r.min_throughput;
  return v;
}

double objective_key(const std::string& objective, const Candidate& c) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (objective == "min_latency") return c.latency_ms ? *c.latency_ms : kInf;
  if (objective == "max_throughput") return c.throughput ? -*c.throughput : kInf;
  if (objective == "min_vram") return c.vram;
  return c.energy_j1k ? *c.energy_j1k : c.energy_rel_fp16 * 1e9;
}

// JavaScript's `(a - b) / b · 100` to 0.1, null when b is 0 or missing.
json percent(const std::optional<double>& a, const std::optional<double>& b) {
  if (!b || *b == 0) return nullptr;
  return js_json(js_round((a.value_or(0) - *b) / *b * 100, 1));
}

}  // namespace

json optimize(const CurveSet& curves, const OptimizeRequest& r) {
  if (!(r.params_b > 0)) fail("params_b (model size in billions) is required and must be > 0");
  bool known = curves.borrow.contains(r.arch);
  for (const auto& c : curves.curves) known = known || c.arch == r.arch;
  if (!known) fail("no data for arch '{}'", r.arch);

  std::vector<Candidate> all;
  json errors = json::object();
  for (const auto& p : r.precisions) {
    for (double b : r.batches) {
      for (double ctx : r.contexts) {
        try {
          all.push_back(score(curves, r, p, b, ctx));
        } catch (const Error& e) {
          errors[p] = e.what();
        }
      }
    }
  }
  if (all.empty()) fail("no candidates could be scored: {}", errors.dump());

  // The objective first; ties toward lower energy, then lower VRAM, then lower latency. A stable
  // sort, as JavaScript's Array.prototype.sort is.
  auto before = [&](const Candidate& a, const Candidate& b) {
    const double d = objective_key(r.objective, a) - objective_key(r.objective, b);
    if (std::fabs(d) > 1e-9) return d < 0;  // NaN (∞ − ∞) falls through, as in JavaScript
    const double e = a.energy_j1k.value_or(0) - b.energy_j1k.value_or(0);
    if (std::fabs(e) > 1e-9) return e < 0;
    const double v = a.vram - b.vram;
    if (std::fabs(v) > 1e-9) return v < 0;
    return a.latency_ms.value_or(0) - b.latency_ms.value_or(0) < 0;
  };
  std::stable_sort(all.begin(), all.end(), before);

  std::vector<const Candidate*> ok;
  for (const auto& c : all) {
    if (feasible(c, r)) ok.push_back(&c);
  }

  json precisions = r.precisions, batches = json::array(), contexts = json::array();
  for (double b : r.batches) batches.push_back(js_json(b));
  for (double c : r.contexts) contexts.push_back(js_json(c));
  json result{{"input",
               {{"params_b", js_json(r.params_b)},
                {"arch", r.arch},
                {"objective", r.objective},
                {"constraints",
                 {{"max_latency_ms", opt(r.max_latency_ms)},
                  {"max_vram_gb", opt(r.max_vram_gb)},
                  {"min_throughput", opt(r.min_throughput)}}},
                {"grid",
                 {{"precisions", precisions},
                  {"batches", batches},
                  {"contexts", contexts},
                  {"candidates", all.size()}}}}},
              {"basis",
               {{"energy", "measured-anchored (dE% x measured FP16 baseline)"},
                {"latency", "modelled (roofline; datasheet mem-bandwidth/compute)"},
                {"vram", "computed (weights + KV cache)"}}},
              {"feasible_count", ok.size()},
              {"notes", json::array()}};

  if (ok.empty()) {
    std::vector<const Candidate*> by_violation;
    for (const auto& c : all) by_violation.push_back(&c);
    std::stable_sort(by_violation.begin(), by_violation.end(),
                     [&](const Candidate* a, const Candidate* b) {
                       return violation(*a, r) < violation(*b, r);
                     });
    result["recommended"] = nullptr;
    result["closest_infeasible"] = decorate(*by_violation[0], "closest (violates constraints)");
    result["notes"].push_back(
        "No configuration satisfies all constraints. Showing the closest (smallest constraint "
        "violation); consider relaxing the binding budget.");
  } else {
    const Candidate& best = *ok[0];
    result["recommended"] = decorate(best, "objective-optimal under the given constraints");
    json alternatives = json::array();
    for (size_t i = 1; i < ok.size() && i < 4; ++i) {
      const Candidate& c = *ok[i];
      json d = decorate(c, "alternative");
      d["vs_recommended"] = {{"energy_pct", percent(c.energy_j1k, best.energy_j1k)},
                             {"latency_pct", percent(c.latency_ms, best.latency_ms)},
                             {"throughput_pct", percent(c.throughput, best.throughput)},
                             {"vram_pct", percent(c.vram, best.vram)}};
      alternatives.push_back(std::move(d));
    }
    result["alternatives"] = alternatives;
    // Pareto front over (energy, latency), lower is better on both; by energy.
    std::vector<const Candidate*> points, front;
    for (const auto& c : all) {
      if (c.energy_j1k && c.latency_ms) points.push_back(&c);
    }
    for (const auto* c : points) {
      const bool dominated = std::any_of(points.begin(), points.end(), [&](const Candidate* o) {
        return o != c && *o->energy_j1k <= *c->energy_j1k && *o->latency_ms <= *c->latency_ms &&
               (*o->energy_j1k < *c->energy_j1k || *o->latency_ms < *c->latency_ms);
      });
      if (!dominated) front.push_back(c);
    }
    std::stable_sort(front.begin(), front.end(), [](const Candidate* a, const Candidate* b) {
      return *a->energy_j1k < *b->energy_j1k;
    });
    json pareto = json::array();
    for (const auto* c : front) {
      pareto.push_back({{"precision", c->precision},
                        {"batch", js_json(c->batch)},
                        {"context", js_json(c->context)},
                        {"energy_j_per_1k_tokens", opt(c->energy_j1k)},
                        {"latency_ms_per_token", opt(c->latency_ms)},
                        {"throughput_tok_s", opt(c->throughput)},
                        {"vram_gb", js_json(c->vram)}});
    }
    result["pareto_energy_latency"] = pareto;
  }
  result["notes"].push_back(
      "Energy is measured-anchored; latency & throughput are a roofline MODEL (not measured); "
      "VRAM is a standard calculation.");
  result["notes"].push_back(
      "Roofline latency assumes memory-bound decode and ignores dequantization compute overhead, "
      "so quantized-format latency is a best case (lower bound). Energy — which does capture that "
      "overhead — is the measured signal.");
  if (!curves.fp16_anchors.contains(r.arch)) {
    result["notes"].push_back(
        "No measured FP16 energy baseline for this architecture — energy is relative only.");
  }
  result["notes"].push_back(
      "Batch>1 energy uses a conservative amortization model (fixed-overhead fraction 0.35).");
  return result;
}

}  // namespace ec::analysis
