// The report grader the site runs in the browser: `ecocompute check-regression`'s own reading,
// validation and grading, compiled to WebAssembly (emscripten), so a report chosen on the
// replications page is read and graded by the same code as on the command line.
// Built by cmake/EcReportGrader.cmake; web/js/model.js is its only caller.
#include <emscripten/bind.h>

#include <nlohmann/json.hpp>

#include <string>

#include "analysis/estimate.h"
#include "analysis/fit.h"
#include "analysis/import.h"
#include "analysis/table.h"
#include "core/error.h"

namespace ec::wasm {
namespace {

using nlohmann::json;

// Every RunRow field under its store name (absent → null), the version stack as `versions`.
json row_json(const store::RunRow& row) {
  json out = json::object();
  for (const auto& f : store::run_fields()) {
    if (!f.version) out[std::string(f.name)] = analysis::cell_json(f.get(row));
  }
  out["versions"] = row.versions;
  out["why_not_measured"] = row.why_not_measured();
  return out;
}

// The schema_version the report declares ("1.1", "ecocompute-energy/2"), for the page's chips.
std::string schema_version(const std::string& text) {
  const json doc = json::parse(text, nullptr, false);
  return doc.is_object() && doc.contains("schema_version") && doc["schema_version"].is_string()
             ? doc["schema_version"].get<std::string>()
             : std::string();
}

const analysis::CurveSet& curves_from_text(const std::string& curves_text) {
  // The page passes the same curves for every call; parse them once.
  static std::string last_text;
  static analysis::CurveSet last;
  if (curves_text != last_text || last.curves.empty()) {
    last = analysis::curves_from_json(json::parse(curves_text), "curves.json");
    last_text = curves_text;
  }
  return last;
}

// One report: {"read_error"} when it cannot be read or fails `validate`'s checks; otherwise
// {"row", "schema_version", "identity"} (identity: the text whose SHA-256 names a report without a
// run id, as `ingest` names it; null when it has one) and, when curves are given, {"check"} (the
// row `check-regression --format json` prints) or {"grade_error"}. `run_id` fills in a report
// without one (the page's hash of `identity`).
std::string examine(const std::string& text, const std::string& path, const std::string& run_id,
                    const std::string& curves_text, double k) {
  json out = json::object();
  store::RunRow row;
  try {
    row = analysis::read_report(text, path);
  } catch (const std::exception& e) {
    out["read_error"] = e.what();
    return out.dump();
  }
  out["identity"] = row.run_id.empty() ? json(analysis::content_identity(row)) : json(nullptr);
  if (row.run_id.empty()) row.run_id = run_id;
  out["row"] = row_json(row);
  out["schema_version"] = schema_version(text);
  if (curves_text.empty()) return out.dump();
  try {
    if (!(k > 0)) fail("k must be a positive number, got {}", k);
    const analysis::RegressionCheck r =
        analysis::check_regression(curves_from_text(curves_text), row, k);
    const analysis::Table table = analysis::regression_table(r, row);
    out["check"] = analysis::row_object(table, table.rows.at(0));
  } catch (const std::exception& e) {
    out["grade_error"] = e.what();
  }
  return out.dump();
}

// The fitted ΔE (%) of one class at each size in `sizes_json` (a JSON array of B parameters), as
// `ecocompute estimate` evaluates it; {"error"} when the class has no curve.
std::string curve_values(const std::string& curves_text, const std::string& arch,
                         const std::string& precision, const std::string& sizes_json) {
  try {
    const analysis::Curve* c = curves_from_text(curves_text).find(arch, precision);
    if (!c) fail("no curve for {} {}", arch, precision);
    json values = json::array();
    for (const double n : json::parse(sizes_json).get<std::vector<double>>()) {
      values.push_back(analysis::curve_value(c->fit.params, n));
    }
    return values.dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace
}  // namespace ec::wasm

EMSCRIPTEN_BINDINGS(ecocompute_report_grader) {
  emscripten::function("examine", &ec::wasm::examine);
  emscripten::function("curveValues", &ec::wasm::curve_values);
}
