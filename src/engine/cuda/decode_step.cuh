// One decode step: embedding; per layer the qkv GEMV (attention RMSNorm fused), the attention, the
// o GEMV (+ residual), the gate_up GEMV (FFN RMSNorm and SwiGLU fused), the down GEMV (+ residual);
// the lm_head GEMV (final RMSNorm fused) and the argmax, which leaves the next token in device
// memory and logs it by position in mapped host memory. Launched directly or replayed from one
// captured CUDA graph: token and position are read from device memory, so the same graph serves
// every step.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/cuda/cuda_handles.cuh"
#include "engine/cuda/decode_workspace.cuh"
#include "engine/cuda/device_model.cuh"
#include "engine/cuda/kernel_choice.cuh"

namespace ec::engine::cuda {

// Kernel classes of a decode step (the profile's rows).
enum DecodeStage {
  kStageEmbed,
  kStageQkv,
  kStageRope,
  kStageAttention,
  kStageO,
  kStageGateUp,
  kStageDown,
  kStageHead,
  kStageArgmax,
  kStageCount
};
inline constexpr std::array<std::string_view, kStageCount> kStageNames = {
    "embedding",    "qkv gemv",  "rope+store",   "attention", "o gemv",
    "gate_up gemv", "down gemv", "lm_head gemv", "argmax"};

// An event recorded after a kernel of `stage` (-1: before the first).
struct StageMark {
  int stage = -1;
  CudaEvent event;
};

class DecodeStep {
 public:
  DecodeStep(const DeviceModel& model, DecodeWorkspace& ws, const model::ModelConfig& config,
             cudaStream_t stream, bool use_graph);

  // Runs `kernels` from now on; with the graph, one direct step first (first launches set kernel
  // attributes, which a capture must not see), then the capture. The step moves the position and
  // the token: callers set both afterwards.
  void set_kernels(const DecodeKernels& kernels);
  const DecodeKernels& kernels() const { return kernels_; }

  void launch();  // one step: a graph replay, or every kernel launched directly
  // Every kernel of one step; with `marks`, an event after each (profiling).
  void enqueue(std::vector<StageMark>* marks = nullptr);
  // Makes `pos` the next step's position (synchronises the stream).
  void set_position(int pos);
  // Makes `token` the next step's input: a copy on the stream from host_io[0], which no earlier
  // copy may still be reading (the caller has synchronised since).
  void set_token(int32_t token);
  // Seconds per step: `runs` times `steps` steps from `position` (clamped into the cache), after
  // one warm-up step each; the median run. Leaves tokens and position as the steps left them.
  double time_steps(int steps, int runs, int position);
  // The logits of one step that takes `token` at `position` (synchronises the stream). Leaves
  // tokens and position as the step left them.
  std::vector<float> logits_after(int32_t token, int position);

 private:
  const DeviceModel& model_;
  DecodeWorkspace& ws_;
  const model::ModelConfig& config_;
  cudaStream_t stream_;
  bool use_graph_;
  DecodeKernels kernels_;
  CudaGraph graph_;
};

}  // namespace ec::engine::cuda
