// The cuBLAS entry points the CUDA engine calls, defined here and forwarded to libcublas, which is
// opened (dlopen) on the first call instead of at every program start.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"

// Why: linked as a dependency, libcublas and libcublasLt are loaded and initialised before main(),
// about 0.3 s of CPU time (libcublasLt's initialisers) in every process, whether or not it ever
// touches a GPU: `validate`, `ingest`, `site`, each test of the command line. Only a CUDA engine
// needs cuBLAS (prefill's GEMMs), so the library is opened when it first creates a handle.

namespace ec::engine::cuda {
namespace {

// Where libcublas is looked for: the file EC_CUBLAS_LIBRARY names, alone; else the loader's own
// search (LD_LIBRARY_PATH, the system's library cache), then the toolkit this binary was built
// against, then the usual CUDA install.
#define EC_CUBLAS_STRINGIFY(x) #x
#define EC_CUBLAS_SONAME(major) "libcublas.so." EC_CUBLAS_STRINGIFY(major)
// Kept whole in the binary (gnu::used), where scripts/collect-runtime-libs.sh looks for it.
[[gnu::used]] constexpr char kCublasSoname[] = EC_CUBLAS_SONAME(CUBLAS_VER_MAJOR);

std::vector<std::string> candidates() {
  if (const char* env = std::getenv("EC_CUBLAS_LIBRARY"); env != nullptr && *env != '\0') {
    return {env};
  }
  const std::string name = kCublasSoname;
  std::vector<std::string> out = {name};
#if defined(EC_CUBLAS_LIBRARY_DIR)
  out.push_back(std::string(EC_CUBLAS_LIBRARY_DIR) + "/" + name);
#endif
  out.push_back("/usr/local/cuda/lib64/" + name);
  return out;
}

// cublasGemmEx's C entry point (the header adds a C++ overload that takes a cudaDataType).
using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                  int, const void*, const void*, cudaDataType, int, const void*,
                                  cudaDataType, int, const void*, void*, cudaDataType, int,
                                  cublasComputeType_t, cublasGemmAlgo_t);

struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  GemmEx gemm_ex = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

template <class Fn>
void resolve(void* lib, const std::string& path, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  EC_CHECK(fn != nullptr, "{}: no symbol {} (the CUDA engine needs cuBLAS {})", path, symbol,
           CUBLAS_VER_MAJOR);
}

Cublas load() {
  std::string tried;
  for (const std::string& path : candidates()) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      tried += fmt::format("\n  {}: {}", path, why != nullptr ? why : "not loaded");
      continue;
    }
    Cublas c;
    resolve(lib, path, "cublasCreate_v2", c.create);
    resolve(lib, path, "cublasDestroy_v2", c.destroy);
    resolve(lib, path, "cublasSetStream_v2", c.set_stream);
    resolve(lib, path, "cublasGemmEx", c.gemm_ex);
    resolve(lib, path, "cublasGetStatusName", c.status_name);
    resolve(lib, path, "cublasGetStatusString", c.status_string);
    return c;  // the library stays open for the life of the process
  }
  fail(
      "the CUDA engine needs cuBLAS {} ({}), which did not load; add its directory to "
      "LD_LIBRARY_PATH or name the file in EC_CUBLAS_LIBRARY. Tried:{}",
      CUBLAS_VER_MAJOR, kCublasSoname, tried);
}

// Opened once, by the first caller (a function-local static: thread-safe initialisation).
const Cublas& cublas() {
  static const Cublas c = load();
  return c;
}

}  // namespace
}  // namespace ec::engine::cuda

using ec::engine::cuda::cublas;

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
  return cublas().create(handle);
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
  return cublas().destroy(handle);
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  return cublas().set_stream(handle, stream);
}

cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const void* alpha, const void* A, cudaDataType Atype,
                                         int lda, const void* B, cudaDataType Btype, int ldb,
                                         const void* beta, void* C, cudaDataType Ctype, int ldc,
                                         cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  return cublas().gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
                          beta, C, Ctype, ldc, compute, algo);
}

const char* CUBLASWINAPI cublasGetStatusName(cublasStatus_t status) {
  return cublas().status_name(status);
}

const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
  return cublas().status_string(status);
}

}  // extern "C"
