// libnvidia-ml loaded at run time: our own declarations of the few NVML calls we use, each
// optional.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ec::meter::nvml {

// NVML return codes we act on (nvmlReturn_t).
using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kUninitialized = 1;
inline constexpr Return kInvalidArgument = 2;
inline constexpr Return kNotSupported = 3;
inline constexpr Return kNoPermission = 4;
inline constexpr Return kNotFound = 6;
inline constexpr Return kInsufficientSize = 7;
inline constexpr Return kDriverNotLoaded = 9;
inline constexpr Return kFunctionNotFound = 13;
inline constexpr Return kGpuIsLost = 15;

// "NOT_SUPPORTED (3)": stable names for reports, independent of nvmlErrorString.
std::string return_name(Return code);

// Field ids (NVML_FI_DEV_*) and scopes we read through nvmlDeviceGetFieldValues.
inline constexpr unsigned kFieldTotalEnergy = 83;    // mJ
inline constexpr unsigned kFieldPowerAverage = 185;  // mW, the driver's 1 s average
inline constexpr unsigned kFieldPowerInstant = 186;  // mW
inline constexpr unsigned kScopeGpu = 0;
inline constexpr unsigned kScopeModule = 1;
inline constexpr unsigned kScopeMemory = 2;

// nvmlClockType_t and nvmlTemperatureSensors_t values.
inline constexpr unsigned kClockGraphics = 0;
inline constexpr unsigned kClockSm = 1;
inline constexpr unsigned kClockMem = 2;
inline constexpr unsigned kTemperatureGpu = 0;

// nvmlValueType_t.
enum class ValueType : int {
  kDouble = 0,
  kUnsignedInt = 1,
  kUnsignedLong = 2,
  kUnsignedLongLong = 3,
  kSignedLongLong = 4,
  kSignedInt = 5,
  kUnsignedShort = 6,
};

// nvmlValue_t: an 8-byte union.
union Value {
  double d;
  unsigned int ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
  unsigned short us;
};

// nvmlFieldValue_t, laid out exactly as nvml.h (40 bytes).
struct FieldValue {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp_us;
  long long latency_us;
  ValueType value_type;
  Return nvml_return;
  Value value;
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t is 40 bytes in nvml.h");

// nvmlSample_t (16 bytes): one entry of the driver's sample buffer.
struct Sample {
  unsigned long long timestamp_us;
  Value value;
};
static_assert(sizeof(Sample) == 16, "nvmlSample_t is 16 bytes in nvml.h");

// nvmlProcessInfo_t as used by nvmlDeviceGetComputeRunningProcesses_v3 (v2 layout, 24 bytes).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
static_assert(sizeof(ProcessInfo) == 24, "nvmlProcessInfo_t is 24 bytes in nvml.h");

// nvmlSamplingType_t NVML_TOTAL_POWER_SAMPLES.
inline constexpr int kTotalPowerSamples = 0;

// Clock-event (throttle) reason bits.
inline constexpr unsigned long long kReasonIdle = 0x1;
inline constexpr unsigned long long kReasonSwPowerCap = 0x4;
inline constexpr unsigned long long kReasonHwSlowdown = 0x8;
inline constexpr unsigned long long kReasonSwThermal = 0x20;
inline constexpr unsigned long long kReasonHwThermal = 0x40;
inline constexpr unsigned long long kReasonHwPowerBrake = 0x80;
// Names of the set bits, e.g. {"sw_power_cap", "hw_thermal"}; unknown bits as "0x...".
std::vector<std::string> clock_event_reason_names(unsigned long long bits);

// A value, or the NVML code that says why there is none. kFunctionNotFound: the symbol is absent.
template <class T>
struct Reading {
  std::optional<T> value;
  Return code = kFunctionNotFound;
  bool ok() const { return value.has_value(); }
};

// A field value as a double whatever its declared type (drivers differ: uint or ull for power).
std::optional<double> field_as_double(const FieldValue& field);
double value_as_double(const Value& value, ValueType type);

using Device = struct nvmlDevice_st*;

// The loaded library. Every call is optional: a missing symbol reads as kFunctionNotFound.
class Library {
 public:
  // EC_NVML_LIBRARY when set (tests point it at the fake), else "libnvidia-ml.so.1".
  static std::string default_path();
  // Loads and initialises; never throws. Check loaded() and init_code().
  static std::shared_ptr<Library> open(const std::string& path = default_path());

  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const std::string& path() const { return path_; }
  bool loaded() const { return handle_ != nullptr; }
  const std::string& load_error() const { return load_error_; }
  Return init_code() const { return init_code_; }
  bool ready() const { return loaded() && init_code_ == kSuccess; }
  // Names of the symbols resolved, e.g. "nvmlInit_v2"; for describe().
  std::vector<std::string> resolved_symbols() const;
  bool has(std::string_view function) const;

  Reading<unsigned> device_count() const;
  Reading<Device> device_by_index(unsigned index) const;
  Reading<std::string> driver_version() const;
  Reading<std::string> nvml_version() const;

  Reading<std::string> name(Device device) const;
  Reading<std::string> uuid(Device device) const;
  Reading<unsigned> architecture(Device device) const;
  Reading<unsigned long long> total_energy_mj(Device device) const;
  Reading<unsigned> power_usage_mw(Device device) const;
  Reading<unsigned> power_limit_mw(Device device) const;
  Reading<unsigned> clock_mhz(Device device, unsigned clock_type) const;
  Reading<unsigned> temperature_c(Device device) const;
  Reading<unsigned long long> clock_event_reasons(Device device) const;
  // Fills each entry's value and per-field nvml_return; returns the call's own code.
  Return field_values(Device device, std::span<FieldValue> fields) const;
  // Driver power samples newer than last_seen_us (mW values), oldest first.
  Reading<std::vector<Sample>> power_samples(Device device, unsigned long long last_seen_us) const;
  Reading<std::vector<ProcessInfo>> compute_processes(Device device) const;

  struct Symbols;  // the resolved function pointers (nvml_api.cpp)

 private:
  Library() = default;
  std::string path_;
  void* handle_ = nullptr;
  std::string load_error_;
  Return init_code_ = kUninitialized;
  std::unique_ptr<Symbols> fn_;
};

// Architecture number (nvmlDeviceArchitecture_t) as a name: 9 → "hopper".
std::string architecture_name(unsigned arch);

}  // namespace ec::meter::nvml
