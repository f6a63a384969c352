// store::JsonDoc, the flat JSON reader import and the store use: it must read exactly what
// nlohmann reads (same acceptance, same values, last duplicate key wins) on hand-made edge cases
// and on seeded random documents.
#include "store/json_doc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "../fuzz/same_json.h"

namespace ec::store {
namespace {

using nlohmann::json;

using fuzz::same_json;

// Both accept and agree, or both refuse.
void expect_agree(const std::string& text) {
  bool ours = true;
  bool theirs = true;
  JsonDoc doc;
  json j;
  try {
    doc = JsonDoc::parse(text);
  } catch (const std::exception&) {
    ours = false;
  }
  try {
    j = json::parse(text);
  } catch (const json::exception&) {
    theirs = false;
  }
  ASSERT_EQ(ours, theirs) << "text: " << text;
  if (ours) {
    EXPECT_TRUE(same_json(doc, doc.root(), j)) << "text: " << text;
  }
}

TEST(JsonDoc, EdgeCasesAgreeWithNlohmann) {
  for (const char* text :
       {"{}", "[]", "0", "-0", "-0.0", "1e5", "1E+5", "1e-400", "4.9e-324", "1e308",
        "18446744073709551615", "18446744073709551616", "-9223372036854775808",
        "-9223372036854775809", "0.1", "123456789012345678901234567890", "true", "false", "null",
        "\"\"", "\"\\u0000\"", "\"\\ud83d\\ude00\"", "\"\\u00e9\\u4f60\"", "\"\xC3\xA9\"",
        "\"\xF0\x9F\x98\x80\"", "  {\"a\" : [1, 2, {\"b\": null}] }  ", "\xEF\xBB\xBF{}",
        "{\"a\":1,\"a\":2}", "{\"b\":1,\"a\":{\"x\":1},\"a\":{\"y\":2}}",
        // refused by both
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "-", "1.", ".5", "1e", "+1", "NaN", "Infinity",
        "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
        "\"\\ud800\\u0041\"", "\"\xC0\xAF\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"",
        "\"\xFF\"", "\"a\tb\"", "{} {}", "[1] x", "1e400", "-1e400", "{\"a\" 1}", "{1:2}",
        "\xEF\xBB", "[\"\\u0000\"]"}) {
    expect_agree(text);
  }
}

std::string random_string(std::mt19937& rng) {
  static const std::vector<std::string> pieces = {"a",        "Z",
                                                  " ",        "\\\"",
                                                  "\\\\",     "\\n",
                                                  "\\u00e9",  "\\ud83d\\ude00",
                                                  "\xC3\xA9", "\xE4\xBD\xA0",
                                                  "/",        "\\/",
                                                  "\\t",      "key",
                                                  "0"};
  std::string s = "\"";
  const int n = static_cast<int>(rng() % 6);
  for (int i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
  return s + "\"";
}

std::string random_value(std::mt19937& rng, int depth) {
  const int kind = static_cast<int>(rng() % (depth > 4 ? 6 : 8));
  switch (kind) {
    case 0:
      return "null";
    case 1:
      return rng() % 2 ? "true" : "false";
    case 2:
      return std::to_string(static_cast<int64_t>(rng()) - (1ll << 31));
    case 3: {
      std::uniform_real_distribution<double> d(-1e6, 1e6);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*g", static_cast<int>(rng() % 17 + 1), d(rng));
      return buf;
    }
    case 4:
      return std::to_string(rng()) + "e" + std::to_string(static_cast<int>(rng() % 40) - 20);
    case 5:
      return random_string(rng);
    case 6: {
      std::string s = "[";
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) s += (i ? ", " : "") + random_value(rng, depth + 1);
      return s + "]";
    }
    default: {
      std::string s = "{";
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        s += (i ? ",\n " : "") + random_string(rng) + ": " + random_value(rng, depth + 1);
      }
      return s + "}";
    }
  }
}

TEST(JsonDoc, RandomDocumentsAndTheirTruncationsAgreeWithNlohmann) {
  std::mt19937 rng(20260901);
  for (int i = 0; i < 400; ++i) {
    const std::string text = random_value(rng, 0);
    expect_agree(text);
    expect_agree(text.substr(0, rng() % (text.size() + 1)));  // mostly refused by both
  }
}

TEST(JsonDoc, NestingPastTheLimitIsRefusedWithItsOffset) {
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_NO_THROW(JsonDoc::parse(ok));
  const std::string deep = std::string(100000, '[');
  try {
    JsonDoc::parse(deep);
    FAIL() << "expected an error";
  } catch (const JsonSyntaxError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("256"));
    EXPECT_EQ(e.offset(), static_cast<size_t>(kMaxJsonDepth));
  }
}

TEST(JsonDoc, MemberFindsTheLastDuplicateAndNothingInNonObjects) {
  const JsonDoc doc = JsonDoc::parse(R"({"a": 1, "b": [1], "a": "two"})");
  const auto a = doc.member(doc.root(), "a");
  ASSERT_NE(a, 0u);
  EXPECT_EQ(doc.string(a), "two");
  EXPECT_EQ(doc.member(doc.root(), "missing"), 0u);
  EXPECT_EQ(doc.member(doc.member(doc.root(), "b"), "x"), 0u);
  EXPECT_EQ(doc.members(doc.root()).size(), 2u);
  EXPECT_STREQ(doc.type_name(doc.member(doc.root(), "b")), "array");
}

}  // namespace
}  // namespace ec::store
