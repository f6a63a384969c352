// Compute capabilities of real cards map to the architecture names the curves are keyed by.
#include <gtest/gtest.h>

#include "engine/device_arch.h"

namespace ec::engine {
namespace {

TEST(DeviceArch, KnownCardsMapToTheirFamily) {
  EXPECT_EQ(architecture_of_compute_capability(7, 0), "volta");   // V100
  EXPECT_EQ(architecture_of_compute_capability(7, 5), "turing");  // T4
  EXPECT_EQ(architecture_of_compute_capability(8, 0), "ampere");  // A100
  EXPECT_EQ(architecture_of_compute_capability(8, 6), "ampere");  // A10, RTX 3090
  EXPECT_EQ(architecture_of_compute_capability(8, 9), "ada");     // L4, RTX 4090
  EXPECT_EQ(architecture_of_compute_capability(9, 0), "hopper");  // H100, H200
  EXPECT_EQ(architecture_of_compute_capability(10, 0), "blackwell");
  EXPECT_EQ(architecture_of_compute_capability(12, 0), "blackwell");
}

TEST(DeviceArch, UnlistedCapabilityIsUnknownNotAGuess) {
  EXPECT_EQ(architecture_of_compute_capability(1, 0), "unknown");
  EXPECT_EQ(architecture_of_compute_capability(42, 0), "unknown");
}

}  // namespace
}  // namespace ec::engine
