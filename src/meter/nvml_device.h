// Opening NVML for the visible GPUs and probing what one GPU can measure (each metric optional).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meter/meter.h"
#include "meter/nvml_api.h"

namespace ec::meter {

// The library and the GPUs a CUDA program would see, or the reason there are none.
struct NvmlSession {
  std::shared_ptr<nvml::Library> lib;
  std::vector<unsigned> visible;  // NVML indices in CUDA order
  std::string reason;             // empty when lib is ready and visible is non-empty
};
NvmlSession open_nvml(const MeterOptions& options);

// What a GPU offers: identity and, per metric, supported or the NVML code that says why not.
struct DeviceProbe {
  unsigned nvml_index = 0;
  nvml::Device handle = nullptr;
  nlohmann::json identity;  // name, uuid, architecture, power_limit_w
  nlohmann::json metrics;   // {"energy_counter": {"supported": true}, "power_instant": {...}, ...}
  bool counter = false, instant = false, average = false, memory = false, usage = false;
  bool samples = false, clocks = false, temperature = false, reasons = false;
  unsigned memory_field = 186;  // memory-scope power: instant when supported, else the average
  std::string counter_reason;   // why the energy counter cannot be used, when it cannot
};
DeviceProbe probe_device(const nvml::Library& lib, unsigned nvml_index);

}  // namespace ec::meter
