// Sweep axes: comma lists and llama-bench style integer ranges.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "sweep/value_list.h"

namespace ec::sweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NameList, SplitsAndTrims) {
  EXPECT_THAT(parse_name_list("tiny-llama, tiny-qwen2 ,/m/x", "--models"),
              ElementsAre("tiny-llama", "tiny-qwen2", "/m/x"));
  EXPECT_THAT(parse_name_list("one", "--models"), ElementsAre("one"));
}

TEST(NameList, EmptyItemIsAUsageErrorNamingTheFlag) {
  try {
    parse_name_list("a,,b", "--models");
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--models"));
  }
  EXPECT_THROW(parse_name_list("", "--models"), UsageError);
}

TEST(IntList, ValuesAndRanges) {
  EXPECT_THAT(parse_int_list("16,32", "--new-tokens", 1), ElementsAre(16, 32));
  EXPECT_THAT(parse_int_list("3-6", "--gpus"), ElementsAre(3, 4, 5, 6));
  EXPECT_THAT(parse_int_list("64-256+64", "--new-tokens", 1), ElementsAre(64, 128, 192, 256));
  EXPECT_THAT(parse_int_list("16-128*2", "--new-tokens", 1), ElementsAre(16, 32, 64, 128));
  // A step that overshoots stops at the last value not beyond the end.
  EXPECT_THAT(parse_int_list("10-25+10,7", "--new-tokens", 1), ElementsAre(10, 20, 7));
}

TEST(IntList, StepsNearTheIntegerLimitEndTheRange) {
  // The next value would overflow int64; the range holds only the values within LAST.
  EXPECT_THAT(parse_int_list("1-6*1999999959999999999", "--new-tokens", 1), ElementsAre(1));
  EXPECT_THAT(parse_int_list("2-2147483647+9223372036854775807", "--new-tokens", 1),
              ElementsAre(2));
  EXPECT_THAT(parse_int_list("1073741824-2147483647*2", "--new-tokens", 1),
              ElementsAre(1073741824));
  EXPECT_THAT(parse_int_list("2147483646-2147483647", "--gpus"),
              ElementsAre(2147483646, 2147483647));
}

TEST(IntList, RejectsWhatItCannotRead) {
  for (const char* bad : {"x", "1-", "5-2", "1-8+0", "1-8*1", "0-8*2", "1.5", "2-4+x", "1,,2"}) {
    try {
      parse_int_list(bad, "--new-tokens", 0);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr("--new-tokens")) << bad;
    }
  }
  EXPECT_THROW(parse_int_list("0", "--new-tokens", 1), UsageError);
  EXPECT_THROW(parse_int_list("-1", "--gpus", 0), UsageError);
  EXPECT_THROW(parse_int_list("1-100000", "--new-tokens", 1), UsageError);
}

}  // namespace
}  // namespace ec::sweep
