// Metering any command: an idle baseline, then the child's whole lifetime as one window.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meter/meter.h"

namespace ec::meter {

struct MeasureOptions {
  double idle_seconds = 3.0;  // 0: no idle baseline; none either when the meter measures no energy
  std::optional<double> grid_gco2_per_kwh;  // optional CO₂e inputs, user-supplied
  std::optional<double> pue;
};

struct MeasureResult {
  int exit_status = 0;  // the child's; 128 + signal when it was killed; 127 when it could not start
  nlohmann::json report;
};

// Runs argv[0] (searched in PATH) with argv as a child process under `meter`. Throws ec::Error when
// the command cannot be started (the message says why); otherwise returns its status and the
// report.
MeasureResult measure_command(Meter& meter, const std::vector<std::string>& argv,
                              const MeasureOptions& options);

// kWh × PUE × grid intensity: the derived CO₂e block of a report (labelled as derived).
nlohmann::json co2e_json(double energy_j, double grid_gco2_per_kwh, double pue);

}  // namespace ec::meter
