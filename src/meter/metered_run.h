// Metering any command: an idle baseline, then the child's whole lifetime as one window.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
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

// What a started command gets beyond this process's environment.
struct SpawnOptions {
  std::vector<std::pair<std::string, std::string>> env;  // variables set for the command
  int inherit_fd = -1;  // a descriptor the command keeps open across exec (close-on-exec cleared)
};

// Starts argv[0] (searched in PATH); throws ec::Error naming the command when it cannot be run.
pid_t spawn_command(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Waits for a spawned command: its exit status, 128 + signal when it was killed.
int wait_command(pid_t pid);

// kWh × PUE × grid intensity: the derived CO₂e block of a report (labelled as derived).
nlohmann::json co2e_json(double energy_j, double grid_gco2_per_kwh, double pue);

}  // namespace ec::meter
