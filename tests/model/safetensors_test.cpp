// safetensors reader and writer: round trips, the exact on-disk layout, and every malformed input.
#include "model/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "model/model_test_util.h"
#include "support/paths.h"

namespace ec::model {
namespace {

using test::error_of;
using test::raw_safetensors;
using test::write_bytes;
using ::testing::AllOf;
using ::testing::HasSubstr;

class SafetensorsTest : public ::testing::Test {
 protected:
  // Writes `bytes` to a scratch file and returns the error reading it gives.
  std::string read_error(const std::string& bytes) {
    write_bytes(file(), bytes);
    return error_of([&] { read_safetensors(file()); });
  }
  std::filesystem::path file() const { return scratch_ / "bad.safetensors"; }
  ec::test::ScratchDir scratch_;
};

TEST_F(SafetensorsTest, RoundTripIsBitExactForEveryDtype) {
  std::vector<Tensor> in = {
      test::random_tensor("a.f32", DType::f32, {3, 5}, 1),
      test::random_tensor("b.f16", DType::f16, {7, 2, 3}, 2),
      test::random_tensor("c.bf16", DType::bf16, {9}, 3),
      test::random_tensor("d.i8", DType::i8, {4, 4}, 4),
      test::random_tensor("e.u8", DType::u8, {3}, 5),
      test::random_tensor("f.i32", DType::i32, {2, 2}, 6),
      test::random_tensor("g.scalar", DType::f32, {}, 7),
      test::random_tensor("h.empty", DType::f16, {0, 4}, 8),
  };
  const auto path = scratch_ / "t.safetensors";
  write_safetensors(path, in, {{"format", "pt"}, {"note", "ünïcode"}});

  SafetensorsFile out = read_safetensors(path);
  EXPECT_FALSE(out.has_gaps);
  EXPECT_EQ(out.metadata.at("format"), "pt");
  EXPECT_EQ(out.metadata.at("note"), "ünïcode");
  ASSERT_EQ(out.tensors.size(), in.size());
  for (const Tensor& t : in) {
    const Tensor* r = out.find(t.name);
    ASSERT_NE(r, nullptr) << t.name;
    EXPECT_EQ(r->dtype, t.dtype) << t.name;
    EXPECT_EQ(r->shape, t.shape) << t.name;
    EXPECT_TRUE(test::same_bytes(*r, t)) << t.name;
  }
  EXPECT_EQ(out.find("missing"), nullptr);
  EXPECT_FLOAT_EQ(out.find("a.f32")->at(7), in[0].at(7));
  EXPECT_FLOAT_EQ(out.find("c.bf16")->at(8), in[2].at(8));
}

TEST_F(SafetensorsTest, LayoutMatchesTheFormat) {
  // One F16 tensor of two elements: 1.0 (0x3c00) and -2.0 (0xc000).
  Tensor t;
  t.name = "w";
  t.dtype = DType::f16;
  t.shape = {2};
  const uint8_t payload[4] = {0x00, 0x3c, 0x00, 0xc0};
  t.data = reinterpret_cast<const std::byte*>(payload);
  t.nbytes = 4;
  const auto path = scratch_ / "layout.safetensors";
  write_safetensors(path, {t});

  const std::string bytes = read_file(path);
  const std::string header = R"({"w":{"data_offsets":[0,4],"dtype":"F16","shape":[2]}})";
  const size_t padded = (header.size() + 7) / 8 * 8;
  ASSERT_EQ(bytes.size(), 8 + padded + 4);
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), padded);  // little-endian u64
  EXPECT_EQ(bytes.substr(1, 7), std::string(7, '\0'));
  EXPECT_EQ(bytes.substr(8, header.size()), header);
  EXPECT_EQ(bytes.substr(8 + header.size(), padded - header.size()),
            std::string(padded - header.size(), ' '));
  EXPECT_EQ(bytes.substr(8 + padded), std::string(reinterpret_cast<const char*>(payload), 4));
}

TEST_F(SafetensorsTest, TensorsKeepTheMappingAlive) {
  Tensor kept;
  Tensor original = test::random_tensor("x", DType::f32, {64}, 11);
  const auto path = scratch_ / "alive.safetensors";
  write_safetensors(path, {original});
  {
    SafetensorsFile f = read_safetensors(path);
    kept = *f.find("x");
  }
  std::filesystem::remove(path);  // the mapping outlives the name
  EXPECT_TRUE(test::same_bytes(kept, original));
}

TEST_F(SafetensorsTest, ReportsGapsButAcceptsThem) {
  const std::string header =
      R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}})";
  write_bytes(file(), raw_safetensors(header, "ab..cd"));
  SafetensorsFile f = read_safetensors(file());
  EXPECT_TRUE(f.has_gaps);
  EXPECT_EQ(static_cast<char>(f.find("b")->data[1]), 'd');
}

TEST_F(SafetensorsTest, ShorterThanLengthField) {
  EXPECT_THAT(read_error("abc"), AllOf(HasSubstr(file().string()), HasSubstr("shorter than")));
  EXPECT_THAT(read_error(""), AllOf(HasSubstr(file().string()), HasSubstr("0 bytes")));
}

TEST_F(SafetensorsTest, HeaderCutShort) {
  std::string full =
      raw_safetensors(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", "x");
  EXPECT_THAT(read_error(full.substr(0, 30)),
              AllOf(HasSubstr(file().string()), HasSubstr("beyond the end of the file")));
}

TEST_F(SafetensorsTest, AbsurdHeaderLength) {
  std::string bytes(8, '\0');
  bytes[5] = 1;  // 2^40
  bytes += "{}";
  EXPECT_THAT(read_error(bytes), AllOf(HasSubstr(file().string()), HasSubstr("limit")));
}

TEST_F(SafetensorsTest, InvalidJson) {
  EXPECT_THAT(read_error(raw_safetensors(R"({"a": {"dtype": "F32",)", "")),
              AllOf(HasSubstr(file().string()), HasSubstr("not valid JSON")));
  EXPECT_THAT(read_error(raw_safetensors("[1, 2]", "")),
              AllOf(HasSubstr(file().string()), HasSubstr("not a JSON object")));
}

TEST_F(SafetensorsTest, EntryNotAnObject) {
  EXPECT_THAT(
      read_error(raw_safetensors(R"({"layer.w": 5})", "")),
      AllOf(HasSubstr(file().string()), HasSubstr("'layer.w'"), HasSubstr("not an object")));
}

TEST_F(SafetensorsTest, UnknownDtype) {
  EXPECT_THAT(read_error(raw_safetensors(
                  R"({"w":{"dtype":"Q4_K","shape":[1],"data_offsets":[0,1]}})", "x")),
              AllOf(HasSubstr(file().string()), HasSubstr("'w'"), HasSubstr("Q4_K")));
  EXPECT_THAT(
      read_error(raw_safetensors(R"({"w":{"dtype":7,"shape":[1],"data_offsets":[0,1]}})", "x")),
      AllOf(HasSubstr("'w'"), HasSubstr("dtype")));
}

TEST_F(SafetensorsTest, BadShape) {
  for (const char* shape : {R"("3")", "[2, -1]", "[1.5]", R"(["2"])"}) {
    const std::string header =
        std::string(R"({"w":{"dtype":"U8","shape":)") + shape + R"(,"data_offsets":[0,2]}})";
    EXPECT_THAT(read_error(raw_safetensors(header, "xx")),
                AllOf(HasSubstr(file().string()), HasSubstr("'w'"), HasSubstr("shape")))
        << shape;
  }
}

TEST_F(SafetensorsTest, BadOffsets) {
  for (const char* offsets : {"[0]", "[0, 1, 2]", R"(["0", "1"])", "[-1, 1]", "7"}) {
    const std::string header =
        std::string(R"({"w":{"dtype":"U8","shape":[1],"data_offsets":)") + offsets + "}}";
    EXPECT_THAT(read_error(raw_safetensors(header, "x")),
                AllOf(HasSubstr(file().string()), HasSubstr("'w'"), HasSubstr("data_offsets")))
        << offsets;
  }
}

TEST_F(SafetensorsTest, BeginAfterEnd) {
  EXPECT_THAT(
      read_error(raw_safetensors(R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[2,1]}})", "xx")),
      AllOf(HasSubstr("'w'"), HasSubstr("begin after end")));
}

TEST_F(SafetensorsTest, EndPastTheData) {
  EXPECT_THAT(read_error(raw_safetensors(
                  R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "1234")),
              AllOf(HasSubstr(file().string()), HasSubstr("'w'"), HasSubstr("beyond the data")));
}

TEST_F(SafetensorsTest, ShapeDisagreesWithByteSpan) {
  EXPECT_THAT(
      read_error(raw_safetensors(R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})",
                                 std::string(12, 'x'))),
      AllOf(HasSubstr(file().string()), HasSubstr("'w'"), HasSubstr("needs 16 bytes"),
            HasSubstr("span 12")));
  // Dimensions whose product overflows are a size mismatch, not a wrap-around.
  EXPECT_THAT(
      read_error(raw_safetensors(
          R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", "")),
      AllOf(HasSubstr("'w'"), HasSubstr("too many")));
}

TEST_F(SafetensorsTest, OverlappingTensors) {
  const std::string header = R"({"first":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                             R"("second":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})";
  EXPECT_THAT(read_error(raw_safetensors(header, "abcdef")),
              AllOf(HasSubstr(file().string()), HasSubstr("'first'"), HasSubstr("'second'"),
                    HasSubstr("overlaps")));
}

TEST_F(SafetensorsTest, DuplicateNames) {
  const std::string header = R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
  EXPECT_THAT(read_error(raw_safetensors(header, "ab")),
              AllOf(HasSubstr(file().string()), HasSubstr("'w'"), HasSubstr("twice")));
}

TEST_F(SafetensorsTest, MetadataMustBeStrings) {
  EXPECT_THAT(read_error(raw_safetensors(R"({"__metadata__":{"format":1}})", "")),
              AllOf(HasSubstr(file().string()), HasSubstr("'format'")));
}

TEST_F(SafetensorsTest, WriterRejectsBadTensorsAndLeavesNothingBehind) {
  Tensor a = test::random_tensor("a", DType::f32, {4}, 1);
  Tensor wrong = a;
  wrong.name = "wrong";
  wrong.shape = {5};
  const auto path = scratch_ / "out.safetensors";
  EXPECT_THAT(error_of([&] {
                write_safetensors(path, {a, a});
              }),
              AllOf(HasSubstr("'a'"), HasSubstr("twice")));
  EXPECT_THAT(error_of([&] { write_safetensors(path, {a, wrong}); }), HasSubstr("'wrong'"));
  EXPECT_TRUE(std::filesystem::is_empty(scratch_.path()));  // no target, no temp file
}

TEST_F(SafetensorsTest, RewriteReplacesTheFileAtomically) {
  const auto path = scratch_ / "m.safetensors";
  write_safetensors(path, {test::random_tensor("old", DType::f16, {8}, 1)});
  write_safetensors(path, {test::random_tensor("new", DType::f16, {8}, 2)});
  SafetensorsFile f = read_safetensors(path);
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].name, "new");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch_.path()),
                          std::filesystem::directory_iterator()),
            1);
}

}  // namespace
}  // namespace ec::model
