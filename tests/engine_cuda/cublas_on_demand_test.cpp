// cuBLAS is opened on the first call of one of its entry points
// (src/engine/cuda/cublas_on_demand.cpp), which needs no GPU: its status names come from the
// library itself.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"

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

// A cuBLAS that does not load is an error naming the library and each file tried (in a process of
// its own: the library is opened once per process).
TEST(CublasOnDemandDeathTest, ALibraryThatDoesNotLoadIsAnErrorNamingWhatWasTried) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process, where cuBLAS is not open yet
  EXPECT_EXIT(
      {
        setenv("EC_CUBLAS_LIBRARY", "/nonexistent/libcublas.so.13", 1);
        try {
          (void)cublasGetStatusName(CUBLAS_STATUS_SUCCESS);
        } catch (const ec::Error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(3);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(3),
      "needs cuBLAS 13 \\(libcublas.so.13\\), which did not load.*EC_CUBLAS_LIBRARY.*Tried:\n"
      "  /nonexistent/libcublas.so.13: ");
}

}  // namespace
