// The checks every imported run passes before it is stored, whatever file it came from (a report,
// a published CSV row, a measured.csv row): values that cannot be true of any run are refused.
#pragma once

#include <string>
#include <vector>

#include "store/run_row.h"

namespace ec::analysis {

// Precisions a run may name: ours (schema/energy.schema.json) and the original's FP8.
bool is_known_precision(const std::string& precision);

// True for an ISO-8601 date or date-time ("2026-08-19", "2026-08-19T06:05:13.804523Z",
// "2026-08-19 06:05:13+00:00").
bool is_iso8601(const std::string& timestamp);

// Each failure as "field 'NAME': expected …, got …"; empty when the run passes. vs_fp16_energy_pct
// must agree with the two energies it was computed from, within the rounding they were written
// with.
std::vector<std::string> row_check_failures(const store::RunRow& row);

}  // namespace ec::analysis
