// The meter of last resort: times windows, measures no energy, and says why.
#include <chrono>

#include "core/error.h"
#include "meter/meter.h"

namespace ec::meter {
namespace {

class UnavailableMeter final : public Meter {
 public:
  explicit UnavailableMeter(std::string reason) : reason_(std::move(reason)) {}

  std::string name() const override { return "unavailable"; }
  bool measures_energy() const override { return false; }
  std::string unavailable_reason() const override { return reason_; }

  void begin(std::string_view window) override {
    EC_CHECK(!open_, "meter: window '{}' opened while '{}' is still open", window, window_);
    open_ = true;
    window_ = std::string(window);
    start_ = std::chrono::steady_clock::now();
  }

  WindowResult end() override {
    EC_CHECK(open_, "meter: end() without an open window");
    open_ = false;
    WindowResult result;
    result.name = window_;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return result;
  }

  nlohmann::json describe() const override {
    return {{"name", name()}, {"measures_energy", false}, {"reason", reason_}};
  }

 private:
  std::string reason_;
  bool open_ = false;
  std::string window_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::unique_ptr<Meter> make_unavailable_meter(std::string reason) {
  return std::make_unique<UnavailableMeter>(std::move(reason));
}

}  // namespace ec::meter
