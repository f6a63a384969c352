// The fitted curve's model and its curves.json form: ΔE(N), the S caps, looking a class up, and
// reading and writing curves.json. Apart from the fitting (fit.cpp, GSL), so the site's report
// grader (WebAssembly) reads and evaluates curves with this same code.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "analysis/fit.h"
#include "analysis/gpu_classes.h"
#include "core/error.h"

namespace ec::analysis {

double curve_value(const CurveParams& p, double params_b) {
  const double x = params_b / p.n_star;
  return p.a - p.s * x / (1.0 + x);
}

double s_cap(const std::string& precision) {
  if (precision == "INT8") return 50.0;
  return 75.0;
}

const Curve* CurveSet::find(const std::string& arch, const std::string& precision) const {
  for (const auto& c : curves) {
    if (c.arch == arch && c.precision == precision) return &c;
  }
  return nullptr;
}

double CurveSet::s_cap_for(const std::string& precision) const {
  auto it = s_caps.find(precision);
  return it != s_caps.end() ? it->second : s_cap(precision);
}

std::string CurveSet::label(const std::string& arch) const {
  auto it = arch_labels.find(arch);
  return it != arch_labels.end() ? it->second : arch;
}

nlohmann::json curves_to_json(const CurveSet& set) {
  using nlohmann::json;
  json out;
  out["model"] = "dE_pct(N) = A - S * (N/Nstar)/(1 + N/Nstar)";
  out["s_cap"] = set.s_caps;
  out["arch_label"] = set.arch_labels;
  out["borrow"] = set.borrow;
  json curves = json::object();
  for (const auto& c : set.curves) {
    json anchors = json::array();
    for (const auto& a : c.anchors) {
      json anchor{{"N", a.params_b},
                  {"dE", std::round(a.delta_pct * 100.0) / 100.0},
                  {"model", a.model},
                  {"gpu", a.gpu},
                  {"source", a.source}};
      if (a.n > 0) anchor["n"] = a.n;
      anchors.push_back(std::move(anchor));
    }
    auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    curves[c.arch][c.precision] = {{"A", c.fit.params.a},
                                   {"S", c.fit.params.s},
                                   {"Nstar", c.fit.params.n_star},
                                   {"resid_std", c.fit.resid_std},
                                   {"n_min", c.n_min},
                                   {"n_max", c.n_max},
                                   {"crossover_b", opt(c.crossover_b)},
                                   {"anchors", anchors},
                                   {"loo_mae", opt(c.loo_mae)},
                                   {"loo_coverage95", opt(c.loo_coverage95)},
                                   {"n_points", c.anchors.size()},
                                   {"nstar_fixed", c.fit.n_star_fixed}};
  }
  out["curves"] = curves;
  json borrowed = json::object();
  for (const auto& [to, from] : set.borrow) {
    for (const auto& c : set.curves) {
      if (c.arch == from && !set.find(to, c.precision)) {
        borrowed[to][c.precision] = {{"from", from}, {"estimated", true}};
      }
    }
  }
  out["borrowed"] = borrowed;
  json refused = json::object();
  for (const auto& r : set.refused) {
    json points = json::array();
    for (const auto& p : r.points) {
      points.push_back({{"N", p.params_b}, {"model", p.model}, {"source", p.source}});
    }
    refused[r.arch][r.precision] = {{"reason", r.reason}, {"points", points}};
  }
  out["refused"] = refused;
  json fp16 = json::object();
  for (const auto& [arch, sizes] : set.fp16_anchors) {
    json anchors = json::array();
    for (const auto& [n, e] : sizes) anchors.push_back({{"N", n}, {"e_j1k", e}});
    auto range = set.fp16_ranges.find(arch);
    const bool has_range = range != set.fp16_ranges.end();
    fp16[arch] = {{"n_min", has_range ? range->second.first : sizes.begin()->first},
                  {"n_max", has_range ? range->second.second : sizes.rbegin()->first},
                  {"anchors", anchors}};
  }
  out["fp16_energy"] = fp16;
  json hardware = json::object();
  for (const auto& [arch, h] : set.hardware) {
    hardware[arch] = {{"gpu", h.gpu},
                      {"mem_bw_gbps", h.mem_bw_gbps},
                      {"fp16_tflops", h.fp16_tflops},
                      {"source", h.source}};
  }
  out["hardware"] = hardware;
  return out;
}

CurveSet curves_from_json(const nlohmann::json& j, const std::filesystem::path& path) {
  CurveSet set;
  auto need_number = [&](const nlohmann::json& o, const char* key, const std::string& where) {
    if (!o.contains(key) || !o[key].is_number()) {
      fail("{}: {}: field '{}' must be a number", path.string(), where, key);
    }
    return o[key].get<double>();
  };
  if (!j.is_object() || !j.contains("curves") || !j["curves"].is_object()) {
    fail("{}: not a curves file (no 'curves' object)", path.string());
  }
  if (j.contains("borrow") && j["borrow"].is_object()) {
    for (auto it = j["borrow"].begin(); it != j["borrow"].end(); ++it) {
      if (it.value().is_string()) set.borrow[it.key()] = it.value().get<std::string>();
    }
  }
  // Values an estimate can rest on: a delta in percentage points (fits are capped at 75), sizes
  // in billions of parameters; outside these a curve is garbage, not an extrapolation.
  auto need_in = [&](const nlohmann::json& o, const char* key, const std::string& where, double lo,
                     double hi, const char* expected) {
    const double v = need_number(o, key, where);
    if (!(v >= lo && v <= hi)) {
      fail("{}: {}: field '{}' is {}, expected {}", path.string(), where, key, v, expected);
    }
    return v;
  };
  for (auto a = j["curves"].begin(); a != j["curves"].end(); ++a) {
    if (!a.value().is_object()) {
      fail("{}: curves.{}: expected an object of precisions", path.string(), a.key());
    }
    for (auto p = a.value().begin(); p != a.value().end(); ++p) {
      const std::string where = "curves." + a.key() + "." + p.key();
      const auto& o = p.value();
      if (!o.is_object())
        fail("{}: {}: expected an object (A, S, Nstar, ...)", path.string(), where);
      Curve c;
      c.arch = a.key();
      c.precision = p.key();
      c.fit.params = {need_in(o, "A", where, -1000.0, 1000.0, "a delta in [-1000, 1000] points"),
                      need_in(o, "S", where, -1000.0, 1000.0, "a delta in [-1000, 1000] points"),
                      need_in(o, "Nstar", where, 1e-6, 1e6, "a size in (0, 1e6] billion")};
      c.fit.resid_std = need_in(o, "resid_std", where, 0.0, 1000.0, "a spread in [0, 1000] points");
      c.fit.n_star_fixed = o.value("nstar_fixed", false);
      c.n_min = need_in(o, "n_min", where, 1e-6, 1e6, "a size in (0, 1e6] billion");
      c.n_max = need_in(o, "n_max", where, c.n_min, 1e6, "a size in [n_min, 1e6] billion");
      if (o.contains("crossover_b") && o["crossover_b"].is_number()) {
        c.crossover_b = o["crossover_b"].get<double>();
      }
      if (o.contains("loo_mae") && o["loo_mae"].is_number()) c.loo_mae = o["loo_mae"].get<double>();
      if (o.contains("anchors") && o["anchors"].is_array()) {
        for (const auto& an : o["anchors"]) {
          FitPoint fp;
          fp.arch = c.arch;
          fp.precision = c.precision;
          fp.params_b = need_number(an, "N", where + ".anchors");
          fp.delta_pct = need_number(an, "dE", where + ".anchors");
          fp.model = an.value("model", "");
          fp.gpu = an.value("gpu", "");
          fp.n = an.contains("n") && an["n"].is_number_integer() ? an["n"].get<int64_t>() : 0;
          if (an.contains("source") && an["source"].is_string()) fp.source = an["source"];
          c.anchors.push_back(std::move(fp));
        }
      }
      set.curves.push_back(std::move(c));
    }
  }
  if (j.contains("fp16_energy") && j["fp16_energy"].is_object()) {
    for (auto a = j["fp16_energy"].begin(); a != j["fp16_energy"].end(); ++a) {
      if (!a.value().is_object() || !a.value().contains("anchors") ||
          !a.value()["anchors"].is_array()) {
        continue;
      }
      const std::string where = "fp16_energy." + a.key();
      std::map<double, double> sizes;
      for (const auto& an : a.value()["anchors"]) {
        sizes[need_number(an, "N", where)] = need_number(an, "e_j1k", where);
      }
      if (sizes.empty()) continue;
      set.fp16_anchors[a.key()] = sizes;
      set.fp16_ranges[a.key()] = {
          a.value().contains("n_min") ? need_number(a.value(), "n_min", where)
                                      : sizes.begin()->first,
          a.value().contains("n_max") ? need_number(a.value(), "n_max", where)
                                      : sizes.rbegin()->first};
    }
  }
  if (j.contains("s_cap") && j["s_cap"].is_object()) {
    for (auto it = j["s_cap"].begin(); it != j["s_cap"].end(); ++it) {
      set.s_caps[it.key()] = need_number(j["s_cap"], it.key().c_str(), "s_cap");
    }
  }
  if (j.contains("arch_label") && j["arch_label"].is_object()) {
    for (auto it = j["arch_label"].begin(); it != j["arch_label"].end(); ++it) {
      if (it.value().is_string()) set.arch_labels[it.key()] = it.value().get<std::string>();
    }
  }
  if (j.contains("hardware") && j["hardware"].is_object()) {
    for (auto it = j["hardware"].begin(); it != j["hardware"].end(); ++it) {
      const std::string where = "hardware." + it.key();
      const auto& h = it.value();
      GpuSpec spec;
      spec.gpu = h.value("gpu", "");
      spec.source = h.value("source", "");
      spec.mem_bw_gbps = need_number(h, "mem_bw_gbps", where);
      spec.fp16_tflops = need_number(h, "fp16_tflops", where);
      set.hardware[it.key()] = std::move(spec);
    }
  }
  return set;
}

}  // namespace ec::analysis
