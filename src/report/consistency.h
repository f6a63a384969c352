// Internal consistency of a report: totals vs power and throughput, deltas vs their parts, basis vs
// meter and nulls, iterations vs totals vs protocol. Works on our reports and the original's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/measurement_rule.h"

namespace ec::report {

// Relative tolerance of total_energy / tokens against avg_power / throughput (MEASUREMENT.md).
inline constexpr double kEnergyPowerTolerance = 0.02;
// Relative tolerance of a total against the sum of its iterations, and of a rate against its parts.
inline constexpr double kSumTolerance = 0.01;

// Every failed check as "SOURCE: /json/pointer: what is inconsistent"; checks whose fields are
// absent are skipped (the schema decides what must be present).
std::vector<std::string> check_consistency(const nlohmann::json& report,
                                           std::string_view source_name);

// True when the report claims a measurement a hardware meter produced in that run, by the one rule
// of report/measurement_rule.h on results.basis and measurement_source. The original's no-GPU
// reports (basis interpolated) and its illustrative example (an ILLUSTRATIVE source) are not.
bool is_measurement(const nlohmann::json& report);

// Half a unit of the last decimal `value` was written with (29.8 -> 0.05; 1659 -> 0.5), at most
// 1e-9 for values carrying full double precision: the rounding a recomputation must allow for.
double rounding_half_unit(double value);

}  // namespace ec::report
