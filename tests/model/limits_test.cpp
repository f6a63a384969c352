// The documented size limits on model files (docs/limits.md): each is an ec::Error naming the file,
// the limit and the size found, raised before anything of that size is allocated.
#include "model/limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "core/file_io.h"
#include "model/checkpoint.h"
#include "model/config.h"
#include "model/model_test_util.h"
#include "model/safetensors.h"
#include "support/paths.h"

namespace ec::model {
namespace {

using test::error_of;
using test::raw_safetensors;
using test::write_bytes;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ModelLimits, ConfigJsonAboveTheLimitIsRefusedBySize) {
  ec::test::ScratchDir dir;
  write_file_atomic(dir / "config.json", "{}");
  std::filesystem::resize_file(dir / "config.json", kMaxConfigJsonBytes + 1);  // sparse
  EXPECT_THAT(error_of([&] { parse_hf_config(dir / "config.json"); }),
              AllOf(HasSubstr("config.json"), HasSubstr(std::to_string(kMaxConfigJsonBytes + 1)),
                    HasSubstr(std::to_string(kMaxConfigJsonBytes)), HasSubstr("limit")));
}

TEST(ModelLimits, ConfigJsonAtTheLimitStillParses) {
  // A real config padded with spaces to exactly the limit: the limit is inclusive.
  ec::test::ScratchDir dir;
  std::string text = read_file(ec::test::fixture("model/qwen2-0.5b.config.json"));
  text.resize(kMaxConfigJsonBytes, ' ');
  write_file_atomic(dir / "config.json", text);
  EXPECT_EQ(parse_hf_config(dir / "config.json").hidden_size, 896);
}

TEST(ModelLimits, ReadFileWithinCountsBytesOfUnsizedFiles) {
  // /proc files report size 0: the limit is enforced while reading.
  const std::string self = read_file_within("/proc/self/status", 1 << 20, "status file");
  EXPECT_NE(self.find("Name:"), std::string::npos);
  EXPECT_THAT(error_of([] { read_file_within("/proc/self/status", 16, "status file"); }),
              AllOf(HasSubstr("/proc/self/status"), HasSubstr("limit of 16 bytes"),
                    HasSubstr("status file")));
}

TEST(ModelLimits, ShardIndexAboveTheLimitIsRefused) {
  ec::test::ScratchDir dir;
  write_file_atomic(dir / "config.json",
                    read_file(ec::test::fixture("model/qwen2-0.5b.config.json")));
  write_file_atomic(dir / "model.safetensors.index.json", "{}");
  std::filesystem::resize_file(dir / "model.safetensors.index.json", kMaxIndexJsonBytes + 1);
  EXPECT_THAT(error_of([&] { load_checkpoint(dir.path()); }),
              AllOf(HasSubstr("model.safetensors.index.json"),
                    HasSubstr(std::to_string(kMaxIndexJsonBytes)), HasSubstr("limit")));
}

// A header of `count` empty F32 tensors with distinct random names.
std::string header_of_empty_tensors(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string header = "{";
  for (size_t i = 0; i < count; ++i) {
    header += fmt::format("{}\"t{}_{}\":{{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}}",
                          i ? "," : "", i, rng() % 1000);
  }
  return header + "}";
}

TEST(ModelLimits, TensorCountAboveTheLimitIsRefused) {
  ec::test::ScratchDir dir;
  write_bytes(dir / "many.safetensors",
              raw_safetensors(header_of_empty_tensors(kMaxSafetensorsTensors + 1, 7), ""));
  EXPECT_THAT(error_of([&] { read_safetensors(dir / "many.safetensors"); }),
              AllOf(HasSubstr("many.safetensors"),
                    HasSubstr(std::to_string(kMaxSafetensorsTensors)), HasSubstr("tensors")));
}

TEST(ModelLimits, TensorCountAtTheLimitWithMetadataIsAccepted) {
  // __metadata__ is not a tensor: a file may hold exactly the limit plus its metadata.
  ec::test::ScratchDir dir;
  std::string header = header_of_empty_tensors(kMaxSafetensorsTensors, 9);
  header.insert(1, "\"__metadata__\":{\"format\":\"pt\"},");
  write_bytes(dir / "full.safetensors", raw_safetensors(header, ""));
  const SafetensorsFile st = read_safetensors(dir / "full.safetensors");
  EXPECT_EQ(st.tensors.size(), kMaxSafetensorsTensors);
  EXPECT_EQ(st.metadata.at("format"), "pt");
}

TEST(ModelLimits, HeaderLengthAboveTheLimitIsRefused) {
  ec::test::ScratchDir dir;
  std::string bytes(8, '\0');
  const uint64_t len = kMaxSafetensorsHeaderBytes + 1;
  for (int i = 0; i < 8; ++i)
    bytes[static_cast<size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
  write_bytes(dir / "big.safetensors", bytes + "{}");
  EXPECT_THAT(error_of([&] { read_safetensors(dir / "big.safetensors"); }),
              AllOf(HasSubstr("big.safetensors"), HasSubstr(std::to_string(len)),
                    HasSubstr(std::to_string(kMaxSafetensorsHeaderBytes))));
}

}  // namespace
}  // namespace ec::model
