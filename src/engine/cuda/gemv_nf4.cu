// NF4 / NF4-DQ batch-1 GEMV launcher: the shared kernel with the NF4 policies of
// gemv_nf4_policy.cuh.
#include "engine/cuda/gemv_dispatch.cuh"
#include "engine/cuda/gemv_nf4.cuh"
#include "engine/cuda/gemv_nf4_policy.cuh"

namespace ec::engine::cuda {

size_t gemv_nf4_shared_bytes(quant::Format format, int cols) {
  return format == quant::Format::nf4_dq ? detail::gemv_shared_bytes<nf4::Nf4DqPolicy>(cols)
                                         : detail::gemv_shared_bytes<nf4::Nf4Policy>(cols);
}

void launch_gemv_nf4(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream) {
  if (args.format == quant::Format::nf4_dq) {
    detail::dispatch_rows<nf4::Nf4DqPolicy>(args, config, stream);
  } else {
    detail::dispatch_rows<nf4::Nf4Policy>(args, config, stream);
  }
}

}  // namespace ec::engine::cuda
