// The one rule for "this record is a hardware measurement", shared by `validate`, the store and
// every analysis (aggregate, compare, fit, check-regression, site, serve): basis `measured`, a
// hardware energy meter named as the source, and nothing in that source saying it is not real.
#pragma once

#include <string>
#include <string_view>

namespace ec::report {

// True for sources a hardware energy meter produces: nvml*, direct-nvml (the original's), rapl*.
bool is_hardware_source(std::string_view measurement_source);

// True for a run that measured no energy and says so (basis 'unavailable': the CPU without a
// readable RAPL counter, a GPU without an energy counter). Its clock and quality probe still
// measured throughput, KL and top-1, which aggregate, compare and the site show; no energy figure
// of it is ever used.
bool is_run_without_energy(std::string_view basis);

// Why a record with this basis and measurement source is not a hardware measurement, in a few
// words for people ("basis is 'interpolated', not 'measured'"); empty when it is one.
std::string why_not_a_measurement(std::string_view basis, std::string_view measurement_source);

}  // namespace ec::report
