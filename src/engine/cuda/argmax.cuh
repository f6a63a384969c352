// Greedy sampling on the device: the index of the largest logit, written where the next decode
// step reads its token, so only one int crosses to the host.
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
};

void argmax(const ArgmaxArgs& args, cudaStream_t stream);

}  // namespace ec::engine::cuda
