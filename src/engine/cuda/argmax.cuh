// Greedy sampling on the device: the index of the largest logit, written where the next decode
// step reads its token and into a per-position log the host reads without a copy.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ec::engine::cuda {

inline constexpr int kArgmaxBlocks = 64;

struct ArgmaxArgs {
  const float* logits = nullptr;  // [n]
  int n = 0;
  float* part_value = nullptr;  // scratch [kArgmaxBlocks]
  int* part_index = nullptr;    // scratch [kArgmaxBlocks]
  unsigned* counter = nullptr;  // zeroed once; the last block resets it
  int32_t* out = nullptr;       // the index of the first maximum (torch.argmax on ties)
  int* bump = nullptr;          // optional: incremented by one when done (the decode position)
  // Optional, with bump: the index is also stored at log[*bump] (the position before the bump)
  // when that is below log_len. The engine points it at mapped pinned host memory, so the host
  // reads each step's token after a stream synchronisation, with no copy in the decode step.
  int32_t* log = nullptr;
  int log_len = 0;
};

void argmax(const ArgmaxArgs& args, cudaStream_t stream);

}  // namespace ec::engine::cuda
