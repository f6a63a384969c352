// Asynchronous 16-byte copies from global to shared memory (cp.async, sm_80 and later): issue,
// commit as a group, wait for all but the newest N groups. Device code; the decode attention's
// tiles and the hop probe's layer copies use them.
#pragma once

namespace ec::engine::cuda {

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

}  // namespace ec::engine::cuda
