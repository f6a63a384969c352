// Fuzz entry point for energy.json ingest (ours and the original's schema 1.0/1.1): import_report,
// the two report validators, then the store and the printers on what was accepted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/import.h"
#include "core/error.h"
#include "fuzz_support.h"
#include "report/validate.h"
#include "run_checks.h"
#include "same_json.h"
#include "store/json_doc.h"

namespace ec::fuzz {

// The validators report every problem as a message and never throw; an accepted report has the
// fields every consumer needs, keeps its file name, and survives the store unchanged.
inline void report_ingest_one_input(std::span<const uint8_t> bytes) {
  const std::string_view text = as_text(bytes);
  const std::filesystem::path path = "fuzz/energy.json";

  // What `ecocompute validate` does: the validators only run on a document that parsed.
  std::optional<nlohmann::json> doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
  }
  // The fast reader accepts exactly what nlohmann accepts (but for nesting past its limit) and
  // reads the same values.
  std::optional<store::JsonDoc> fast;
  // Two documented differences: JsonDoc refuses nesting past its limit, and bytes after a NUL
  // outside strings (nlohmann stops reading at a NUL, as if the text ended there).
  bool allowed_refusal = false;
  try {
    fast = store::JsonDoc::parse(text);
  } catch (const store::JsonSyntaxError& e) {
    allowed_refusal = std::string_view(e.what()).find("nested deeper") != std::string_view::npos ||
                      (e.offset() < text.size() && text[e.offset()] == '\0');
  } catch (const std::out_of_range&) {
  }
  expect(fast.has_value() == doc.has_value() || (allowed_refusal && doc.has_value()),
         fast ? "JsonDoc accepted text nlohmann refuses" : "JsonDoc refused text nlohmann accepts");
  if (fast && doc) expect(same_json(*fast, fast->root(), *doc), "JsonDoc and nlohmann disagree");
  if (doc) {
    const report::ValidationResult ours = report::validate_report(*doc, "fuzz.json");
    const report::ValidationResult original = report::validate_against_original(*doc, "fuzz.json");
    for (const auto& f : ours.failures) {
      expect(f.starts_with("fuzz.json"), "a validation failure does not name the file: " + f);
    }
    for (const auto& f : original.failures) {
      expect(f.starts_with("fuzz.json"), "a validation failure does not name the file: " + f);
    }
  }

  store::RunRow row;
  try {
    row = analysis::import_report(text, path);
  } catch (const ec::Error& e) {
    expect(std::string_view(e.what()).starts_with(path.string()),
           std::string("an import error does not name the file: ") + e.what());
    return;
  }
  expect(doc.has_value(), "import_report accepted text that is not JSON");
  check_run_row(row);
  expect(row.source_path == path.string(), "the run does not record its file");
  expect(row.source_format == "ecocompute-report" || row.source_format == "original-report",
         "unknown source format '" + row.source_format + "'");
  expect(!row.gpu.empty() && !row.model.empty() && !row.precision.empty() && !row.basis.empty(),
         "accepted a report without gpu, model, precision or basis");
  expect(!row.is_measured() || row.energy_j_per_1k_tok.has_value(),
         "accepted a measured report without energy");
  const store::RunRow rows[] = {row};
  check_store_round_trip(rows);
  check_printers(rows);
}

}  // namespace ec::fuzz
