// Routing, validation and answers of the API. Numbers come from analysis::estimate and
// analysis::optimize, the same code as `ecocompute estimate`/`optimize` and the MCP tools, so no
// two answers can disagree. Fields are read as the original reads them (free text `q` replaces the
// structured fields; precision defaults to NF4, batch to 1, context to 2048), but strictly: a
// field that is not a plain number in range, or one the endpoint does not know, is refused.
#include "api/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

#include "analysis/estimate.h"
#include "analysis/optimize.h"
#include "analysis/query_text.h"
#include "api/openapi.h"
#include "core/architecture_names.h"
#include "core/error.h"

namespace ec::api {
namespace {

using nlohmann::json;

const std::vector<std::string> kEndpoints{"/v1/estimate", "/v1/optimize", "/v1/architectures",
                                          "/openapi.json"};

// What a client may echo back in an error: printable ASCII, shortened.
std::string shown(const std::string& value) {
  std::string out;
  for (char c : value.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return value.size() > 40 ? out + "…" : out;
}

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// A refusal carried out of the field readers.
struct Refusal {
  ApiResponse response;
};

[[noreturn]] void refuse(std::string message, std::string parameter) {
  throw Refusal{api_error(400, std::move(message), std::move(parameter))};
}

std::string text_of(const json& v, const std::string& name) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  refuse(fmt::format("'{}' must be a string or a number", name), name);
}

// A plain decimal number (no hex, nan, inf or spaces) within [lo, hi]; integral when asked.
double number_of(const json& v, const std::string& name, double lo, double hi, bool integral) {
  double x = NAN;
  if (v.is_number()) {
    x = v.get<double>();
  } else if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const bool plain = !s.empty() && s.size() <= 32 && std::all_of(s.begin(), s.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
             c == '-' || c == '+';
    });
    char* end = nullptr;
    errno = 0;
    if (plain) x = std::strtod(s.c_str(), &end);
    if (!plain || errno != 0 || end != s.c_str() + s.size()) x = NAN;
  }
  if (!std::isfinite(x) || x < lo || x > hi || (lo > 0 && !(x > 0)) ||
      (integral && x != std::trunc(x))) {
    refuse(fmt::format("'{}' must be {} with {} <= {} <= {:g}; got '{}'", name,
                       integral ? "a whole number" : "a number", lo > 0 ? "0 <" : "0", name, hi,
                       shown(v.is_string() ? v.get<std::string>() : v.dump())),
           name);
  }
  return x;
}

double size_of(const json& v, const std::string& name) {
  const double x = number_of(v, name, 1e-300, kMaxParamsB, false);
  if (!(x > 0)) refuse("params_b (model size in billions) is required and must be > 0", name);
  return x;
}

// Fields of a GET query or a POST body, as one JSON object; unknown or repeated names refused.
json fields_of(const ApiRequest& r, const std::set<std::string>& known) {
  json fields = json::object();
  if (r.method == "POST") {
    fields = json::parse(r.body, nullptr, false);
    if (fields.is_discarded()) refuse("invalid JSON body", "");
    if (!fields.is_object()) refuse("the body must be a JSON object of fields", "");
  } else {
    for (const auto& [key, value] : r.query) {
      if (r.query.count(key) > 1) refuse("parameter '" + shown(key) + "' given twice", shown(key));
      fields[key] = value;
    }
  }
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (!known.contains(it.key())) {
      std::vector<std::string> names(known.begin(), known.end());
      refuse("unknown parameter '" + shown(it.key()) + "' (expected " + joined(names) + ")",
             shown(it.key()));
    }
  }
  return fields;
}

bool compat_of(const json& fields, const ApiOptions& options) {
  if (!fields.contains("compat")) return options.compat_original;
  const std::string v = text_of(fields["compat"], "compat");
  if (v == "original") return true;
  if (v == "none" || v.empty()) return false;
  refuse("compat must be 'original' or 'none'; got '" + shown(v) + "'", "compat");
}

std::vector<std::string> architectures_known(const analysis::CurveSet& curves) {
  std::set<std::string> names;
  for (const auto& c : curves.curves) names.insert(c.arch);
  for (const auto& [to, from] : curves.borrow) names.insert(to);
  return {names.begin(), names.end()};
}

ApiResponse ok(json body) {
  ApiResponse r;
  r.body = std::move(body);
  return r;
}

ApiResponse with_refusals(const std::function<ApiResponse()>& answer) {
  try {
    return answer();
  } catch (const Refusal& r) {
    return r.response;
  } catch (const Error& e) {
    return api_error(400, e.what());
  }
}

std::vector<std::string> list_of(const json& v, const std::string& name) {
  std::vector<std::string> out;
  if (v.is_array()) {
    for (const auto& item : v) out.push_back(text_of(item, name));
  } else {
    const std::string s = text_of(v, name);
    size_t start = 0;
    while (start <= s.size()) {
      size_t comma = s.find(',', start);
      if (comma == std::string::npos) comma = s.size();
      std::string item = s.substr(start, comma - start);
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      if (!item.empty()) out.push_back(item);
      start = comma + 1;
    }
  }
  if (out.empty() || out.size() > 64) refuse("'" + name + "' must list 1 to 64 values", name);
  return out;
}

}  // namespace

ApiResponse api_error(int status, std::string message, std::string parameter) {
  ApiResponse r;
  r.status = status;
  r.body = {{"error", std::move(message)}, {"status", status}};
  if (!parameter.empty()) r.body["parameter"] = std::move(parameter);
  return r;
}

const std::map<std::string, std::string>& cors_headers() {
  static const std::map<std::string, std::string> headers{
      {"Access-Control-Allow-Origin", "*"},
      {"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
      {"Access-Control-Allow-Headers", "content-type"},
  };
  return headers;
}

ApiResponse estimate_fields(const analysis::CurveSet& curves, const json& fields,
                            const ApiOptions& options) {
  return with_refusals([&] {
    analysis::EstimateInput in;
    const bool compat = compat_of(fields, options);
    const std::string q = fields.contains("q") ? text_of(fields["q"], "q") : std::string();
    if (q.size() > analysis::kMaxQueryText) {
      refuse(fmt::format("q must be at most {} bytes", analysis::kMaxQueryText), "q");
    }
    std::optional<double> size;
    std::optional<std::string> arch;
    if (!q.empty()) {
      // Free text replaces the structured fields, as in the original.
      const analysis::QueryText t = analysis::parse_query_text(q, compat);
      size = t.params_b;
      arch = t.arch;
      in.precision = t.precision.value_or("NF4");
      in.batch = t.batch.value_or(0) != 0 ? *t.batch : 1;
      in.ctx = t.ctx.value_or(0) != 0 ? *t.ctx : 2048;
      if (in.batch > kMaxBatch) refuse(fmt::format("batch must be <= {:g}", kMaxBatch), "batch");
      if (in.ctx > kMaxContext) refuse(fmt::format("ctx must be <= {:g}", kMaxContext), "ctx");
    } else {
      if (fields.contains("params_b")) {
        size = size_of(fields["params_b"], "params_b");
      } else if (fields.contains("N")) {
        size = size_of(fields["N"], "N");
      }
      if (fields.contains("arch")) arch = normalize_architecture(text_of(fields["arch"], "arch"));
      if (fields.contains("precision"))
        in.precision = upper(text_of(fields["precision"], "precision"));
      if (fields.contains("batch"))
        in.batch = number_of(fields["batch"], "batch", 1, kMaxBatch, true);
      if (fields.contains("ctx")) in.ctx = number_of(fields["ctx"], "ctx", 1, kMaxContext, true);
    }
    if (!size) refuse("params_b (model size in billions) is required and must be > 0", "params_b");
    if (!arch || arch->empty()) {
      ApiResponse r = api_error(400, "arch is required", "arch");
      r.body["supported"] = architectures_known(curves);
      return r;
    }
    const auto known = architectures_known(curves);
    if (std::find(known.begin(), known.end(), *arch) == known.end()) {
      ApiResponse r =
          api_error(400, "no curve for this architecture '" + shown(*arch) + "'", "arch");
      r.body["supported"] = known;
      return r;
    }
    in.params_b = *size;
    in.arch = *arch;
    try {
      return ok(analysis::estimate_json(analysis::estimate(curves, in)));
    } catch (const Error& e) {
      return api_error(400, e.what(), "precision");
    }
  });
}

ApiResponse optimize_fields(const analysis::CurveSet& curves, const json& fields,
                            const ApiOptions& options) {
  return with_refusals([&] {
    analysis::OptimizeRequest r;
    r.original_fp16_baseline = compat_of(fields, options);
    std::optional<double> size;
    if (fields.contains("params_b")) {
      size = size_of(fields["params_b"], "params_b");
    } else if (fields.contains("N")) {
      size = size_of(fields["N"], "N");
    }
    if (!size) refuse("params_b (model size in billions) is required and must be > 0", "params_b");
    r.params_b = *size;
    if (fields.contains("arch")) r.arch = normalize_architecture(text_of(fields["arch"], "arch"));
    if (r.arch.empty()) {
      ApiResponse e = api_error(400, "arch is required", "arch");
      e.body["supported"] = architectures_known(curves);
      return e;
    }
    if (fields.contains("objective")) {
      r.objective = text_of(fields["objective"], "objective");
      if (std::find(analysis::kObjectives.begin(), analysis::kObjectives.end(), r.objective) ==
          analysis::kObjectives.end()) {
        refuse("objective must be one of " + joined(analysis::kObjectives) + "; got '" +
                   shown(r.objective) + "'",
               "objective");
      }
    }
    if (fields.contains("precisions")) {
      r.precisions = list_of(fields["precisions"], "precisions");
      for (auto& p : r.precisions) p = upper(p);
    } else if (fields.contains("precision")) {
      r.precisions = {upper(text_of(fields["precision"], "precision"))};
    }
    auto numbers = [&](const char* list, std::initializer_list<const char*> singles, double hi,
                       std::vector<double>& out) {
      if (fields.contains(list)) {
        out.clear();
        for (const auto& s : list_of(fields[list], list)) {
          out.push_back(number_of(json(s), list, 1, hi, true));
        }
        return;
      }
      for (const char* single : singles) {
        if (fields.contains(single)) {
          out = {number_of(fields[single], single, 1, hi, true)};
          return;
        }
      }
    };
    numbers("batches", {"batch"}, kMaxBatch, r.batches);
    numbers("contexts", {"context", "ctx"}, kMaxContext, r.contexts);
    auto budget = [&](const char* name, std::optional<double>& out) {
      if (fields.contains(name)) out = number_of(fields[name], name, 0, 1e12, false);
    };
    budget("max_latency_ms", r.max_latency_ms);
    budget("max_vram_gb", r.max_vram_gb);
    budget("min_throughput", r.min_throughput);
    try {
      return ok(analysis::optimize(curves, r));
    } catch (const Error& e) {
      ApiResponse bad = api_error(400, e.what(), "arch");
      bad.body["supported"] = architectures_known(curves);
      return bad;
    }
  });
}

ApiResponse api_request(const std::optional<analysis::CurveSet>& curves, const ApiRequest& request,
                        const ApiOptions& options) {
  std::string path = request.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (request.method == "OPTIONS") {
    ApiResponse r;
    r.status = 204;
    r.body = nullptr;
    return r;
  }
  const bool get = request.method == "GET" || request.method == "HEAD";
  const bool post = request.method == "POST";
  auto only_get = [&]() -> std::optional<ApiResponse> {
    if (!get) return api_error(405, "use GET");
    if (!request.query.empty()) return api_error(400, path + " takes no query parameters");
    return std::nullopt;
  };
  if (path == "/") {
    if (auto refused = only_get()) return *refused;
    return ok(
        {{"service", "ecocompute-estimator"}, {"endpoints", kEndpoints}, {"curves", "/v1/curves"}});
  }
  if (path == "/openapi.json") {
    if (auto refused = only_get()) return *refused;
    return ok(openapi_document(request.origin));
  }
  const bool estimate = path == "/v1/estimate";
  const bool optimize = path == "/v1/optimize";
  const bool architectures = path == "/v1/architectures";
  const bool curves_path = path == "/v1/curves";
  if (!estimate && !optimize && !architectures && !curves_path) {
    ApiResponse r = api_error(404, "no such endpoint '" + shown(request.path) + "'");
    r.body["endpoints"] = kEndpoints;
    return r;
  }
  if (architectures || curves_path) {
    if (auto refused = only_get()) return *refused;
  } else if (!get && !post) {
    return api_error(405, "use GET or POST");
  }
  if (!curves) return api_error(503, "this server has no fitted curves");
  if (architectures) return ok(analysis::architectures_json(*curves));
  if (curves_path) return ok(analysis::curves_to_json(*curves));
  try {
    if (estimate) {
      static const std::set<std::string> kKnown{"q",         "params_b", "N",   "arch",
                                                "precision", "batch",    "ctx", "compat"};
      return estimate_fields(*curves, fields_of(request, kKnown), options);
    }
    static const std::set<std::string> kKnown{"params_b",    "N",
                                              "arch",        "objective",
                                              "precision",   "precisions",
                                              "batch",       "batches",
                                              "context",     "ctx",
                                              "contexts",    "max_latency_ms",
                                              "max_vram_gb", "min_throughput",
                                              "compat"};
    return optimize_fields(*curves, fields_of(request, kKnown), options);
  } catch (const Refusal& r) {
    return r.response;
  }
}

}  // namespace ec::api
