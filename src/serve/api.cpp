// Validation and answers of the estimate/curves API. Numbers come from analysis::estimate, the
// body from the same table `ecocompute estimate` prints, so the API and the CLI cannot disagree.
#include "serve/api.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

#include "analysis/estimate.h"
#include "core/architecture_names.h"
#include "core/error.h"
#include "core/precision_names.h"

namespace ec::serve {
namespace {

using nlohmann::json;

json cell(const store::Value& v) {
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? json(*d) : json(nullptr);
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  return nullptr;
}

// What a client may echo back in an error: printable ASCII, shortened.
std::string shown(const std::string& value) {
  std::string out;
  for (char c : value.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return value.size() > 40 ? out + "…" : out;
}

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
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

ApiResponse estimate_request(const std::optional<analysis::CurveSet>& curves,
                             const QueryParams& params) {
  static const std::set<std::string> kAllowed{"params_b", "arch", "precision"};
  for (const auto& [key, value] : params) {
    if (!kAllowed.contains(key))
      return api_error(
          400, "unknown query parameter '" + shown(key) + "' (expected params_b, arch, precision)",
          shown(key));
    if (params.count(key) > 1) return api_error(400, "parameter '" + key + "' given twice", key);
  }
  for (const auto& key : kAllowed) {
    if (!params.contains(key)) return api_error(400, "missing query parameter '" + key + "'", key);
  }
  const std::string& size_text = params.find("params_b")->second;
  std::string arch = params.find("arch")->second;
  std::string precision = params.find("precision")->second;

  // strtod accepts "nan", "inf", hex and leading spaces; only plain decimal numbers are sizes.
  const bool plain = !size_text.empty() && size_text.size() <= 32 &&
                     std::all_of(size_text.begin(), size_text.end(), [](char c) {
                       return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' ||
                              c == 'E' || c == '-' || c == '+';
                     });
  char* end = nullptr;
  errno = 0;
  const double params_b = plain ? std::strtod(size_text.c_str(), &end) : NAN;
  if (!plain || errno != 0 || end != size_text.c_str() + size_text.size() ||
      !std::isfinite(params_b) || !(params_b > 0) || params_b > kMaxParamsB) {
    return api_error(400,
                     fmt::format("params_b must be a model size in billions, a number with "
                                 "0 < N <= {:g}; got '{}'",
                                 kMaxParamsB, shown(size_text)),
                     "params_b");
  }
  if (!curves) return api_error(503, "this server has no fitted curves to estimate from");

  arch = normalize_architecture(arch);
  precision = normalize_precision(precision);
  std::set<std::string> archs, precisions;
  for (const auto& c : curves->curves) {
    archs.insert(c.arch);
    if (c.arch == arch) precisions.insert(c.precision);
  }
  for (const auto& [to, from] : curves->borrow) {
    if (archs.contains(from)) archs.insert(to);
    if (to == arch) {
      for (const auto& c : curves->curves) {
        if (c.arch == from) precisions.insert(c.precision);
      }
    }
  }
  if (!archs.contains(arch)) {
    return api_error(400, "unknown arch '" + shown(arch) + "' (known: " + joined(archs) + ")",
                     "arch");
  }
  if (!precisions.contains(precision)) {
    return api_error(400,
                     "no curve for " + arch + " " + shown(precision) + " (" + arch +
                         " has: " + joined(precisions) + ")",
                     "precision");
  }
  try {
    const analysis::Estimate e = analysis::estimate(*curves, params_b, arch, precision);
    const analysis::Table t = analysis::estimate_table(e, params_b, precision);
    ApiResponse r;
    r.body = json::object();
    for (size_t i = 0; i < t.columns.size(); ++i) r.body[t.columns[i]] = cell(t.rows[0][i]);
    r.body["arch_requested"] = arch;
    r.body["notes_list"] = e.notes;
    return r;
  } catch (const Error& err) {
    return api_error(400, err.what());
  }
}

ApiResponse curves_request(const std::optional<analysis::CurveSet>& curves) {
  if (!curves) return api_error(503, "this server has no fitted curves");
  ApiResponse r;
  r.body = analysis::curves_to_json(*curves);
  return r;
}

}  // namespace ec::serve
