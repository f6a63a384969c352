// The GPU architecture family a CUDA compute capability belongs to, named as reports and curves
// name it.
#pragma once

#include <string_view>

namespace ec::engine {

// "turing", "ampere", "ada", "hopper", "blackwell", ... ; "unknown" for a capability not listed.
std::string_view architecture_of_compute_capability(int major, int minor);

}  // namespace ec::engine
