// The idle baseline: power with nothing running, so reports can give energy above idle.
#pragma once

#include <optional>

#include "meter/meter.h"

namespace ec::meter {

struct IdleBaseline {
  WindowResult window;            // the "idle" window as measured
  std::optional<double> power_w;  // its average power; absent when the meter measures no energy
};

// Holds an "idle" window open for `seconds` (the caller keeps the device idle meanwhile).
IdleBaseline measure_idle(Meter& meter, double seconds);

// energy − idle power × duration; absent unless both are known.
std::optional<double> energy_above_idle_j(const WindowResult& window, const IdleBaseline& idle);

// The baseline as report JSON: {"seconds", "power_w" | "reason", "energy_j", ...}.
nlohmann::json to_json(const IdleBaseline& idle);

}  // namespace ec::meter
