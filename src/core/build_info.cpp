// Build facts captured at configure time (see src/CMakeLists.txt).
#include "core/build_info.h"

#include <fmt/format.h>

namespace ec {

nlohmann::json build_info() {
  return {
      {"version", EC_BUILD_VERSION},
      {"commit", EC_BUILD_COMMIT},
      {"compiler", fmt::format("{} {}", EC_BUILD_COMPILER_ID, EC_BUILD_COMPILER_VERSION)},
      {"build_type", EC_BUILD_TYPE},
      {"cuda",
       EC_BUILD_CUDA_VERSION[0] ? nlohmann::json(EC_BUILD_CUDA_VERSION) : nlohmann::json(nullptr)},
      {"cuda_architectures", EC_BUILD_CUDA_ARCHS},
      {"static", EC_BUILD_STATIC != 0},
  };
}

}  // namespace ec
