// Many windows of one name (an iteration's prefill, its decode, ...) summed into one phase, with
// their telemetry (temperature, clocks, throttling, other processes, counter edges) carried over.
#pragma once

#include <string>
#include <vector>

#include "meter/meter.h"

namespace ec::meter {

// Seconds always; energy (and the cross-check) only when every window has it: a partial sum
// would be a wrong number, not a smaller one. Telemetry: the range and time-weighted mean of each
// summary statistic the windows carry, the union of throttle reasons and GPU processes, NVML
// failures by code, how the counter edges were placed, and how many windows were too short.
WindowResult sum_windows(const std::string& name, const std::vector<WindowResult>& windows);

}  // namespace ec::meter
