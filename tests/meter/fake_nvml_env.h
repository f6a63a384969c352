// Points the meter at the fake libnvidia-ml with a JSON script for the length of a test.
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "meter/meter.h"
#include "support/paths.h"

// The tests' CMake passes the built fake's path; a manual build puts it under the build tree.
#ifndef EC_FAKE_NVML
#define EC_FAKE_NVML EC_BINARY_DIR "/tests/libfake_nvml.so"
#endif
#ifndef EC_FAKE_NVML_MINIMAL
#define EC_FAKE_NVML_MINIMAL EC_BINARY_DIR "/tests/libfake_nvml_minimal.so"
#endif

namespace ec::test {

// Meter options for tests: rate, GPU, and no RAPL (the build machine's would vary).
inline meter::MeterOptions no_rapl(double hz, std::optional<unsigned> gpu = {}) {
  meter::MeterOptions o;
  o.hz = hz;
  o.gpu = gpu;
  o.rapl_root = "/nonexistent";
  return o;
}

// Sets an environment variable and restores the old value when it dies.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The fake library (full or minimal) driven by `script`, written into a scratch directory.
class FakeNvml {
 public:
  explicit FakeNvml(const nlohmann::json& script, bool minimal = false)
      : script_path_((dir_ / "script.json").string()),
        library_(minimal ? EC_FAKE_NVML_MINIMAL : EC_FAKE_NVML),
        lib_env_("EC_NVML_LIBRARY", library_),
        script_env_("FAKE_NVML_SCRIPT", script_path_),
        cuda_env_("CUDA_VISIBLE_DEVICES", std::nullopt) {
    write_file_atomic(script_path_, script.dump());
  }
  const std::string& library() const { return library_; }
  // When the fake's scripted time began (nvmlInit), in steady-clock seconds; needs the meter open.
  double epoch_steady_s() const {
    void* handle = dlopen(library_.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return 0.0;
    auto epoch = reinterpret_cast<double (*)()>(dlsym(handle, "fakeNvmlEpochSteadySeconds"));
    double t = epoch != nullptr ? epoch() : 0.0;
    dlclose(handle);
    return t;
  }

 private:
  ScratchDir dir_;
  std::string script_path_;
  std::string library_;
  ScopedEnv lib_env_, script_env_, cuda_env_;
};

}  // namespace ec::test
