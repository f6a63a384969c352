// CUDA_CHECK / CUBLAS_CHECK: every CUDA runtime and cuBLAS call checked, failures thrown as
// ec::Error naming the call, the error and file:line (llm.c's cudaCheck, with context).
#pragma once

#include <cublas_api.h>
#include <cuda_runtime_api.h>

namespace ec::engine::cuda {

[[noreturn]] void cuda_fail(cudaError_t error, const char* call, const char* file, int line);
[[noreturn]] void cublas_fail(cublasStatus_t status, const char* call, const char* file, int line);

// Throws ec::Error(what): for .cu files, which do not include fmt.
[[noreturn]] void cuda_invalid(const char* what);

// True when at least one CUDA device is usable (tests skip otherwise); never throws.
bool cuda_device_available();

}  // namespace ec::engine::cuda

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    const cudaError_t ec_cuda_err_ = (call);                                  \
    if (ec_cuda_err_ != cudaSuccess) {                                        \
      ::ec::engine::cuda::cuda_fail(ec_cuda_err_, #call, __FILE__, __LINE__); \
    }                                                                         \
  } while (0)

// After a kernel launch: configuration errors surface here, not at the next sync.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(call)                                                       \
  do {                                                                           \
    const cublasStatus_t ec_cublas_st_ = (call);                                 \
    if (ec_cublas_st_ != CUBLAS_STATUS_SUCCESS) {                                \
      ::ec::engine::cuda::cublas_fail(ec_cublas_st_, #call, __FILE__, __LINE__); \
    }                                                                            \
  } while (0)
