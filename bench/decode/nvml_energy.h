// The GPU's total-energy counter (NVML, millijoules since driver load) read through dlopen, so the
// benchmark needs no NVML at build time and states why when the counter is not there.
#pragma once

#include <dlfcn.h>

#include <optional>
#include <string>

namespace ec::bench {

class NvmlEnergy {
 public:
  explicit NvmlEnergy(unsigned index) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (lib_ == nullptr) {
      reason_ = "libnvidia-ml.so.1 not found";
      return;
    }
    using Init = int (*)();
    using Handle = int (*)(unsigned, void**);
    const auto init = reinterpret_cast<Init>(dlsym(lib_, "nvmlInit_v2"));
    const auto handle = reinterpret_cast<Handle>(dlsym(lib_, "nvmlDeviceGetHandleByIndex_v2"));
    energy_ = reinterpret_cast<Energy>(dlsym(lib_, "nvmlDeviceGetTotalEnergyConsumption"));
    if (init == nullptr || handle == nullptr || energy_ == nullptr) {
      reason_ = "NVML lacks nvmlInit_v2/GetHandleByIndex_v2/GetTotalEnergyConsumption";
      energy_ = nullptr;
      return;
    }
    unsigned long long mj = 0;
    if (init() != 0 || handle(index, &device_) != 0 || energy_(device_, &mj) != 0) {
      reason_ = "the energy counter did not read on this GPU";
      energy_ = nullptr;
    }
  }
  ~NvmlEnergy() {
    if (lib_ != nullptr) dlclose(lib_);
  }
  NvmlEnergy(const NvmlEnergy&) = delete;
  NvmlEnergy& operator=(const NvmlEnergy&) = delete;

  bool available() const { return energy_ != nullptr; }
  const std::string& reason() const { return reason_; }
  // Joules since the driver loaded, or nothing.
  std::optional<double> joules() const {
    unsigned long long mj = 0;
    if (energy_ == nullptr || energy_(device_, &mj) != 0) return std::nullopt;
    return static_cast<double>(mj) / 1000.0;
  }

 private:
  using Energy = int (*)(void*, unsigned long long*);
  void* lib_ = nullptr;
  void* device_ = nullptr;
  Energy energy_ = nullptr;
  std::string reason_;
};

}  // namespace ec::bench
