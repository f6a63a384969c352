// Idle baseline measurement and energy above idle.
#include "meter/idle_baseline.h"

#include <chrono>
#include <thread>

#include "core/error.h"

namespace ec::meter {

IdleBaseline measure_idle(Meter& meter, double seconds) {
  EC_CHECK(seconds > 0.0, "meter: idle baseline needs a positive duration, got {} s", seconds);
  IdleBaseline idle;
  meter.begin("idle");
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  idle.window = meter.end();
  idle.power_w = idle.window.avg_power_w;
  return idle;
}

std::optional<double> energy_above_idle_j(const WindowResult& window, const IdleBaseline& idle) {
  if (!window.energy_j || !idle.power_w) return std::nullopt;
  return *window.energy_j - *idle.power_w * window.seconds;
}

nlohmann::json to_json(const IdleBaseline& idle) {
  nlohmann::json out = {{"seconds", idle.window.seconds}};
  if (idle.power_w) {
    out["power_w"] = *idle.power_w;
    out["energy_j"] = *idle.window.energy_j;
    out["source"] = idle.window.energy_source;
  } else {
    out["reason"] = idle.window.telemetry.value("energy_unavailable_reason",
                                                std::string("the meter measures no energy"));
  }
  out["telemetry"] = idle.window.telemetry;
  return out;
}

}  // namespace ec::meter
