// RaplMeter: windows over RAPL's package (+ DRAM) energy counters; abutting windows share a read.
#include "meter/rapl_meter.h"

#include <chrono>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "meter/rapl.h"

namespace ec::meter {
namespace {

using Clock = std::chrono::steady_clock;
using Reading = std::vector<std::optional<unsigned long long>>;

class RaplMeter final : public Meter {
 public:
  explicit RaplMeter(const std::filesystem::path& root) : reader_(root) {
    for (const auto& zone : reader_.zones()) has_dram_ = has_dram_ || zone.dram;
  }

  std::string name() const override { return "rapl"; }
  bool measures_energy() const override { return reader_.available(); }
  std::string unavailable_reason() const override { return reader_.reason(); }

  void begin(std::string_view window) override {
    EC_CHECK(!open_, "meter: window '{}' opened while '{}' is still open", window, window_);
    open_ = true;
    window_ = std::string(window);
    before_ = reader_.read();
    start_ = Clock::now();
  }

  WindowResult end() override {
    EC_CHECK(open_, "meter: end() without an open window");
    open_ = false;
    return close(reader_.read(), Clock::now());
  }

  // One read closes this window and opens the next, so their energies add up exactly.
  WindowResult next(std::string_view window) override {
    EC_CHECK(open_, "meter: next('{}') without an open window", window);
    Reading now = reader_.read();
    const Clock::time_point at = Clock::now();
    WindowResult closed = close(now, at);
    window_ = std::string(window);
    before_ = std::move(now);
    start_ = at;
    return closed;
  }

  nlohmann::json describe() const override {
    nlohmann::json out = {
        {"name", name()}, {"measures_energy", measures_energy()}, {"rapl", reader_.describe()}};
    if (!measures_energy()) {
      out["reason"] = reader_.reason();
      return out;
    }
    out["energy_source"] = source();
    out["method"] = fmt::format(
        "RAPL energy counters ({}) read at each window edge through /sys/class/powercap; the "
        "whole package is counted, other processes on it included",
        has_dram_ ? "package + DRAM" : "package; no DRAM zone on this machine");
    return out;
  }

 private:
  std::string source() const { return has_dram_ ? "rapl_package_dram" : "rapl_package"; }

  WindowResult close(const Reading& after, Clock::time_point at) const {
    WindowResult result;
    result.name = window_;
    result.seconds = std::chrono::duration<double>(at - start_).count();
    if (!reader_.available()) return result;
    nlohmann::json energy = reader_.energy_between(before_, after);
    result.telemetry = {{"rapl", energy}};
    if (energy.contains("unreadable") || !energy.contains("package_j")) return result;
    double joules = energy["package_j"].get<double>();
    if (energy.contains("dram_j")) joules += energy["dram_j"].get<double>();
    result.energy_j = joules;
    result.energy_source = source();
    if (result.seconds > 0.0) result.avg_power_w = joules / result.seconds;
    return result;
  }

  RaplReader reader_;
  bool has_dram_ = false;
  bool open_ = false;
  std::string window_;
  Reading before_;
  Clock::time_point start_;
};

}  // namespace

std::unique_ptr<Meter> make_rapl_meter(const std::filesystem::path& root) {
  return std::make_unique<RaplMeter>(root);
}

}  // namespace ec::meter
