// WindowResult → JSON.
#include "meter/window_json.h"

namespace ec::meter {

nlohmann::json to_json(const WindowResult& w) {
  nlohmann::json out = {{"name", w.name}, {"seconds", w.seconds}};
  if (w.energy_j) {
    out["energy_j"] = *w.energy_j;
    out["energy_source"] = w.energy_source;
  }
  if (w.avg_power_w) out["avg_power_w"] = *w.avg_power_w;
  if (w.cross_check_energy_j) {
    out["cross_check_energy_j"] = *w.cross_check_energy_j;
    out["cross_check_source"] = w.cross_check_source;
  }
  out["telemetry"] = w.telemetry;
  return out;
}

}  // namespace ec::meter
