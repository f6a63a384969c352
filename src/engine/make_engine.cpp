// make_engine: the single dispatch point from (backend, precision) to an Engine implementation;
// tune_decode_kernels: the same for `tune`.
#include "core/error.h"
#include "engine/cpu/cpu_engine.h"
#include "engine/engine.h"

#include <string_view>

#if defined(EC_HAVE_CUDA)
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/cuda_engine.h"
#endif

namespace ec::engine {

std::unique_ptr<Engine> make_engine(std::shared_ptr<const model::ModelWeights> weights,
                                    const EngineOptions& options) {
  EC_CHECK(weights != nullptr, "make_engine: no weights given");
  EC_CHECK(options.decode_length >= 0,
           "decode_length must be >= 0 (0: the KV cache's length), got {}", options.decode_length);
  switch (options.backend) {
    case Backend::cpu:
      // Unimplemented weight formats are refused inside, by make_cpu_linear (the format dispatch).
      return std::make_unique<cpu::CpuEngine>(std::move(weights), options);
    case Backend::cuda:
#if defined(EC_HAVE_CUDA)
      return cuda::make_cuda_engine(std::move(weights), options);
#else
      fail("this build has no CUDA backend (built without nvcc); use --backend cpu");
#endif
  }
  fail("make_engine: unknown backend {}", static_cast<int>(options.backend));
}

TuneOutcome tune_decode_kernels(std::shared_ptr<const model::ModelWeights> weights,
                                const EngineOptions& options, const TuneSettings& settings,
                                TuningTable& table_gpu) {
  EC_CHECK(weights != nullptr, "tune: no weights given");
  EC_CHECK(options.backend == Backend::cuda,
           "tune: the CPU backend has one kernel per format, nothing to tune (tune needs the CUDA "
           "backend and a GPU)");
#if defined(EC_HAVE_CUDA)
  return cuda::tune_cuda_engine(std::move(weights), options, settings, table_gpu);
#else
  (void)settings;
  (void)table_gpu;
  fail("this build has no CUDA backend (built without nvcc): nothing to tune");
#endif
}

bool cuda_backend_available() {
#if defined(EC_HAVE_CUDA)
  return cuda::cuda_device_available();
#else
  return false;
#endif
}

Backend resolve_backend(std::string_view text) {
  if (text == "auto" || text == "AUTO") {
    return cuda_backend_available() ? Backend::cuda : Backend::cpu;
  }
  return parse_backend(text);
}

}  // namespace ec::engine
