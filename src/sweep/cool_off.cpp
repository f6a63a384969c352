// Cool-off bookkeeping per GPU, and the NVML temperature reader it uses on real GPUs.
#include "sweep/cool_off.h"

#include <fmt/format.h>

#include <memory>

#include "core/error.h"
#include "meter/nvml_device.h"

namespace ec::sweep {

void CoolOff::record_idle(int gpu) {
  if (!policy_.within_c) return;
  std::string reason;
  std::optional<double> t =
      policy_.read_temperature ? policy_.read_temperature(gpu, reason) : std::nullopt;
  if (!t) {
    fail("--cooloff-temp-c: cannot read the temperature of GPU {}: {}",
         gpu < 0 ? std::string("(default)") : std::to_string(gpu),
         reason.empty() ? "no temperature reader" : reason);
  }
  idle_c_[gpu] = *t;
}

std::optional<double> CoolOff::idle_c(int gpu) const {
  auto it = idle_c_.find(gpu);
  return it == idle_c_.end() ? std::nullopt : std::optional<double>(it->second);
}

void CoolOff::cell_finished(int gpu, double now_s) {
  finished_at_[gpu] = now_s;
}

bool CoolOff::ready(int gpu, double now_s, std::string& note) {
  auto it = finished_at_.find(gpu);
  if (it == finished_at_.end()) return true;  // nothing ran on it yet
  const double since = now_s - it->second;
  if (since < policy_.seconds) return false;
  if (!policy_.within_c) return true;
  if (since >= policy_.max_wait_s) {
    note = fmt::format(
        "GPU {} did not cool to within {:.1f} °C of its idle {:.1f} °C in {:.0f} s; "
        "starting the next cell anyway",
        gpu, *policy_.within_c, idle_c_.at(gpu), policy_.max_wait_s);
    finished_at_.erase(it);
    return true;
  }
  std::string reason;
  std::optional<double> t = policy_.read_temperature(gpu, reason);
  // A reading that fails mid-sweep is not a reason to stop: wait out max_wait_s instead.
  if (t && *t <= idle_c_.at(gpu) + *policy_.within_c) {
    finished_at_.erase(it);
    return true;
  }
  return false;
}

TemperatureReader nvml_temperature_reader() {
  auto session = std::make_shared<meter::NvmlSession>(meter::open_nvml({}));
  return [session](int gpu, std::string& reason) -> std::optional<double> {
    if (!session->reason.empty()) {
      reason = session->reason;
      return std::nullopt;
    }
    const size_t index = gpu < 0 ? 0 : static_cast<size_t>(gpu);
    if (index >= session->visible.size()) {
      reason = fmt::format("only {} GPU(s) visible", session->visible.size());
      return std::nullopt;
    }
    auto device = session->lib->device_by_index(session->visible[index]);
    if (!device.ok()) {
      reason = "NVML device handle: " + meter::nvml::return_name(device.code);
      return std::nullopt;
    }
    auto t = session->lib->temperature_c(*device.value);
    if (!t.ok()) {
      reason = "NVML temperature: " + meter::nvml::return_name(t.code);
      return std::nullopt;
    }
    return static_cast<double>(*t.value);
  };
}

}  // namespace ec::sweep
