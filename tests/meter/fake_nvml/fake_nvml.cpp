// A fake libnvidia-ml for meter tests: NVML's C ABI driven by a JSON script (FAKE_NVML_SCRIPT).
//
// Time is real: t = steady-clock seconds since nvmlInit, so the meter under test runs unchanged.
// The script (all keys optional):
//   {"init_return": 0, "devices": [{
//      "name": "Fake H200", "uuid": "GPU-...", "architecture": 9, "power_limit_w": 700,
//      "power": [[t_s, watts], ...],        piecewise linear; two points at one t make a step
//      "memory_power_w": 34, "counter_period_s": 0.1, "counter_start_mj": 5000,
//      "sample_period_s": 0.02,               driver power buffer (last 120 kept)
//      "unsupported": ["nvmlDeviceGetPowerUsage", "field:186:0", ...],   → NOT_SUPPORTED (3)
//      "failures": [{"function": "...", "from_s": 0.5, "to_s": 0.7, "code": 999}],
//      "lost_after_s": 1.5,                   every device call → GPU_IS_LOST (15) afterwards
//      "processes": [1234]}]}
// Built twice: the full library, and with FAKE_NVML_MINIMAL only unversioned legacy symbols
// (no _v2 names, no field values, samples, processes or clock-event reasons).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3,
              kNotFound = 6, kInsufficientSize = 7, kGpuIsLost = 15, kUnknown = 999;

struct Failure {
  std::string function;
  double from_s = 0.0, to_s = 1e300;
  int code = kUnknown;
};

struct Device {
  std::string name = "Fake GPU", uuid = "GPU-00000000-0000-0000-0000-000000000000";
  unsigned architecture = 9;
  unsigned power_limit_mw = 700000;
  std::vector<std::pair<double, double>> power{{0.0, 100.0}};
  double memory_power_w = 30.0;
  double counter_period_s = 0.1;
  unsigned long long counter_start_mj = 0;
  double sample_period_s = 0.02;
  std::vector<std::string> unsupported;
  std::vector<Failure> failures;
  double lost_after_s = 1e300;
  std::vector<unsigned> processes;
};

struct State {
  bool initialized = false;
  int init_return = kSuccess;
  std::vector<Device> devices;
  std::chrono::steady_clock::time_point epoch;
  long long epoch_realtime_us = 0;
};

std::mutex g_mutex;
State g_state;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_state.epoch).count();
}

double power_at(const Device& d, double t) {
  const auto& p = d.power;
  if (t <= p.front().first) return p.front().second;
  for (size_t i = 1; i < p.size(); ++i) {
    if (t < p[i].first) {
      double span = p[i].first - p[i - 1].first;
      double w = span > 0 ? (t - p[i - 1].first) / span : 1.0;
      return p[i - 1].second + w * (p[i].second - p[i - 1].second);
    }
  }
  return p.back().second;
}

// Exact ∫_0^t P dt in joules for the piecewise-linear trace (power before 0 = first value).
double energy_to(const Device& d, double t) {
  const auto& p = d.power;
  if (t <= 0) return p.front().second * t;
  double e = 0.0, prev_t = 0.0, prev_p = power_at(d, 0.0);
  for (const auto& [pt, pw] : p) {
    if (pt <= 0.0) continue;
    if (pt >= t) {  // the last, partial segment: interpolate towards this point
      double span = pt - prev_t;
      double end_p = span > 0 ? prev_p + (pw - prev_p) * (t - prev_t) / span : pw;
      return e + 0.5 * (prev_p + end_p) * (t - prev_t);
    }
    e += 0.5 * (prev_p + pw) * (pt - prev_t);
    prev_t = pt;
    prev_p = pw;
  }
  return e + p.back().second * (t - prev_t);
}

Device* device_of(void* handle) {
  for (auto& d : g_state.devices) {
    if (&d == handle) return &d;
  }
  return nullptr;
}

// The scripted code for `function` now: lost, unsupported, a failure window, or success.
int scripted(const Device& d, const std::string& function) {
  double t = now_s();
  if (t >= d.lost_after_s) return kGpuIsLost;
  if (std::find(d.unsupported.begin(), d.unsupported.end(), function) != d.unsupported.end()) {
    return kNotSupported;
  }
  for (const auto& f : d.failures) {
    if (f.function == function && t >= f.from_s && t < f.to_s) return f.code;
  }
  return kSuccess;
}

void load_script() {
  g_state = State{};
  g_state.epoch = std::chrono::steady_clock::now();
  g_state.epoch_realtime_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  const char* path = std::getenv("FAKE_NVML_SCRIPT");
  nlohmann::json script = nlohmann::json::object();
  if (path != nullptr && *path != '\0') {
    std::ifstream in(path);
    script = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (script.is_discarded()) script = {{"init_return", kUnknown}};
  } else {
    script = {{"devices", nlohmann::json::array({nlohmann::json::object()})}};
  }
  g_state.init_return = script.value("init_return", kSuccess);
  for (const auto& j : script.value("devices", nlohmann::json::array())) {
    Device d;
    d.name = j.value("name", d.name);
    d.uuid = j.value("uuid", d.uuid);
    d.architecture = j.value("architecture", d.architecture);
    d.power_limit_mw = static_cast<unsigned>(j.value("power_limit_w", 700.0) * 1000.0);
    if (j.contains("power")) {
      d.power.clear();
      for (const auto& pt : j["power"])
        d.power.emplace_back(pt[0].get<double>(), pt[1].get<double>());
    }
    d.memory_power_w = j.value("memory_power_w", d.memory_power_w);
    d.counter_period_s = j.value("counter_period_s", d.counter_period_s);
    d.counter_start_mj = j.value("counter_start_mj", d.counter_start_mj);
    d.sample_period_s = j.value("sample_period_s", d.sample_period_s);
    d.unsupported = j.value("unsupported", d.unsupported);
    for (const auto& f : j.value("failures", nlohmann::json::array())) {
      d.failures.push_back({f.value("function", ""), f.value("from_s", 0.0), f.value("to_s", 1e300),
                            f.value("code", kUnknown)});
    }
    d.lost_after_s = j.value("lost_after_s", d.lost_after_s);
    d.processes = j.value("processes", d.processes);
    g_state.devices.push_back(std::move(d));
  }
}

int write_string(const std::string& s, char* out, unsigned length) {
  if (out == nullptr) return kInvalidArgument;
  if (s.size() + 1 > length) return kInsufficientSize;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return kSuccess;
}

union Value {
  double d;
  unsigned int ui;
  unsigned long long ull;
};
struct FieldValue {
  unsigned int field_id, scope_id;
  long long timestamp, latency_us;
  int value_type, nvml_return;
  Value value;
};
struct Sample {
  unsigned long long timestamp;
  Value value;
};
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used;
  unsigned int gi, ci;
};

#define DEVICE_CALL(fn_name)                       \
  std::lock_guard lock(g_mutex);                   \
  if (!g_state.initialized) return kUninitialized; \
  Device* d = device_of(device);                   \
  if (d == nullptr) return kInvalidArgument;       \
  if (int code = scripted(*d, fn_name); code != kSuccess) return code

int init_impl() {
  std::lock_guard lock(g_mutex);
  load_script();
  g_state.initialized = g_state.init_return == kSuccess;
  return g_state.init_return;
}

int count_impl(unsigned* count) {
  std::lock_guard lock(g_mutex);
  if (!g_state.initialized) return kUninitialized;
  *count = static_cast<unsigned>(g_state.devices.size());
  return kSuccess;
}

int handle_impl(unsigned index, void** device) {
  std::lock_guard lock(g_mutex);
  if (!g_state.initialized) return kUninitialized;
  if (index >= g_state.devices.size()) return kInvalidArgument;
  *device = &g_state.devices[index];
  return kSuccess;
}

int reasons_impl(void* device, unsigned long long* reasons, const char* name) {
  DEVICE_CALL(name);
  double p = power_at(*d, now_s());
  *reasons = p * 1000.0 >= 0.95 * d->power_limit_mw ? 0x4ULL : (p < 100.0 ? 0x1ULL : 0ULL);
  return kSuccess;
}

}  // namespace

// Not NVML: when the fake's time began, in steady-clock seconds, so a test can place the
// meter's windows on the scripted power profile.
FAKE_EXPORT double fakeNvmlEpochSteadySeconds() {
  return std::chrono::duration<double>(g_state.epoch.time_since_epoch()).count();
}
FAKE_EXPORT int nvmlInit() {
  return init_impl();
}
FAKE_EXPORT int nvmlShutdown() {
  std::lock_guard lock(g_mutex);
  g_state.initialized = false;
  return kSuccess;
}
FAKE_EXPORT int nvmlDeviceGetCount(unsigned* count) {
  return count_impl(count);
}
FAKE_EXPORT int nvmlDeviceGetHandleByIndex(unsigned index, void** device) {
  return handle_impl(index, device);
}
FAKE_EXPORT const char* nvmlErrorString(int) {
  return "fake";
}

FAKE_EXPORT int nvmlSystemGetDriverVersion(char* out, unsigned length) {
  return write_string("580.00.fake", out, length);
}
FAKE_EXPORT int nvmlSystemGetNVMLVersion(char* out, unsigned length) {
  return write_string("13.580.fake", out, length);
}
FAKE_EXPORT int nvmlDeviceGetName(void* device, char* out, unsigned length) {
  DEVICE_CALL("nvmlDeviceGetName");
  return write_string(d->name, out, length);
}
FAKE_EXPORT int nvmlDeviceGetUUID(void* device, char* out, unsigned length) {
  DEVICE_CALL("nvmlDeviceGetUUID");
  return write_string(d->uuid, out, length);
}
FAKE_EXPORT int nvmlDeviceGetArchitecture(void* device, unsigned* arch) {
  DEVICE_CALL("nvmlDeviceGetArchitecture");
  *arch = d->architecture;
  return kSuccess;
}
FAKE_EXPORT int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* mj) {
  DEVICE_CALL("nvmlDeviceGetTotalEnergyConsumption");
  // The counter moves only every counter_period_s, like the hardware's.
  double tick = std::floor(now_s() / d->counter_period_s) * d->counter_period_s;
  *mj = d->counter_start_mj +
        static_cast<unsigned long long>(std::llround(energy_to(*d, tick) * 1000.0));
  return kSuccess;
}
FAKE_EXPORT int nvmlDeviceGetPowerUsage(void* device, unsigned* mw) {
  DEVICE_CALL("nvmlDeviceGetPowerUsage");
  double t = now_s();  // a one-second moving average, as on Ampere and newer
  *mw = static_cast<unsigned>(std::llround((energy_to(*d, t) - energy_to(*d, t - 1.0)) * 1000.0));
  return kSuccess;
}
FAKE_EXPORT int nvmlDeviceGetEnforcedPowerLimit(void* device, unsigned* mw) {
  DEVICE_CALL("nvmlDeviceGetEnforcedPowerLimit");
  *mw = d->power_limit_mw;
  return kSuccess;
}
FAKE_EXPORT int nvmlDeviceGetClockInfo(void* device, int type, unsigned* mhz) {
  DEVICE_CALL("nvmlDeviceGetClockInfo");
  *mhz = type == 2 ? 2619u : 1980u;
  return kSuccess;
}
FAKE_EXPORT int nvmlDeviceGetTemperature(void* device, int, unsigned* c) {
  DEVICE_CALL("nvmlDeviceGetTemperature");
  *c = static_cast<unsigned>(30.0 + power_at(*d, now_s()) / 20.0);
  return kSuccess;
}
FAKE_EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(void* device, unsigned long long* r) {
  return reasons_impl(device, r, "nvmlDeviceGetCurrentClocksThrottleReasons");
}

#ifndef FAKE_NVML_MINIMAL
FAKE_EXPORT int nvmlInit_v2() {
  return init_impl();
}
FAKE_EXPORT int nvmlDeviceGetCount_v2(unsigned* count) {
  return count_impl(count);
}
FAKE_EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  return handle_impl(index, device);
}
FAKE_EXPORT int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* r) {
  return reasons_impl(device, r, "nvmlDeviceGetCurrentClocksEventReasons");
}

FAKE_EXPORT int nvmlDeviceGetFieldValues(void* device, int count, FieldValue* values) {
  DEVICE_CALL("nvmlDeviceGetFieldValues");
  if (count < 0 || values == nullptr) return kInvalidArgument;
  double t = now_s();
  for (int i = 0; i < count; ++i) {
    FieldValue& f = values[i];
    f.timestamp = g_state.epoch_realtime_us + static_cast<long long>(t * 1e6);
    f.latency_us = 0;
    std::string key = "field:" + std::to_string(f.field_id) + ":" + std::to_string(f.scope_id);
    if (int code = scripted(*d, key); code != kSuccess) {
      f.nvml_return = code;
      continue;
    }
    f.nvml_return = kSuccess;
    f.value_type = 1;  // unsigned int, as drivers report power
    double w;
    if (f.field_id == 186 && f.scope_id == 0) {
      w = power_at(*d, t);
    } else if (f.field_id == 185 && f.scope_id == 0) {
      w = energy_to(*d, t) - energy_to(*d, t - 1.0);
    } else if ((f.field_id == 186 || f.field_id == 185) && f.scope_id == 2) {
      w = d->memory_power_w;
    } else {
      f.nvml_return = kNotSupported;
      continue;
    }
    f.value.ui = static_cast<unsigned>(std::llround(w * 1000.0));
  }
  return kSuccess;
}

FAKE_EXPORT int nvmlDeviceGetSamples(void* device, int type, unsigned long long last_seen,
                                     int* value_type, unsigned* count, Sample* samples) {
  DEVICE_CALL("nvmlDeviceGetSamples");
  if (type != 0 || count == nullptr || value_type == nullptr) return kInvalidArgument;
  *value_type = 1;
  long long newest = static_cast<long long>(std::floor(now_s() / d->sample_period_s));
  std::vector<Sample> all;
  for (long long k = std::max(0LL, newest - 119); k <= newest; ++k) {
    double t = static_cast<double>(k) * d->sample_period_s;
    Sample s{};
    s.timestamp =
        static_cast<unsigned long long>(g_state.epoch_realtime_us + std::llround(t * 1e6));
    s.value.ui = static_cast<unsigned>(std::llround(power_at(*d, t) * 1000.0));
    if (s.timestamp > last_seen) all.push_back(s);
  }
  if (all.empty()) return kNotFound;
  if (samples == nullptr) {
    *count = static_cast<unsigned>(all.size());
    return kSuccess;
  }
  unsigned n = std::min<unsigned>(*count, static_cast<unsigned>(all.size()));
  std::copy(all.begin(), all.begin() + n, samples);
  *count = n;
  return kSuccess;
}

FAKE_EXPORT int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned* count,
                                                        ProcessInfo* infos) {
  DEVICE_CALL("nvmlDeviceGetComputeRunningProcesses_v3");
  unsigned have = static_cast<unsigned>(d->processes.size());
  if (infos == nullptr || *count < have) {
    *count = have;
    return have == 0 ? kSuccess : kInsufficientSize;
  }
  for (unsigned i = 0; i < have; ++i) infos[i] = ProcessInfo{d->processes[i], 1ULL << 30, 0, 0};
  *count = have;
  return kSuccess;
}
#endif
