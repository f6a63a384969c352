// Programmatic dependent launch (Hopper): a kernel launched with the PDL attribute may start while
// its predecessor finishes; it must pdl_wait() before reading what the predecessor wrote. Every
// decode kernel calls pdl_trigger() first so its successor can be scheduled early. The device
// calls are no-ops below sm_90 and for kernels launched without the attribute; launch_pdl() is the
// one host-side launch path that sets the attribute.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "engine/cuda/cuda_check.cuh"

__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

namespace ec::engine::cuda {

// Where and how wide a kernel runs. A cluster of more than one block adds the cluster attribute.
struct LaunchShape {
  dim3 grid;
  dim3 block;
  size_t shared_bytes = 0;
  dim3 cluster = dim3(1, 1, 1);
};

// kernel<<<shape, stream>>>(args...), with the programmatic-serialization attribute when pdl, so
// that the kernel overlaps the end of its predecessor. Both paths go through cudaLaunchKernelEx,
// which converts args to the kernel's parameter types as a <<<>>> launch would.
template <class... Params, class... Args>
void launch_pdl(void (*kernel)(Params...), const LaunchShape& shape, cudaStream_t stream, bool pdl,
                Args&&... args) {
  cudaLaunchConfig_t lc{};
  lc.gridDim = shape.grid;
  lc.blockDim = shape.block;
  lc.dynamicSmemBytes = shape.shared_bytes;
  lc.stream = stream;
  cudaLaunchAttribute attr[2]{};
  unsigned n = 0;
  if (shape.cluster.x * shape.cluster.y * shape.cluster.z > 1) {
    attr[n].id = cudaLaunchAttributeClusterDimension;
    attr[n].val.clusterDim.x = shape.cluster.x;
    attr[n].val.clusterDim.y = shape.cluster.y;
    attr[n].val.clusterDim.z = shape.cluster.z;
    ++n;
  }
  if (pdl) {
    attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  lc.attrs = attr;
  lc.numAttrs = n;
  CUDA_CHECK(cudaLaunchKernelEx(&lc, kernel, std::forward<Args>(args)...));
}

}  // namespace ec::engine::cuda
