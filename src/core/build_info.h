// Facts about this build that reports record: version, commit, compiler, CUDA, build type.
#pragma once

#include <nlohmann/json.hpp>

namespace ec {

nlohmann::json build_info();

}  // namespace ec
