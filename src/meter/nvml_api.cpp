// dlopen of libnvidia-ml, symbol resolution (versioned names first) and typed wrappers of each
// call.
#include "meter/nvml_api.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <initializer_list>

namespace ec::meter::nvml {

std::string return_name(Return code) {
  const char* name = "UNKNOWN";
  switch (code) {
    case kSuccess:
      name = "SUCCESS";
      break;
    case kUninitialized:
      name = "UNINITIALIZED";
      break;
    case kInvalidArgument:
      name = "INVALID_ARGUMENT";
      break;
    case kNotSupported:
      name = "NOT_SUPPORTED";
      break;
    case kNoPermission:
      name = "NO_PERMISSION";
      break;
    case 5:
      name = "ALREADY_INITIALIZED";
      break;
    case kNotFound:
      name = "NOT_FOUND";
      break;
    case kInsufficientSize:
      name = "INSUFFICIENT_SIZE";
      break;
    case 8:
      name = "INSUFFICIENT_POWER";
      break;
    case kDriverNotLoaded:
      name = "DRIVER_NOT_LOADED";
      break;
    case 10:
      name = "TIMEOUT";
      break;
    case 11:
      name = "IRQ_ISSUE";
      break;
    case 12:
      name = "LIBRARY_NOT_FOUND";
      break;
    case kFunctionNotFound:
      name = "FUNCTION_NOT_FOUND";
      break;
    case 14:
      name = "CORRUPTED_INFOROM";
      break;
    case kGpuIsLost:
      name = "GPU_IS_LOST";
      break;
    case 16:
      name = "RESET_REQUIRED";
      break;
    case 17:
      name = "OPERATING_SYSTEM";
      break;
    case 18:
      name = "LIB_RM_VERSION_MISMATCH";
      break;
    case 999:
      name = "UNKNOWN";
      break;
    default:
      break;
  }
  return fmt::format("{} ({})", name, code);
}

std::vector<std::string> clock_event_reason_names(unsigned long long bits) {
  static constexpr struct {
    unsigned long long bit;
    const char* name;
  } kNames[] = {{kReasonIdle, "idle"},
                {0x2, "applications_clocks_setting"},
                {kReasonSwPowerCap, "sw_power_cap"},
                {kReasonHwSlowdown, "hw_slowdown"},
                {0x10, "sync_boost"},
                {kReasonSwThermal, "sw_thermal"},
                {kReasonHwThermal, "hw_thermal"},
                {kReasonHwPowerBrake, "hw_power_brake"},
                {0x100, "display_clock_setting"}};
  std::vector<std::string> names;
  unsigned long long known = 0;
  for (const auto& entry : kNames) {
    known |= entry.bit;
    if (bits & entry.bit) names.emplace_back(entry.name);
  }
  if (bits & ~known) names.push_back(fmt::format("0x{:x}", bits & ~known));
  return names;
}

double value_as_double(const Value& value, ValueType type) {
  switch (type) {
    case ValueType::kDouble:
      return value.d;
    case ValueType::kUnsignedInt:
      return static_cast<double>(value.ui);
    case ValueType::kUnsignedLong:
      return static_cast<double>(value.ul);
    case ValueType::kUnsignedLongLong:
      return static_cast<double>(value.ull);
    case ValueType::kSignedLongLong:
      return static_cast<double>(value.sll);
    case ValueType::kSignedInt:
      return static_cast<double>(value.si);
    case ValueType::kUnsignedShort:
      return static_cast<double>(value.us);
  }
  return static_cast<double>(value.ui);  // unknown type: power fields are documented as uiVal
}

std::optional<double> field_as_double(const FieldValue& field) {
  if (field.nvml_return != kSuccess) return std::nullopt;
  return value_as_double(field.value, field.value_type);
}

std::string architecture_name(unsigned arch) {
  switch (arch) {
    case 2:
      return "kepler";
    case 3:
      return "maxwell";
    case 4:
      return "pascal";
    case 5:
      return "volta";
    case 6:
      return "turing";
    case 7:
      return "ampere";
    case 8:
      return "ada";
    case 9:
      return "hopper";
    case 10:
      return "blackwell";
    default:
      return fmt::format("unknown ({})", arch);
  }
}

// Our own prototypes: only what we call. nvmlDevice_t is an opaque pointer, enums are int.
struct Library::Symbols {
  using InitFn = Return (*)();
  using CountFn = Return (*)(unsigned*);
  using HandleFn = Return (*)(unsigned, Device*);
  using SystemStringFn = Return (*)(char*, unsigned);
  using DeviceStringFn = Return (*)(Device, char*, unsigned);
  using DeviceUintFn = Return (*)(Device, unsigned*);
  using DeviceUllFn = Return (*)(Device, unsigned long long*);
  using DeviceTypedUintFn = Return (*)(Device, int, unsigned*);
  using FieldValuesFn = Return (*)(Device, int, FieldValue*);
  using SamplesFn = Return (*)(Device, int, unsigned long long, ValueType*, unsigned*, Sample*);
  using ProcessesFn = Return (*)(Device, unsigned*, ProcessInfo*);

  InitFn init = nullptr;
  InitFn shutdown = nullptr;
  CountFn device_count = nullptr;
  HandleFn handle_by_index = nullptr;
  SystemStringFn driver_version = nullptr;
  SystemStringFn nvml_version = nullptr;
  DeviceStringFn name = nullptr;
  DeviceStringFn uuid = nullptr;
  DeviceUintFn architecture = nullptr;
  DeviceUllFn total_energy = nullptr;
  DeviceUintFn power_usage = nullptr;
  DeviceUintFn power_limit = nullptr;
  DeviceTypedUintFn clock_info = nullptr;
  DeviceTypedUintFn temperature = nullptr;
  DeviceUllFn clock_event_reasons = nullptr;
  FieldValuesFn field_values = nullptr;
  SamplesFn samples = nullptr;
  ProcessesFn processes = nullptr;
  std::vector<std::string> resolved;
};

namespace {

// The first of `names` the library exports; versioned names come first in every list.
template <class Fn>
void resolve(void* handle, Fn& out, std::vector<std::string>& resolved,
             std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* symbol = dlsym(handle, name)) {
      out = reinterpret_cast<Fn>(symbol);
      resolved.emplace_back(name);
      return;
    }
  }
}

// NVML writes NUL-terminated strings into caller buffers; 96 bytes covers names, UUIDs, versions.
template <class Call>
Reading<std::string> read_string(Call&& call) {
  char buffer[96] = {};
  Return code = call(buffer, static_cast<unsigned>(sizeof(buffer)));
  if (code != kSuccess) return {std::nullopt, code};
  buffer[sizeof(buffer) - 1] = '\0';
  return {std::string(buffer), kSuccess};
}

template <class T, class Fn, class... Args>
Reading<T> read_value(Fn fn, Args... args) {
  if (fn == nullptr) return {std::nullopt, kFunctionNotFound};
  T value{};
  Return code = fn(args..., &value);
  if (code != kSuccess) return {std::nullopt, code};
  return {value, kSuccess};
}

}  // namespace

std::string Library::default_path() {
  if (const char* env = std::getenv("EC_NVML_LIBRARY"); env != nullptr && *env != '\0') return env;
  return "libnvidia-ml.so.1";
}

std::shared_ptr<Library> Library::open(const std::string& path) {
  std::shared_ptr<Library> lib(new Library());
  lib->path_ = path;
  lib->fn_ = std::make_unique<Symbols>();
  lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle_ == nullptr) {
    const char* why = dlerror();
    lib->load_error_ = why != nullptr ? why : "dlopen failed";
    lib->init_code_ = 12;  // LIBRARY_NOT_FOUND
    return lib;
  }
  auto& f = *lib->fn_;
  void* h = lib->handle_;
  resolve(h, f.init, f.resolved, {"nvmlInit_v2", "nvmlInit"});
  resolve(h, f.shutdown, f.resolved, {"nvmlShutdown"});
  resolve(h, f.device_count, f.resolved, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  resolve(h, f.handle_by_index, f.resolved,
          {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  resolve(h, f.driver_version, f.resolved, {"nvmlSystemGetDriverVersion"});
  resolve(h, f.nvml_version, f.resolved, {"nvmlSystemGetNVMLVersion"});
  resolve(h, f.name, f.resolved, {"nvmlDeviceGetName"});
  resolve(h, f.uuid, f.resolved, {"nvmlDeviceGetUUID"});
  resolve(h, f.architecture, f.resolved, {"nvmlDeviceGetArchitecture"});
  resolve(h, f.total_energy, f.resolved, {"nvmlDeviceGetTotalEnergyConsumption"});
  resolve(h, f.power_usage, f.resolved, {"nvmlDeviceGetPowerUsage"});
  resolve(h, f.power_limit, f.resolved, {"nvmlDeviceGetEnforcedPowerLimit"});
  resolve(h, f.clock_info, f.resolved, {"nvmlDeviceGetClockInfo"});
  resolve(h, f.temperature, f.resolved, {"nvmlDeviceGetTemperature"});
  resolve(h, f.clock_event_reasons, f.resolved,
          {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  resolve(h, f.field_values, f.resolved, {"nvmlDeviceGetFieldValues"});
  resolve(h, f.samples, f.resolved, {"nvmlDeviceGetSamples"});
  resolve(h, f.processes, f.resolved,
          {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
  if (f.init == nullptr) {
    lib->init_code_ = kFunctionNotFound;
    lib->load_error_ = path + " exports neither nvmlInit_v2 nor nvmlInit";
    return lib;
  }
  lib->init_code_ = f.init();
  return lib;
}

Library::~Library() {
  if (handle_ == nullptr) return;
  if (init_code_ == kSuccess && fn_->shutdown != nullptr) fn_->shutdown();
  dlclose(handle_);
}

std::vector<std::string> Library::resolved_symbols() const {
  return fn_->resolved;
}

bool Library::has(std::string_view function) const {
  for (const auto& name : fn_->resolved) {
    if (name == function) return true;
  }
  return false;
}

Reading<unsigned> Library::device_count() const {
  return read_value<unsigned>(fn_->device_count);
}

Reading<Device> Library::device_by_index(unsigned index) const {
  return read_value<Device>(fn_->handle_by_index, index);
}

Reading<std::string> Library::driver_version() const {
  if (fn_->driver_version == nullptr) return {std::nullopt, kFunctionNotFound};
  return read_string([&](char* b, unsigned n) { return fn_->driver_version(b, n); });
}

Reading<std::string> Library::nvml_version() const {
  if (fn_->nvml_version == nullptr) return {std::nullopt, kFunctionNotFound};
  return read_string([&](char* b, unsigned n) { return fn_->nvml_version(b, n); });
}

Reading<std::string> Library::name(Device device) const {
  if (fn_->name == nullptr) return {std::nullopt, kFunctionNotFound};
  return read_string([&](char* b, unsigned n) { return fn_->name(device, b, n); });
}

Reading<std::string> Library::uuid(Device device) const {
  if (fn_->uuid == nullptr) return {std::nullopt, kFunctionNotFound};
  return read_string([&](char* b, unsigned n) { return fn_->uuid(device, b, n); });
}

Reading<unsigned> Library::architecture(Device device) const {
  return read_value<unsigned>(fn_->architecture, device);
}

Reading<unsigned long long> Library::total_energy_mj(Device device) const {
  return read_value<unsigned long long>(fn_->total_energy, device);
}

Reading<unsigned> Library::power_usage_mw(Device device) const {
  return read_value<unsigned>(fn_->power_usage, device);
}

Reading<unsigned> Library::power_limit_mw(Device device) const {
  return read_value<unsigned>(fn_->power_limit, device);
}

Reading<unsigned> Library::clock_mhz(Device device, unsigned clock_type) const {
  return read_value<unsigned>(fn_->clock_info, device, static_cast<int>(clock_type));
}

Reading<unsigned> Library::temperature_c(Device device) const {
  return read_value<unsigned>(fn_->temperature, device, static_cast<int>(kTemperatureGpu));
}

Reading<unsigned long long> Library::clock_event_reasons(Device device) const {
  return read_value<unsigned long long>(fn_->clock_event_reasons, device);
}

Return Library::field_values(Device device, std::span<FieldValue> fields) const {
  if (fn_->field_values == nullptr) {
    for (auto& field : fields) field.nvml_return = kFunctionNotFound;
    return kFunctionNotFound;
  }
  for (auto& field : fields) {
    field.timestamp_us = 0;
    field.latency_us = 0;
    field.nvml_return = kUninitialized;
    field.value.ull = 0;
  }
  Return code = fn_->field_values(device, static_cast<int>(fields.size()), fields.data());
  if (code != kSuccess) {
    for (auto& field : fields) field.nvml_return = code;
  }
  return code;
}

Reading<std::vector<Sample>> Library::power_samples(Device device,
                                                    unsigned long long last_seen_us) const {
  if (fn_->samples == nullptr) return {std::nullopt, kFunctionNotFound};
  ValueType type = ValueType::kUnsignedInt;
  unsigned count = 0;
  // First call with no buffer asks for the count; the buffer is sized with head room for new ones.
  Return code = fn_->samples(device, kTotalPowerSamples, last_seen_us, &type, &count, nullptr);
  if (code == kNotFound) return {std::vector<Sample>{}, kSuccess};  // nothing newer
  if (code != kSuccess) return {std::nullopt, code};
  std::vector<Sample> samples(count + 16);
  count = static_cast<unsigned>(samples.size());
  code = fn_->samples(device, kTotalPowerSamples, last_seen_us, &type, &count, samples.data());
  if (code == kNotFound) return {std::vector<Sample>{}, kSuccess};
  if (code != kSuccess) return {std::nullopt, code};
  samples.resize(count);
  // Normalise to unsigned-int mW so callers need not carry the type.
  for (auto& s : samples) {
    s.value.ui = static_cast<unsigned>(value_as_double(s.value, type));
  }
  return {std::move(samples), kSuccess};
}

Reading<std::vector<ProcessInfo>> Library::compute_processes(Device device) const {
  if (fn_->processes == nullptr) return {std::nullopt, kFunctionNotFound};
  for (int attempt = 0; attempt < 3; ++attempt) {
    unsigned count = 0;
    Return code = fn_->processes(device, &count, nullptr);
    if (code == kSuccess) return {std::vector<ProcessInfo>{}, kSuccess};
    if (code != kInsufficientSize) return {std::nullopt, code};
    std::vector<ProcessInfo> infos(count + 8);
    count = static_cast<unsigned>(infos.size());
    code = fn_->processes(device, &count, infos.data());
    if (code == kSuccess) {
      infos.resize(count);
      return {std::move(infos), kSuccess};
    }
    if (code != kInsufficientSize) return {std::nullopt, code};  // else: more appeared; retry
  }
  return {std::nullopt, kInsufficientSize};
}

}  // namespace ec::meter::nvml
