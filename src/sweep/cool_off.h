// Rest between cells on one GPU: fixed seconds, or until the GPU is back within a few degrees of
// the temperature it had before the sweep started (leakage makes a warm GPU draw more power).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace ec::sweep {

// GPU temperature in °C for a GPU index of the sweep (-1: the default device), or nullopt with
// `reason` set when it cannot be read.
using TemperatureReader = std::function<std::optional<double>(int gpu, std::string& reason)>;

struct CoolOffPolicy {
  double seconds = 0.0;            // fixed rest after each cell
  std::optional<double> within_c;  // rest until temperature <= idle + within_c
  double max_wait_s = 600.0;       // a temperature wait never exceeds this
  double poll_s = 1.0;
  TemperatureReader read_temperature;  // needed when within_c is set
};

// Tracks each GPU's idle reference and when its slot may start the next cell.
class CoolOff {
 public:
  explicit CoolOff(CoolOffPolicy policy) : policy_(std::move(policy)) {}

  // Records the idle reference of `gpu` (call before its first cell). Throws ec::Error when a
  // temperature cool-off was asked for and the temperature cannot be read.
  void record_idle(int gpu);
  std::optional<double> idle_c(int gpu) const;

  // A cell just finished on `gpu` at `now_s` (any monotonic clock in seconds).
  void cell_finished(int gpu, double now_s);
  // Whether `gpu` may start its next cell at `now_s`. `note` gets a line when a temperature wait
  // gave up at max_wait_s.
  bool ready(int gpu, double now_s, std::string& note);

 private:
  CoolOffPolicy policy_;
  std::map<int, double> idle_c_;
  std::map<int, double> finished_at_;
};

// The NVML reader: the GPU's temperature through libnvidia-ml (sweep index → CUDA_VISIBLE_DEVICES
// order → NVML index).
TemperatureReader nvml_temperature_reader();

}  // namespace ec::sweep
