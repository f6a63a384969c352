// describe_gpus(): the visible GPUs and what each can measure, for `ecocompute info`.
#include <fmt/format.h>

#include "meter/gpu_select.h"
#include "meter/meter.h"
#include "meter/nvml_device.h"
#include "meter/rapl.h"

namespace ec::meter {

nlohmann::json describe_gpus(const MeterOptions& options) {
  nlohmann::json out;
  try {
    out["rapl"] = RaplReader(options.rapl_root).describe();
    auto session = open_nvml(options);
    out["library"] = session.lib->path();
    out["available"] = session.reason.empty();
    if (!session.reason.empty()) out["reason"] = session.reason;
    if (auto env = cuda_visible_devices_env()) out["cuda_visible_devices"] = *env;
    if (!session.lib->ready()) return out;
    if (auto v = session.lib->driver_version(); v.ok()) out["driver_version"] = *v.value;
    if (auto v = session.lib->nvml_version(); v.ok()) out["nvml_version"] = *v.value;
    nlohmann::json gpus = nlohmann::json::array();
    for (unsigned i = 0; i < session.visible.size(); ++i) {
      auto probe = probe_device(*session.lib, session.visible[i]);
      nlohmann::json gpu = probe.identity.is_null() ? nlohmann::json::object() : probe.identity;
      gpu["index"] = i;
      gpu["metrics"] = probe.metrics;
      gpu["energy_meter"] = probe.counter ? "nvml_total_energy_counter" : "unavailable";
      if (!probe.counter) gpu["reason"] = probe.counter_reason;
      gpus.push_back(gpu);
    }
    out["gpus"] = gpus;
  } catch (const std::exception& e) {
    out["available"] = false;
    out["reason"] = fmt::format("probing GPUs failed: {}", e.what());
  }
  return out;
}

}  // namespace ec::meter
