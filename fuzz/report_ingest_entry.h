// Fuzz entry point for energy.json ingest (ours and the original's schema 1.0/1.1): import_report,
// the two report validators, then the store and the printers on what was accepted.
#pragma once

#include <cstdint>
#include <cstring>
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
#include "store/json_doc.h"

namespace ec::fuzz {

// JsonDoc (the fast reader import uses) and nlohmann agree on a node: same kind, same value.
inline bool same_json(const store::JsonDoc& doc, store::JsonDoc::Ref r, const nlohmann::json& j) {
  using T = store::JsonDoc::Type;
  switch (doc.type(r)) {
    case T::null:
      return j.is_null();
    case T::boolean:
      return j.is_boolean() && j.get<bool>() == doc.boolean(r);
    case T::integer:
      return j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() == doc.integer(r);
    case T::unsigned_integer:
      return j.is_number_unsigned() && j.get<uint64_t>() == doc.unsigned_integer(r);
    case T::real: {
      if (!j.is_number_float()) return false;
      const double a = j.get<double>();
      const double b = doc.real(r);
      return std::memcmp(&a, &b, sizeof a) == 0;
    }
    case T::string:
      return j.is_string() && j.get_ref<const std::string&>() == doc.string(r);
    case T::array: {
      if (!j.is_array()) return false;
      const auto elements = doc.elements(r);
      if (elements.size() != j.size()) return false;
      for (size_t i = 0; i < elements.size(); ++i) {
        if (!same_json(doc, elements[i], j[i])) return false;
      }
      return true;
    }
    case T::object: {
      if (!j.is_object()) return false;
      const auto members = doc.members(r);
      if (members.size() != j.size()) return false;
      for (const auto& [key, child] : members) {
        const auto it = j.find(std::string(key));
        if (it == j.end() || !same_json(doc, child, *it)) return false;
      }
      return true;
    }
  }
  return false;
}

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
