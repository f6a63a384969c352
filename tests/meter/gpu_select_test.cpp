// CUDA_VISIBLE_DEVICES parsing: indices, UUIDs and prefixes, CUDA's stop-at-first-invalid rule.
#include "meter/gpu_select.h"

#include <gtest/gtest.h>

namespace ec::meter {
namespace {

const std::vector<std::string> kUuids = {"GPU-aaaa1111-0000", "GPU-bbbb2222-0000",
                                         "GPU-bbbc3333-0000"};

TEST(VisibleGpus, UnsetMeansAll) {
  EXPECT_EQ(visible_nvml_indices(std::nullopt, kUuids), (std::vector<unsigned>{0, 1, 2}));
}

TEST(VisibleGpus, IndicesInCudaOrder) {
  EXPECT_EQ(visible_nvml_indices("2,0", kUuids), (std::vector<unsigned>{2, 0}));
  EXPECT_EQ(visible_nvml_indices(" 1 ", kUuids), (std::vector<unsigned>{1}));
}

TEST(VisibleGpus, UuidsAndUniquePrefixes) {
  EXPECT_EQ(visible_nvml_indices("GPU-bbbb2222-0000", kUuids), (std::vector<unsigned>{1}));
  EXPECT_EQ(visible_nvml_indices("aaaa", kUuids), (std::vector<unsigned>{0}));
  // "GPU-bbb" matches two devices: ambiguous, names none.
  EXPECT_TRUE(visible_nvml_indices("GPU-bbb", kUuids).empty());
}

TEST(VisibleGpus, StopsAtFirstInvalidEntryLikeCuda) {
  EXPECT_EQ(visible_nvml_indices("1,7,0", kUuids), (std::vector<unsigned>{1}));
  EXPECT_TRUE(visible_nvml_indices("", kUuids).empty());
  EXPECT_TRUE(visible_nvml_indices("-1", kUuids).empty());
  EXPECT_TRUE(visible_nvml_indices("MIG-abcd", kUuids).empty());
  EXPECT_EQ(visible_nvml_indices("0,0", kUuids), (std::vector<unsigned>{0}));
}

}  // namespace
}  // namespace ec::meter
