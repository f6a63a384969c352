// The marker protocol's line parser: every verb's form, and a message naming what was expected.
#include "bench/marks.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace ec::bench {
namespace {

std::string error_of(std::string_view line) {
  try {
    parse_mark(line);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Marks, ParsesEachVerb) {
  EXPECT_EQ(parse_mark("hello 1").version, 1);
  Mark info = parse_mark("info prompt The energy  a model spends");
  EXPECT_EQ(info.kind, Mark::Kind::info);
  EXPECT_EQ(info.key, "prompt");
  EXPECT_EQ(info.value, "The energy  a model spends");  // the rest of the line, spacing kept
  // A key that is a prefix of the verb is found where it stands, not inside "info".
  EXPECT_EQ(parse_mark("info in x y").value, "x y");
  EXPECT_EQ(parse_mark("label int8").value, "int8");
  Mark begin = parse_mark("begin prefill");
  EXPECT_EQ(begin.kind, Mark::Kind::begin);
  EXPECT_EQ(begin.window, "prefill");
  EXPECT_EQ(parse_mark("next decode").kind, Mark::Kind::next);
  Mark end = parse_mark("end 768 3");
  EXPECT_EQ(end.tokens, 768);
  EXPECT_EQ(end.generations, 3);
  EXPECT_EQ(parse_mark("end 256").generations, 1);
}

TEST(Marks, RefusesMalformedLinesSayingWhatWasExpected) {
  EXPECT_NE(error_of("").find("expected hello"), std::string::npos);
  EXPECT_NE(error_of("hello").find("'hello VERSION'"), std::string::npos);
  EXPECT_NE(error_of("hello x").find("VERSION must be a whole number"), std::string::npos);
  EXPECT_NE(error_of("info model").find("'info KEY VALUE'"), std::string::npos);
  EXPECT_NE(error_of("label in.8").find("letters, digits"), std::string::npos);
  EXPECT_NE(error_of("begin").find("'begin WINDOW'"), std::string::npos);
  EXPECT_NE(error_of("next de code").find("'next WINDOW'"), std::string::npos);
  EXPECT_NE(error_of("end 0").find("at least 1"), std::string::npos);
  EXPECT_NE(error_of("end 10 3").find("do not split into 3 equal generations"), std::string::npos);
  EXPECT_NE(error_of("end 5x").find("TOKENS must be"), std::string::npos);
  EXPECT_NE(error_of("stop now").find("unknown verb 'stop'"), std::string::npos);
  EXPECT_NE(error_of("begin\tdecode").find("control characters"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMaxMarkLineBytes + 1, 'a')).find("at most"), std::string::npos);
}

}  // namespace
}  // namespace ec::bench
