// RunRecord <-> energy.json (schema/energy.schema.json), and the validated atomic report writer.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "report/run_record.h"

namespace ec::report {

inline constexpr const char* kSchemaVersion = "ecocompute-energy/1.1";
inline constexpr const char* kReportFormat = "ecocompute/1";
inline constexpr const char* kBenchmark = "ecocompute-energy-methodology";

// The report as JSON, field names as in the original schema 1.1 plus ours. Derived blocks
// (measurement, software, measurement_source, scenario) are computed from the record.
nlohmann::json to_json(const RunRecord& record);

// The inverse of to_json for a report of ours; throws ec::Error naming the JSON pointer of a
// missing or mistyped field. Derived blocks are not read back.
RunRecord run_record_from_json(const nlohmann::json& report);

// Validates to_json(record) (schema + consistency) and only then writes it atomically; on failure
// throws ec::Error listing every failure and leaves `path` untouched.
void write_report(const std::filesystem::path& path, const RunRecord& record);

// The same for a report already in JSON form.
void write_report_json(const std::filesystem::path& path, const nlohmann::json& report);

}  // namespace ec::report
