// The failure side of CUDA_CHECK / CUBLAS_CHECK, kept out of the .cu files so nvcc never parses
// fmt.
#include "engine/cuda/cuda_check.cuh"

#include "core/error.h"

namespace ec::engine::cuda {

void cuda_fail(cudaError_t error, const char* call, const char* file, int line) {
  fail("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(error), cudaGetErrorString(error),
       call, file, line);
}

void cublas_fail(cublasStatus_t status, const char* call, const char* file, int line) {
  fail("cuBLAS error {} ({}) in {} at {}:{}", cublasGetStatusName(status),
       cublasGetStatusString(status), call, file, line);
}

void cuda_invalid(const char* what) {
  throw Error(what);
}

bool cuda_device_available() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error for later callers
    return false;
  }
  return count > 0;
}

}  // namespace ec::engine::cuda
