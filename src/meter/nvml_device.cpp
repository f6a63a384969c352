// NVML session setup (library, init, CUDA_VISIBLE_DEVICES) and per-metric support probing.
#include "meter/nvml_device.h"

#include <fmt/format.h>

#include "meter/gpu_select.h"

namespace ec::meter {
namespace {

nlohmann::json support(bool ok, nvml::Return code) {
  if (ok) return {{"supported", true}};
  return {{"supported", false}, {"reason", nvml::return_name(code)}};
}

}  // namespace

NvmlSession open_nvml(const MeterOptions& options) {
  NvmlSession session;
  std::string path =
      options.nvml_library.empty() ? nvml::Library::default_path() : options.nvml_library;
  session.lib = nvml::Library::open(path);
  const auto& lib = *session.lib;
  if (!lib.loaded()) {
    session.reason = fmt::format("NVML library not found ({}): no NVIDIA driver on this machine",
                                 lib.load_error());
    return session;
  }
  if (lib.init_code() != nvml::kSuccess) {
    if (lib.init_code() == nvml::kFunctionNotFound) {
      session.reason = lib.load_error();
    } else if (lib.init_code() == nvml::kNoPermission) {
      session.reason =
          fmt::format("nvmlInit: no permission ({})", nvml::return_name(lib.init_code()));
    } else {
      session.reason = fmt::format("nvmlInit failed: {} (is the NVIDIA driver loaded?)",
                                   nvml::return_name(lib.init_code()));
    }
    return session;
  }
  auto count = lib.device_count();
  if (!count.ok()) {
    session.reason = fmt::format("nvmlDeviceGetCount failed: {}", nvml::return_name(count.code));
    return session;
  }
  if (*count.value == 0) {
    session.reason = "no NVIDIA GPU: NVML reports 0 devices";
    return session;
  }
  std::vector<std::string> uuids;
  for (unsigned i = 0; i < *count.value; ++i) {
    auto handle = lib.device_by_index(i);
    std::string uuid;
    if (handle.ok()) uuid = lib.uuid(*handle.value).value.value_or("");
    uuids.push_back(uuid);
  }
  auto env = cuda_visible_devices_env();
  session.visible = visible_nvml_indices(env, uuids);
  if (session.visible.empty()) {
    session.reason = fmt::format("CUDA_VISIBLE_DEVICES='{}' names none of the {} GPUs",
                                 env.value_or(""), uuids.size());
  }
  return session;
}

DeviceProbe probe_device(const nvml::Library& lib, unsigned nvml_index) {
  DeviceProbe p;
  p.nvml_index = nvml_index;
  auto handle = lib.device_by_index(nvml_index);
  if (!handle.ok()) {
    p.counter_reason = fmt::format("nvmlDeviceGetHandleByIndex({}) failed: {}", nvml_index,
                                   nvml::return_name(handle.code));
    p.metrics = nlohmann::json::object();
    return p;
  }
  p.handle = *handle.value;
  auto dev = p.handle;
  p.identity = {{"nvml_index", nvml_index}};
  if (auto name = lib.name(dev); name.ok()) p.identity["name"] = *name.value;
  if (auto uuid = lib.uuid(dev); uuid.ok()) p.identity["uuid"] = *uuid.value;
  if (auto arch = lib.architecture(dev); arch.ok()) {
    p.identity["architecture"] = nvml::architecture_name(*arch.value);
  }
  if (auto limit = lib.power_limit_mw(dev); limit.ok()) {
    p.identity["power_limit_w"] = *limit.value / 1000.0;
  }

  auto energy = lib.total_energy_mj(dev);
  p.counter = energy.ok();
  if (!p.counter) {
    std::string name = p.identity.value("name", "this GPU");
    if (energy.code == nvml::kNoPermission) {
      p.counter_reason = fmt::format("no permission to read the energy counter of {} ({})", name,
                                     nvml::return_name(energy.code));
    } else if (energy.code == nvml::kFunctionNotFound) {
      p.counter_reason = fmt::format("{} lacks nvmlDeviceGetTotalEnergyConsumption", lib.path());
    } else if (energy.code == nvml::kNotSupported) {
      p.counter_reason =
          fmt::format("energy counter not supported on {} (needs Volta or newer): {}", name,
                      nvml::return_name(energy.code));
    } else {
      p.counter_reason =
          fmt::format("energy counter of {} unreadable: {}", name, nvml::return_name(energy.code));
    }
  }
  nvml::FieldValue fields[3] = {{nvml::kFieldPowerInstant, nvml::kScopeGpu, 0, 0, {}, 0, {}},
                                {nvml::kFieldPowerAverage, nvml::kScopeGpu, 0, 0, {}, 0, {}},
                                {nvml::kFieldPowerInstant, nvml::kScopeMemory, 0, 0, {}, 0, {}}};
  lib.field_values(dev, fields);
  p.instant = fields[0].nvml_return == nvml::kSuccess;
  p.average = fields[1].nvml_return == nvml::kSuccess;
  p.memory = fields[2].nvml_return == nvml::kSuccess;
  if (!p.memory) {  // some drivers give memory power only as the averaged field
    nvml::FieldValue avg[1] = {{nvml::kFieldPowerAverage, nvml::kScopeMemory, 0, 0, {}, 0, {}}};
    lib.field_values(dev, avg);
    if (avg[0].nvml_return == nvml::kSuccess) {
      p.memory = true;
      p.memory_field = nvml::kFieldPowerAverage;
      fields[2].nvml_return = nvml::kSuccess;
    }
  }
  auto usage = lib.power_usage_mw(dev);
  p.usage = usage.ok();
  auto samples = lib.power_samples(dev, 0);
  p.samples = samples.ok();
  auto sm = lib.clock_mhz(dev, nvml::kClockSm);
  auto mem = lib.clock_mhz(dev, nvml::kClockMem);
  p.clocks = sm.ok() || mem.ok();
  auto temp = lib.temperature_c(dev);
  p.temperature = temp.ok();
  auto reasons = lib.clock_event_reasons(dev);
  p.reasons = reasons.ok();
  p.metrics = {
      {"energy_counter", support(p.counter, energy.code)},
      {"power_instant", support(p.instant, fields[0].nvml_return)},
      {"power_average", support(p.average, fields[1].nvml_return)},
      {"memory_power", support(p.memory, fields[2].nvml_return)},
      {"power_usage", support(p.usage, usage.code)},
      {"power_samples", support(p.samples, samples.code)},
      {"clocks", support(p.clocks, sm.code)},
      {"temperature", support(p.temperature, temp.code)},
      {"clock_event_reasons", support(p.reasons, reasons.code)},
  };
  if (p.memory) p.metrics["memory_power"]["field"] = p.memory_field;
  return p;
}

}  // namespace ec::meter
