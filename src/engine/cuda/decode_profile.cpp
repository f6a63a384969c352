// profile_decode(): events between the kernels of direct-launched decode steps.
#include "engine/cuda/decode_profile.cuh"

#include <fmt/format.h>

#include <vector>

#include "engine/cuda/cuda_check.cuh"

namespace ec::engine::cuda {

std::string profile_decode(DecodeStep& step, int steps) {
  std::vector<double> total(kStageCount, 0.0);
  std::vector<bool> ran(kStageCount, false);  // the fused attention leaves rope+store out
  double step_total = 0.0;
  for (int s = 0; s < steps + 1; ++s) {
    step.set_position(0);
    std::vector<StageMark> marks;
    step.enqueue(&marks);
    CUDA_CHECK(cudaEventSynchronize(marks.back().event.get()));
    const bool counted = s > 0;  // the first step is a warm-up
    for (size_t i = 1; i < marks.size(); ++i) {
      const auto stage = static_cast<size_t>(marks[i].stage);
      if (counted) total[stage] += elapsed_ms(marks[i - 1].event, marks[i].event) * 1e3;
      ran[stage] = true;
    }
    if (counted) step_total += elapsed_ms(marks.front().event, marks.back().event) * 1e3;
  }
  std::string line = fmt::format("{:.1f} us/token without graph:", step_total / steps);
  for (size_t i = 0; i < kStageCount; ++i) {
    if (ran[i]) line += fmt::format(" {} {:.1f}", kStageNames[i], total[i] / steps);
  }
  return line;
}

}  // namespace ec::engine::cuda
