// The CUDA engine: weights uploaded once (FP16/BF16, or quantized on the GPU), prefill through
// cuBLAS, the decode step captured as one CUDA graph that replays for every token, greedy argmax
// on the device. Plain C++ header: make_engine.cpp includes it.
#pragma once

#include <memory>
#include <vector>

#include "engine/engine.h"

namespace ec::engine::cuda {

// Throws ec::Error when no CUDA device is usable or the model does not fit the kernels' limits.
std::unique_ptr<Engine> make_cuda_engine(std::shared_ptr<const model::ModelWeights> weights,
                                         const EngineOptions& options);

// engine::tune_decode_kernels for the CUDA backend.
TuneOutcome tune_cuda_engine(std::shared_ptr<const model::ModelWeights> weights,
                             const EngineOptions& options, const TuneSettings& settings,
                             TuningTable& table_gpu);

}  // namespace ec::engine::cuda
