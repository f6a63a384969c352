// Precision and architecture names as users type them: any case, GPU model names to families.
#include <gtest/gtest.h>

#include "core/architecture_names.h"
#include "core/precision_names.h"

namespace ec {
namespace {

TEST(PrecisionNames, AnyCaseGivesTheReportSpelling) {
  EXPECT_EQ(known_precision("nf4"), "NF4");
  EXPECT_EQ(known_precision("Int8-wo"), "INT8-WO");
  EXPECT_EQ(known_precision("nf4-dq"), "NF4-DQ");
  EXPECT_EQ(known_precision("FP16"), "FP16");
}

TEST(PrecisionNames, UnknownNamesAreNotPrecisions) {
  EXPECT_EQ(known_precision("nf8"), std::nullopt);
  EXPECT_EQ(known_precision(""), std::nullopt);
  EXPECT_EQ(known_precision("int8 "), std::nullopt);
  EXPECT_EQ(normalize_precision("fp8"), "FP8");
  EXPECT_EQ(normalize_precision("int8"), "INT8");
}

TEST(ArchitectureNames, FamiliesInAnyCase) {
  EXPECT_EQ(normalize_architecture("Hopper"), "hopper");
  EXPECT_EQ(normalize_architecture("ADA"), "ada");
  EXPECT_EQ(normalize_architecture("blackwell"), "blackwell");
}

TEST(ArchitectureNames, GpuModelNamesMapToFamilies) {
  EXPECT_EQ(normalize_architecture("rtx4090"), "ada");
  EXPECT_EQ(normalize_architecture("NVIDIA GeForce RTX 4090"), "ada");
  EXPECT_EQ(normalize_architecture("a100"), "ampere");
  EXPECT_EQ(normalize_architecture("NVIDIA A100-SXM4-80GB"), "ampere");
  EXPECT_EQ(normalize_architecture("H200"), "hopper");
  EXPECT_EQ(normalize_architecture("NVIDIA H100 80GB HBM3"), "hopper");
  EXPECT_EQ(normalize_architecture("Tesla T4"), "turing");
  EXPECT_EQ(normalize_architecture("Tesla V100-SXM2-16GB"), "volta");
  EXPECT_EQ(normalize_architecture("L40S"), "ada");
  EXPECT_EQ(normalize_architecture("a10g"), "ampere");
  EXPECT_EQ(normalize_architecture("B200"), "blackwell");
}

TEST(ArchitectureNames, TheLongestModelNumberWins) {
  // "Quadro RTX 6000" is Turing; "RTX 6000 Ada" is Ada; the H20 is not the H200.
  EXPECT_EQ(normalize_architecture("Quadro RTX 6000"), "turing");
  EXPECT_EQ(normalize_architecture("RTX 6000 Ada Generation"), "ada");
  EXPECT_EQ(architecture_of_gpu_name("h20"), "hopper");
  EXPECT_EQ(architecture_of_gpu_name("a1000"), std::nullopt);
  EXPECT_EQ(architecture_of_gpu_name("rtx40900"), std::nullopt);
}

TEST(ArchitectureNames, UnknownNamesAreLowerCasedForTheCallersMessage) {
  EXPECT_EQ(architecture_of_gpu_name("MI300X"), std::nullopt);
  EXPECT_EQ(normalize_architecture("MI300X"), "mi300x");
  EXPECT_EQ(normalize_architecture(""), "");
}

}  // namespace
}  // namespace ec
