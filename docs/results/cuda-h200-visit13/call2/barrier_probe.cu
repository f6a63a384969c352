// Probe: cost of one grid barrier (three designs) against one PDL kernel boundary in a graph.
#include <cuda_runtime.h>
#include <cstdio>

__device__ __forceinline__ void arrive_wait(unsigned* c, unsigned target, int variant) {
  __syncthreads();
  if (threadIdx.x == 0) {
    if (variant == 0) {
      __threadfence();
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(c) : "memory");
      unsigned seen;
      do {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(c) : "memory");
      } while (seen < target);
    } else if (variant == 1) {
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(c) : "memory");
      unsigned seen;
      do {
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(c) : "memory");
      } while (seen < target);
      asm volatile("fence.acq_rel.gpu;" ::: "memory");
    } else {
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(c) : "memory");
      unsigned seen;
      while (true) {
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(c) : "memory");
        if (seen >= target) break;
        __nanosleep(32);
      }
      asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
  }
  __syncthreads();
}

__global__ void barriers(unsigned* c, int n, int variant) {
  unsigned target = 0;
  for (int i = 0; i < n; ++i) {
    target += gridDim.x;
    arrive_wait(c, target, variant);
  }
}

__global__ void empty_pdl(float* p) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (threadIdx.x == 0 && p) p[blockIdx.x] += 1.0f;
}

int main() {
  unsigned* c;
  cudaMalloc(&c, 4);
  float* p;
  cudaMalloc(&p, 4096 * 4);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const int n = 2000;
  for (int grid : {132, 264, 396}) {
    for (int v = 0; v < 3; ++v) {
      float best = 1e9;
      for (int rep = 0; rep < 5; ++rep) {
        cudaMemsetAsync(c, 0, 4, s);
        cudaEventRecord(a, s);
        barriers<<<grid, 256, 0, s>>>(c, n, v);
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (ms < best) best = ms;
      }
      printf("barrier variant %d grid %d: %.3f us per barrier\n", v, grid, best * 1e3 / n);
    }
    // PDL kernel boundaries in a graph.
    for (int pdl = 0; pdl < 2; ++pdl) {
      cudaGraph_t g;
      cudaGraphExec_t ge;
      cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
      const int k = 200;
      for (int i = 0; i < k; ++i) {
        cudaLaunchConfig_t lc{};
        lc.gridDim = dim3(grid);
        lc.blockDim = dim3(256);
        lc.stream = s;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        lc.attrs = at;
        lc.numAttrs = pdl;
        cudaLaunchKernelEx(&lc, empty_pdl, p);
      }
      cudaStreamEndCapture(s, &g);
      cudaGraphInstantiate(&ge, g, 0);
      cudaGraphLaunch(ge, s);
      cudaStreamSynchronize(s);
      float best = 1e9;
      for (int rep = 0; rep < 5; ++rep) {
        cudaEventRecord(a, s);
        cudaGraphLaunch(ge, s);
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (ms < best) best = ms;
      }
      printf("graph of empty kernels grid %d pdl %d: %.3f us per kernel\n", grid, pdl,
             best * 1e3 / k);
    }
  }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
