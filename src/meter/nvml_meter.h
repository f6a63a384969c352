// The NVML meter: energy-counter windows, cross-checked by integrated instant power from a sampler.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "meter/meter.h"
#include "meter/power_sample.h"

namespace ec::meter {

class NvmlMeter final : public Meter {
 public:
  // The meter for options.gpu, sampling from now on; nullptr with *reason when the GPU's energy
  // counter cannot be read (the reason names the library, device or NVML code).
  static std::unique_ptr<NvmlMeter> open(const MeterOptions& options, std::string* reason);
  ~NvmlMeter() override;

  std::string name() const override { return "nvml"; }
  bool measures_energy() const override;
  std::string unavailable_reason() const override;
  void begin(std::string_view window) override;
  WindowResult end() override;
  WindowResult next(std::string_view window) override;
  nlohmann::json describe() const override;
  std::optional<double> counter_period_s() const override;

  // Raw material for the bench tools: every sample so far, the driver's buffer samples, and what
  // the sampler thread has cost.
  std::vector<PowerSample> samples() const;
  std::vector<DriverSample> driver_samples() const;
  double sampler_cpu_seconds() const;
  // Reads one sample now outside the sampler's schedule (slow: with the ~10 Hz metrics too).
  PowerSample read_now(bool slow = true) const;

  struct Impl;

 private:
  explicit NvmlMeter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::meter
