// Report validation: JSON Schema (ours or the original 1.1) plus the consistency checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ec::report {

struct ValidationResult {
  // Each failure reads "SOURCE: /json/pointer: what was expected (and what was found)".
  std::vector<std::string> failures;
  bool ok() const { return failures.empty(); }
};

// Our contract: schema/energy.schema.json, then check_consistency. `source_name` (usually the file
// name) starts every failure message.
ValidationResult validate_report(const nlohmann::json& report, std::string_view source_name);

// The original EcoCompute schema 1.1, then check_consistency on the fields that are present. Our
// FP16/INT8/NF4 reports pass it; so do the original container's own reports.
ValidationResult validate_against_original(const nlohmann::json& report,
                                           std::string_view source_name);

// JSON Schema failures of `report` against `schema` (a draft-07 schema document).
std::vector<std::string> schema_failures(const nlohmann::json& report, const nlohmann::json& schema,
                                         std::string_view source_name);

}  // namespace ec::report
