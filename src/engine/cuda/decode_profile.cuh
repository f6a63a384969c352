// The time of each kernel class of a decode step (EngineOptions::profile_decode, `--cuda-profile`):
// steps launched one kernel at a time with an event after each, so launch gaps are included and
// no graph is used.
#pragma once

#include <string>

#include "engine/cuda/decode_step.cuh"

namespace ec::engine::cuda {

// One line: µs per token of the whole step and of every kernel class, the mean of `steps` steps
// after a warm-up step, decoded from position 0. Leaves tokens and position as the steps left them.
std::string profile_decode(DecodeStep& step, int steps);

}  // namespace ec::engine::cuda
