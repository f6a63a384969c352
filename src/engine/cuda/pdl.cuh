// Programmatic dependent launch (Hopper): a kernel launched with the PDL attribute may start while
// its predecessor finishes; it must pdl_wait() before reading what the predecessor wrote. Every
// decode kernel calls pdl_trigger() first so its successor can be scheduled early. Device code;
// no-ops below sm_90 and for kernels launched without the attribute.
#pragma once

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
