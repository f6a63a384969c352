// cuBLAS is opened on the first call of one of its entry points
// (src/engine/cuda/cublas_on_demand.cpp), which needs no GPU: its status names come from the
// library itself.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <string>

namespace {

TEST(CublasOnDemand, OpensTheLibraryOnFirstUse) {
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE");
  EXPECT_FALSE(std::string(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE)).empty());
  // A handle needs a GPU; without one cuBLAS answers with an error status rather than failing to
  // load.
  cublasHandle_t h = nullptr;
  const cublasStatus_t created = cublasCreate(&h);
  if (created == CUBLAS_STATUS_SUCCESS) {
    EXPECT_EQ(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
  } else {
    EXPECT_EQ(h, nullptr) << cublasGetStatusName(created);
  }
}

}  // namespace
