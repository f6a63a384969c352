// The meter interface: named windows over which energy is read, with how each figure was obtained.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ec::meter {

// A window (or an iteration) shorter than this many updates of a stepwise energy counter is too
// short to trust: its figure is a few counter steps.
inline constexpr double kMinCounterUpdates = 3.0;

// The window rule (docs/method.md): every measured iteration lasts at least this many counter
// update periods, holding as many generations as that takes. The aligned edges leave each window
// a few joules off at most; over ten periods (1 s on the H200) that is a fraction of a percent.
inline constexpr double kDefaultMinWindowPeriods = 10.0;

// One closed window. Absent optionals mean "this meter could not measure it", never zero.
struct WindowResult {
  std::string name;                            // "idle", "prefill", "decode", "quality"
  double seconds = 0.0;                        // steady-clock duration of the window
  std::optional<double> energy_j;              // the primary figure
  std::string energy_source;                   // e.g. "nvml_total_energy_counter"; "" when absent
  std::optional<double> cross_check_energy_j;  // e.g. trapezoid-integrated instant power
  std::string cross_check_source;
  std::optional<double> avg_power_w;                    // energy_j / seconds when energy is known
  nlohmann::json telemetry = nlohmann::json::object();  // clocks, temperature, samples, flags
};

class Meter {
 public:
  virtual ~Meter() = default;

  virtual std::string name() const = 0;  // "nvml", "rapl", "unavailable"
  // True when windows carry a hardware energy figure (only then may a report say `measured`).
  virtual bool measures_energy() const = 0;
  // Why it does not, when it does not.
  virtual std::string unavailable_reason() const { return {}; }

  // Opens a window. The caller has already synchronised the device it measures.
  virtual void begin(std::string_view window) = 0;
  // Closes the open window and returns what was measured over it.
  virtual WindowResult end() = 0;
  // Closes the open window and opens `window` at the same edge: energies of abutting windows
  // then add up to the energy across both (e.g. an iteration's prefill and decode).
  virtual WindowResult next(std::string_view window) {
    WindowResult closed = end();
    begin(window);
    return closed;
  }

  // Static facts for the report: device, method, sample rate, counter update period, ...
  virtual nlohmann::json describe() const = 0;

  // Seconds between updates of a stepwise energy counter (detected, else assumed); absent when
  // the meter has no such counter, and then no window rule applies.
  virtual std::optional<double> counter_period_s() const { return std::nullopt; }
};

// A meter that times windows but measures no energy, stating `reason` in its description.
std::unique_ptr<Meter> make_unavailable_meter(std::string reason);

// How to choose and run the best meter on this machine.
struct MeterOptions {
  std::optional<unsigned> gpu;  // index among the visible GPUs (CUDA_VISIBLE_DEVICES order); 0
  double hz = 10.0;             // sampler rate; 100 for short phases
  double counter_hz = 25.0;  // energy-counter reads by the sampler (≤ hz): ~4 ms CPU each on H200
  std::string nvml_library;  // "" = EC_NVML_LIBRARY or libnvidia-ml.so.1
  std::filesystem::path rapl_root = "/sys/class/powercap";  // CPU energy (reported alongside)
  // Start each window just after the counter updates and end it at the next update after the
  // work, less the energy outside the work (the tail at the counter's power over the following
  // period): without this a window's counter figure is off by up to one update step (~50 J at
  // 500 W on the H200) at each edge. Needs instant power (the start's few ms).
  bool align_counter_edges = true;
};

// The NVML meter when a GPU is present and its energy counter reads; otherwise an unavailable
// meter whose reason says exactly why (library missing, no device, not supported, no permission).
std::unique_ptr<Meter> make_best_meter(const MeterOptions& options = {});

// For `ecocompute info`: the NVML library, driver, and per visible GPU what it can measure
// ({"available": bool, "reason": ..., "gpus": [...], "rapl": {...}}). Never throws.
nlohmann::json describe_gpus(const MeterOptions& options = {});

}  // namespace ec::meter
