// The consistency checks every report must pass beyond its schema (docs/report-format.md lists
// them).
#include "report/consistency.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "report/energy_json.h"

namespace ec::report {
namespace {

using nlohmann::json;

const json* find(const json& doc, const std::string& pointer) {
  try {
    const json::json_pointer p(pointer);
    return doc.contains(p) ? &doc.at(p) : nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::optional<double> number(const json& doc, const std::string& pointer) {
  const json* v = find(doc, pointer);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::optional<std::string> text(const json& doc, const std::string& pointer) {
  const json* v = find(doc, pointer);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

bool present_non_null(const json& doc, const std::string& pointer) {
  const json* v = find(doc, pointer);
  return v != nullptr && !v->is_null();
}

double relative_difference(double a, double b) {
  const double scale = std::max(std::abs(a), std::abs(b));
  return scale == 0.0 ? 0.0 : std::abs(a - b) / scale;
}

class Checker {
 public:
  Checker(const json& doc, std::string_view source) : doc_(doc), source_(source) {}

  template <class... Args>
  void failure(const std::string& pointer, fmt::format_string<Args...> format, Args&&... args) {
    failures_.push_back(fmt::format("{}: {}: {}", source_, pointer,
                                    fmt::format(format, std::forward<Args>(args)...)));
  }

  // Totals of one results block against each other: energy/token vs power/throughput, the mJ
  // figure, throughput and power against seconds.
  void results_arithmetic(const std::string& side) {
    const std::string r = side + "/results";
    auto total = number(doc_, r + "/total_energy_joules");
    auto tokens = number(doc_, r + "/tokens_generated");
    auto mj = number(doc_, r + "/energy_per_token_mj");
    auto power = number(doc_, r + "/avg_power_watts");
    auto tps = number(doc_, r + "/throughput_tokens_per_s");
    auto seconds = number(doc_, r + "/seconds");

    if (total && tokens && *tokens > 0 && power && tps && *tps > 0.0) {
      const double from_energy = *total / *tokens;
      const double from_power = *power / *tps;
      const double diff = relative_difference(from_energy, from_power);
      if (diff > kEnergyPowerTolerance) {
        failure(
            r + "/avg_power_watts",
            "total_energy_joules / tokens_generated = {:.6g} J/token but avg_power_watts / "
            "throughput_tokens_per_s = {:.6g} J/token: they differ by {:.2f} % (limit {:.0f} %)",
            from_energy, from_power, diff * 100.0, kEnergyPowerTolerance * 100.0);
      }
    }
    if (total && tokens && *tokens > 0 && mj) {
      const double expected = *total / *tokens * 1000.0;
      const double tolerance =
          std::max(0.005 * std::abs(expected),
                   rounding_half_unit(*mj) + 1000.0 * rounding_half_unit(*total) / *tokens);
      if (std::abs(*mj - expected) > tolerance) {
        failure(r + "/energy_per_token_mj",
                "{} mJ/token but total_energy_joules / tokens_generated x 1000 = {:.6g}", *mj,
                expected);
      }
    }
    if (seconds && *seconds > 0.0 && tokens && tps) {
      const double expected = *tokens / *seconds;
      if (relative_difference(*tps, expected) >
          kSumTolerance + rounding_half_unit(*tps) / expected) {
        failure(r + "/throughput_tokens_per_s",
                "{} tokens/s but tokens_generated / seconds = {:.6g}", *tps, expected);
      }
    }
    if (seconds && *seconds > 0.0 && total && power) {
      const double expected = *total / *seconds;
      if (expected > 0.0 && relative_difference(*power, expected) >
                                kSumTolerance + rounding_half_unit(*power) / expected) {
        failure(r + "/avg_power_watts", "{} W but total_energy_joules / seconds = {:.6g} W", *power,
                expected);
      }
    }
  }

  // vs_fp16_energy_pct recomputed from its parts, and the FP16 figure against the baseline block.
  void fp16_delta() {
    auto pct = number(doc_, "/results/vs_fp16_energy_pct");
    auto e = number(doc_, "/results/energy_per_token_mj");
    auto e0 = number(doc_, "/results/fp16_energy_per_token_mj");
    if (pct && !e0) {
      failure("/results/vs_fp16_energy_pct",
              "given ({}) without results.fp16_energy_per_token_mj to compute it from", *pct);
    }
    if (pct && e && e0 && *e0 > 0.0) {
      const double expected = (*e / *e0 - 1.0) * 100.0;
      const double tolerance =
          rounding_half_unit(*pct) +
          100.0 * (rounding_half_unit(*e) / *e0 + *e * rounding_half_unit(*e0) / (*e0 * *e0)) +
          1e-6 * std::abs(expected);
      if (std::abs(*pct - expected) > tolerance) {
        failure("/results/vs_fp16_energy_pct",
                "{} % but (energy_per_token_mj / fp16_energy_per_token_mj - 1) x 100 = {:.4f} %",
                *pct, expected);
      }
    }
    const bool ours = present_non_null(doc_, "/report_format");
    const bool has_baseline = present_non_null(doc_, "/baseline");
    if (ours && (pct || e0) && !has_baseline) {
      failure("/baseline",
              "missing, but results carry an FP16 comparison: the baseline must be measured in the "
              "same run and recorded");
    }
    if (has_baseline) {
      auto base = number(doc_, "/baseline/results/energy_per_token_mj");
      if (e0 && base && relative_difference(*e0, *base) > 1e-6 + rounding_half_unit(*e0) / *base) {
        failure("/results/fp16_energy_per_token_mj",
                "{} but the baseline measured baseline.results.energy_per_token_mj = {}", *e0,
                *base);
      }
      if (text(doc_, "/results/basis") == "measured" && pct &&
          text(doc_, "/baseline/results/basis") != "measured") {
        failure("/baseline/results/basis",
                "the FP16 comparison is labelled measured but its baseline is '{}'",
                text(doc_, "/baseline/results/basis").value_or("absent"));
      }
    }
  }

  // What `measured` and `unavailable` promise about sources and nulls.
  void basis(const std::string& side) {
    const std::string r = side + "/results";
    auto basis = text(doc_, r + "/basis");
    if (!basis) return;
    const char* energies[] = {"total_energy_joules", "energy_per_token_mj", "avg_power_watts"};
    if (*basis == "measured") {
      const std::string why =
          why_not_a_measurement(*basis, text(doc_, "/measurement_source").value_or(""));
      if (!why.empty()) failure("/measurement_source", "basis is measured, but {}", why);
      if (const json* m = find(doc_, "/meter/measures_energy"); m && m->is_boolean() && !*m) {
        failure("/meter/measures_energy", "false, but {}/basis is measured", r);
      }
      for (const char* field : energies) {
        const json* v = find(doc_, r + "/" + field);
        // The original schema leaves total and power optional; when written they must be numbers.
        const bool required =
            std::string(field) == "energy_per_token_mj" || present_non_null(doc_, "/report_format");
        if ((v == nullptr && required) || (v != nullptr && !v->is_number())) {
          failure(r + "/" + field, "basis is measured but the value is {}",
                  v == nullptr ? "missing" : v->dump());
        }
      }
      each_iteration(side, [&](const std::string& at, const json& it) {
        if (it.contains("energy_j") && !it["energy_j"].is_number()) {
          failure(at + "/energy_j", "basis is measured but this iteration has no energy");
        }
      });
    } else if (*basis == "unavailable") {
      for (const char* field : {"total_energy_joules", "energy_per_token_mj", "avg_power_watts",
                                "fp16_energy_per_token_mj", "vs_fp16_energy_pct"}) {
        if (present_non_null(doc_, r + "/" + field)) {
          failure(r + "/" + field,
                  "basis is unavailable but a value is given ({}); it must be null",
                  find(doc_, r + "/" + field)->dump());
        }
      }
      const bool noted = !text(doc_, r + "/note").value_or("").empty() ||
                         !text(doc_, "/meter/reason").value_or("").empty();
      if (!noted) failure(r + "/note", "basis is unavailable but no note or meter reason says why");
      each_iteration(side, [&](const std::string& at, const json& it) {
        if (it.contains("energy_j") && !it["energy_j"].is_null()) {
          failure(at + "/energy_j", "basis is unavailable but this iteration has energy {}",
                  it["energy_j"].dump());
        }
      });
    }
  }

  // Totals against the sum of iterations, and against the protocol.
  void iterations(const std::string& side) {
    const json* list = find(doc_, side + "/iterations");
    if (list == nullptr || !list->is_array()) return;
    const std::string r = side + "/results";
    double tokens = 0.0;
    double seconds = 0.0;
    double energy = 0.0;
    bool all_energy = !list->empty();
    each_iteration(side, [&](const std::string& at, const json& it) {
      auto s = number(it, "/seconds");
      auto t = number(it, "/tokens");
      auto rate = number(it, "/tokens_per_s");
      tokens += t.value_or(0.0);
      seconds += s.value_or(0.0);
      if (auto e = number(it, "/energy_j")) {
        energy += *e;
      } else {
        all_energy = false;
      }
      if (s && t && rate && *s > 0.0 && relative_difference(*rate, *t / *s) > kSumTolerance) {
        failure(at + "/tokens_per_s", "{} but tokens / seconds = {:.6g}", *rate, *t / *s);
      }
    });
    if (auto p = number(doc_, "/protocol/iterations");
        p && list->size() != static_cast<size_t>(*p)) {
      failure(side + "/iterations", "{} iterations recorded but protocol.iterations is {}",
              list->size(), *p);
    }
    if (list->empty()) return;
    if (auto t = number(doc_, r + "/tokens_generated"); t && *t != tokens) {
      failure(r + "/tokens_generated", "{} but the iterations sum to {} tokens", *t, tokens);
    }
    if (auto s = number(doc_, r + "/seconds");
        s && relative_difference(*s, seconds) > kSumTolerance) {
      failure(r + "/seconds", "{} s but the iterations sum to {:.6g} s", *s, seconds);
    }
    if (auto e = number(doc_, r + "/total_energy_joules");
        e && all_energy && relative_difference(*e, energy) > kSumTolerance) {
      failure(r + "/total_energy_joules", "{} J but the iterations sum to {:.6g} J", *e, energy);
    }
  }

  // tokens_generated = new tokens x iterations x batch, and the original's measurement block.
  void protocol(const std::string& side) {
    auto tokens = number(doc_, side + "/results/tokens_generated");
    auto new_tokens = number(doc_, "/protocol/new_tokens");
    auto iterations = number(doc_, "/protocol/iterations");
    auto batch = number(doc_, "/protocol/batch");
    if (!new_tokens) {
      // An original report: only its measurement block, and only when batch 1 leaves no doubt.
      new_tokens = number(doc_, "/measurement/tokens_per_run");
      iterations = number(doc_, "/measurement/iterations");
      batch = number(doc_, "/workload/batch_size");
      if (batch != 1.0) return;
    }
    if (tokens && new_tokens && iterations) {
      // The window rule puts several generations in one iteration: each says how many.
      double generations = *iterations;
      const json* list = find(doc_, side + "/iterations");
      if (list != nullptr && list->is_array() && !list->empty()) {
        generations = 0.0;
        each_iteration(side, [&](const std::string& at, const json& it) {
          const double g = number(it, "/generations").value_or(1.0);
          generations += g;
          auto t = number(it, "/tokens");
          if (t && *t != *new_tokens * g * batch.value_or(1.0)) {
            failure(at + "/tokens", "{} but new tokens x generations x batch = {} x {} x {} = {}",
                    *t, *new_tokens, g, batch.value_or(1.0), *new_tokens * g * batch.value_or(1.0));
          }
        });
      }
      const double expected = *new_tokens * generations * batch.value_or(1.0);
      if (*tokens != expected) {
        failure(side + "/results/tokens_generated",
                "{} but new tokens x generations x batch = {} x {} x {} = {}", *tokens, *new_tokens,
                generations, batch.value_or(1.0), expected);
      }
    }
  }

  void measurement_matches_protocol() {
    const std::pair<const char*, const char*> pairs[] = {
        {"/measurement/tokens_per_run", "/protocol/new_tokens"},
        {"/measurement/iterations", "/protocol/iterations"},
        {"/measurement/warmup", "/protocol/warmup"},
        {"/workload/batch_size", "/protocol/batch"},
    };
    for (const auto& [m, p] : pairs) {
      auto a = number(doc_, m);
      auto b = number(doc_, p);
      if (a && b && *a != *b) failure(m, "{} but {} is {}", *a, p, *b);
    }
    auto batch = number(doc_, "/workload/batch_size");
    auto scenario = text(doc_, "/scenario");
    if (batch && scenario) {
      const char* expected = *batch == 1.0 ? "SingleStream" : "Offline";
      if (*scenario != expected) {
        failure("/scenario", "'{}' but batch_size {} means '{}'", *scenario, *batch, expected);
      }
    }
    auto workload = text(doc_, "/workload/precision");
    auto engine = text(doc_, "/engine/precision");
    if (workload && engine && *workload != *engine) {
      failure("/engine/precision", "'{}' but workload.precision is '{}'", *engine, *workload);
    }
  }

  void quality() {
    if (!present_non_null(doc_, "/quality")) return;
    const std::pair<const char*, const char*> ppl_nll[] = {
        {"/quality/value", "/quality/mean_nll"}, {"/quality/fp16_value", "/quality/fp16_mean_nll"}};
    for (const auto& [ppl_at, nll_at] : ppl_nll) {
      auto ppl = number(doc_, ppl_at);
      auto nll = number(doc_, nll_at);
      if (ppl && nll) {
        const double expected = std::exp(*nll);
        const double tolerance =
            1e-4 * expected + rounding_half_unit(*ppl) + expected * rounding_half_unit(*nll);
        if (std::abs(*ppl - expected) > tolerance) {
          failure(ppl_at, "{} but exp({}) = {:.6g}", *ppl, nll_at, expected);
        }
      }
    }
    auto delta = number(doc_, "/quality/delta_vs_fp16_pct");
    auto ppl = number(doc_, "/quality/value");
    auto ppl0 = number(doc_, "/quality/fp16_value");
    if (delta && !ppl0) {
      failure("/quality/delta_vs_fp16_pct", "given ({}) without quality.fp16_value", *delta);
    }
    if (delta && ppl && ppl0 && *ppl0 > 0.0) {
      const double expected = (*ppl / *ppl0 - 1.0) * 100.0;
      const double tolerance = rounding_half_unit(*delta) +
                               100.0 * (rounding_half_unit(*ppl) / *ppl0 +
                                        *ppl * rounding_half_unit(*ppl0) / (*ppl0 * *ppl0)) +
                               1e-6 * std::abs(expected);
      if (std::abs(*delta - expected) > tolerance) {
        failure("/quality/delta_vs_fp16_pct", "{} % but (value / fp16_value - 1) x 100 = {:.4f} %",
                *delta, expected);
      }
    }
  }

  // A phase's average power is its energy over its duration.
  void phases(const std::string& side) {
    const json* list = find(doc_, side + "/phases");
    if (list == nullptr || !list->is_array()) return;
    for (size_t i = 0; i < list->size(); ++i) {
      const json& p = (*list)[i];
      auto e = number(p, "/energy_j");
      auto s = number(p, "/seconds");
      auto w = number(p, "/avg_power_w");
      if (e && s && w && *s > 0.0 && relative_difference(*w, *e / *s) > kEnergyPowerTolerance) {
        failure(fmt::format("{}/phases/{}/avg_power_w", side, i),
                "{} W but energy_j / seconds = {:.6g} W", *w, *e / *s);
      }
    }
  }

  // Fields our writer derives from others (energy_json.cpp): a report of ours where they disagree
  // was edited after it was written, so it is refused rather than read as "not a measurement".
  void derived_fields() {
    if (!present_non_null(doc_, "/report_format")) return;  // the original's reports
    if (auto b = text(doc_, "/benchmark"); b && *b != kBenchmark) {
      failure("/benchmark", "'{}', but a report of this format names the methodology '{}'", *b,
              kBenchmark);
    }
    const json* measures = find(doc_, "/meter/measures_energy");
    auto source = text(doc_, "/meter/energy_source");
    auto claimed = text(doc_, "/measurement_source");
    if (measures != nullptr && measures->is_boolean() && source && claimed) {
      const std::string expected = measures->get<bool>() && !source->empty() ? *source : "none";
      if (*claimed != expected) {
        failure("/measurement_source",
                "'{}', but the meter (measures_energy {}, energy_source "
                "'{}') gives '{}'",
                *claimed, measures->get<bool>(), *source, expected);
      }
    }
    // The engine's own runs always record prefill and decode (bench/protocol.cpp); a command run
    // through the marker protocol (backend "external") records only the phases it marked.
    auto backend = text(doc_, "/engine/backend");
    const json* list = find(doc_, "/phases");
    if (backend && *backend != "external" && list != nullptr && list->is_array() && list->empty()) {
      failure("/phases",
              "empty, but the engine ran here (backend '{}'): a run records its prefill "
              "and decode phases",
              *backend);
    }
  }

  template <class F>
  void each_iteration(const std::string& side, F&& f) {
    const json* list = find(doc_, side + "/iterations");
    if (list == nullptr || !list->is_array()) return;
    for (size_t i = 0; i < list->size(); ++i) {
      if ((*list)[i].is_object()) f(fmt::format("{}/iterations/{}", side, i), (*list)[i]);
    }
  }

  // Failures in the order found, each once (both sides can break the same top-level rule).
  std::vector<std::string> take() {
    std::vector<std::string> unique;
    for (auto& f : failures_) {
      if (std::find(unique.begin(), unique.end(), f) == unique.end())
        unique.push_back(std::move(f));
    }
    return unique;
  }

 private:
  const json& doc_;
  std::string_view source_;
  std::vector<std::string> failures_;
};

}  // namespace

double rounding_half_unit(double value) {
  if (!std::isfinite(value)) return 0.0;
  for (int digits = 0; digits <= 9; ++digits) {
    const double scale = std::pow(10.0, digits);
    const double scaled = value * scale;
    if (std::abs(scaled - std::round(scaled)) <= 1e-6 * std::max(1.0, std::abs(scaled) * 1e-9)) {
      return 0.5 / scale;
    }
  }
  return 1e-9;
}

bool is_measurement(const json& report) {
  return why_not_a_measurement(text(report, "/results/basis").value_or(""),
                               text(report, "/measurement_source").value_or(""))
      .empty();
}

std::vector<std::string> check_consistency(const json& report, std::string_view source_name) {
  Checker check(report, source_name);
  if (!report.is_object()) return {};
  for (const char* side_name : {"", "/baseline"}) {
    const std::string side = side_name;
    if (!side.empty() && !present_non_null(report, side)) continue;
    check.results_arithmetic(side);
    check.basis(side);
    check.iterations(side);
    check.protocol(side);
    check.phases(side);
  }
  check.fp16_delta();
  check.measurement_matches_protocol();
  check.quality();
  check.derived_fields();
  return check.take();
}

}  // namespace ec::report
