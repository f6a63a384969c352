// The relative error every CUDA bench validates with before timing: ‖got − want‖₂ / ‖want‖₂.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace ec::bench {

inline double rel_error(const std::vector<float>& got, const std::vector<float>& want) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double d = static_cast<double>(got[i]) - want[i];
    num += d * d;
    den += static_cast<double>(want[i]) * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-30));
}

}  // namespace ec::bench
