// Unit tests of the pieces: UTF-8 repair, the byte-level map, the onig-compatible regex.
#include <gtest/gtest.h>

#include "core/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/regex.h"
#include "tokenizer/utf8.h"

#include <random>
#include <string>
#include <vector>

namespace ec::tok {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8, LossyReplacesEachMaximalInvalidSubpartOnce) {
  EXPECT_EQ(utf8_lossy("abc"), "abc");
  EXPECT_EQ(utf8_lossy("a\x80"
                       "b"),
            "a" + kFffd + "b");
  // A truncated 4-byte sequence is one maximal subpart: one U+FFFD, as Rust's from_utf8_lossy.
  EXPECT_EQ(utf8_lossy("\xF0\x9F\x98"), kFffd);
  EXPECT_EQ(utf8_lossy("\xF0\x9F\x98!"), kFffd + "!");
  // Overlong and surrogate encodings stop at their first byte.
  EXPECT_EQ(utf8_lossy("\xC0\x80"), kFffd + kFffd);
  EXPECT_EQ(utf8_lossy("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(utf8_lossy("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(utf8_lossy("\xE2\x82\xAC\xE2\x82"), "\xE2\x82\xAC" + kFffd);
}

TEST(Utf8, FindsTheFirstInvalidByte) {
  EXPECT_FALSE(find_invalid_utf8("caf\xC3\xA9 \xF0\x9F\x98\x80").has_value());
  EXPECT_EQ(find_invalid_utf8("abc\xFF"), 3u);
  EXPECT_EQ(find_invalid_utf8("ab\xE2\x82"), 2u);
}

TEST(Utf8, CodePointsRoundTrip) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> dist(1, 0x10FFFF);
  for (int i = 0; i < 2000; ++i) {
    char32_t c = dist(rng);
    if (c >= 0xD800 && c <= 0xDFFF) c = 0x41 + static_cast<char32_t>(i % 26);
    std::string s;
    append_utf8(s, c);
    ASSERT_FALSE(find_invalid_utf8(s).has_value());
    std::size_t pos = 0;
    ASSERT_EQ(next_code_point(s, pos), c);
    ASSERT_EQ(pos, s.size());
  }
}

TEST(ByteLevel, MapsEveryByteToADistinctCharacterAndBack) {
  const ByteLevelMap& map = ByteLevelMap::get();
  for (int b = 0; b < 256; ++b) {
    std::string encoded;
    map.encode(std::string(1, static_cast<char>(b)), encoded);
    std::size_t pos = 0;
    const char32_t c = next_code_point(encoded, pos);
    ASSERT_EQ(pos, encoded.size());
    ASSERT_EQ(map.byte_of(c), static_cast<unsigned char>(b));
  }
  std::string space;
  map.encode(" ", space);
  EXPECT_EQ(space, "\xC4\xA0");  // Ġ
  EXPECT_EQ(map.byte_of(U'A'), 'A');
  EXPECT_FALSE(map.byte_of(U'\u4E2D').has_value());
}

std::vector<std::string> pieces(const Regex& regex, const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [b, e] : regex.find_all(text)) out.push_back(text.substr(b, e - b));
  return out;
}

const char* kQwenPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

TEST(Regex, SplitsWhitespaceRunsLikeTokenizers) {
  const Regex regex(kQwenPattern, "test");
  EXPECT_EQ(pieces(regex, "a   b"), (std::vector<std::string>{"a", "  ", " b"}));
  EXPECT_EQ(pieces(regex, "end   "), (std::vector<std::string>{"end", "   "}));
  EXPECT_EQ(pieces(regex, "x\n\n\ny"), (std::vector<std::string>{"x", "\n\n\n", "y"}));
  EXPECT_EQ(pieces(regex, "I'M 123"), (std::vector<std::string>{"I", "'M", " ", "1", "2", "3"}));
}

// Oniguruma's \s is Unicode White_Space, which no longer holds U+180E; PCRE2's UCP \s does.
TEST(Regex, WhitespaceIsOnigurumasNotPcre2s) {
  const Regex regex(kQwenPattern, "test");
  const std::string mvs = "\xE1\xA0\x8E";  // U+180E MONGOLIAN VOWEL SEPARATOR
  EXPECT_EQ(pieces(regex, "x" + mvs + mvs + "y"), (std::vector<std::string>{"x", mvs + mvs, "y"}));
  const std::string nbsp = "\xC2\xA0";
  EXPECT_EQ(pieces(regex, "a" + nbsp + nbsp + "b"),
            (std::vector<std::string>{"a", nbsp, nbsp + "b"}));
}

TEST(Regex, RewritesOnlyRealWhitespaceEscapes) {
  EXPECT_EQ(Regex::onig_compatible(R"(\\s)"), R"(\\s)");
  EXPECT_NE(Regex::onig_compatible(R"(\s)").find("\\x{3000}"), std::string::npos);
  const std::string in_class = Regex::onig_compatible(R"([^\s\p{L}])");
  EXPECT_EQ(in_class.front(), '[');
  EXPECT_EQ(in_class.find('[', 1), std::string::npos);  // no nested class
}

TEST(Regex, BadPatternNamesWhereItCameFrom) {
  try {
    Regex regex("(unclosed", "tok.json: pre_tokenizer.pattern.Regex");
    FAIL() << "expected an error";
  } catch (const ec::Error& e) {
    EXPECT_NE(std::string(e.what()).find("pre_tokenizer.pattern.Regex"), std::string::npos);
  }
}

}  // namespace
}  // namespace ec::tok
