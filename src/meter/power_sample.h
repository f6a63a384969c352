// One reading of the GPU's power telemetry at a steady-clock instant; every metric optional.
#pragma once

#include <optional>

namespace ec::meter {

struct PowerSample {
  double t_s = 0.0;                             // steady-clock seconds (steady_seconds())
  std::optional<double> power_instant_w;        // field 186, scope GPU
  std::optional<double> power_average_w;        // field 185, scope GPU; slow ticks only
  std::optional<double> power_usage_w;          // GetPowerUsage (the original's); slow only
  std::optional<double> memory_power_w;         // field 186 (else 185), scope MEMORY
  std::optional<unsigned long long> energy_mj;  // total energy counter
  double energy_t_s = 0.0;                      // when it was read (the middle of that call)
  double energy_read_s = 0.0;                   // how long that call took
  std::optional<unsigned> sm_clock_mhz;         // slow metrics: read every few samples
  std::optional<unsigned> mem_clock_mhz;
  std::optional<unsigned> temperature_c;
  std::optional<unsigned long long> clock_event_reasons;
  int error = 0;  // an NVML failure other than NOT_SUPPORTED/FUNCTION_NOT_FOUND seen in this read
};

// A driver power-buffer sample (nvmlDeviceGetSamples), converted to steady-clock seconds.
struct DriverSample {
  double t_s = 0.0;
  double power_w = 0.0;
};

}  // namespace ec::meter
