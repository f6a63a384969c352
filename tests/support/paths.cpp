// Scratch directories for tests, unique per process and test.
#include "support/paths.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>

#include <fmt/format.h>

namespace ec::test {

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? fmt::format("{}.{}", info->test_suite_name(), info->name()) : "scratch";
  path_ = std::filesystem::path(EC_BINARY_DIR) / "test-scratch" /
          fmt::format("{}-{}-{}", name, ::getpid(), counter++);
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace ec::test
