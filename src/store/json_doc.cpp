// The flat JSON parser: recursive descent over the bytes, one pass, no allocation per value.
#include "store/json_doc.h"

#include <locale.h>
#include <clocale>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/utf8.h"

namespace ec::store {

class JsonDoc::Parser {
 public:
  Parser(std::string_view text, JsonDoc& doc) : s_(text), doc_(doc) {}

  void document() {
    // nlohmann skips a UTF-8 byte order mark at the start.
    if (s_.size() >= 3 && s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;
    doc_.nodes_.reserve(s_.size() / 16 + 4);
    doc_.strings_.reserve(s_.size() / 2);
    skip_ws();
    value(0);
    skip_ws();
    if (i_ != s_.size()) error("expected the end of the text after the top-level value");
  }

 private:
  [[noreturn]] void error(const char* what) const { throw JsonSyntaxError(i_, what); }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }

  void skip_ws() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      ++i_;
    }
  }

  uint32_t new_node(Type type) {
    doc_.nodes_.emplace_back();
    doc_.nodes_.back().type = type;
    return static_cast<uint32_t>(doc_.nodes_.size() - 1);
  }

  // Parses one value into a new node; returns its index.
  uint32_t value(int depth) {
    if (at_end()) error("the text ends where a value should start");
    switch (s_[i_]) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"': {
        const uint32_t n = new_node(Type::string);
        auto [off, len] = string();
        doc_.nodes_[n].str_off = off;
        doc_.nodes_[n].str_len = len;
        return n;
      }
      case 't':
        literal("true");
        return boolean(true);
      case 'f':
        literal("false");
        return boolean(false);
      case 'n':
        literal("null");
        return new_node(Type::null);
      default:
        return number();
    }
  }

  uint32_t boolean(bool b) {
    const uint32_t n = new_node(Type::boolean);
    doc_.nodes_[n].u = b ? 1 : 0;
    return n;
  }

  void literal(std::string_view word) {
    for (char c : word) {
      if (at_end()) error("the text ends inside a literal");
      if (s_[i_] != c) error("invalid literal");
      ++i_;
    }
  }

  uint32_t object(int depth) {
    if (depth > kMaxJsonDepth) error("nested deeper than the limit of 256 levels");
    const uint32_t n = new_node(Type::object);
    ++i_;  // '{'
    skip_ws();
    if (peek() == '}') {
      ++i_;
      return n;
    }
    uint32_t last = 0;
    while (true) {
      if (at_end()) error("the text ends inside an object");
      if (s_[i_] != '"') error("expected a string as the object key");
      auto [key_off, key_len] = string();
      skip_ws();
      if (at_end()) error("the text ends after an object key");
      if (s_[i_] != ':') error("expected ':' after the object key");
      ++i_;
      skip_ws();
      const uint32_t child = value(depth);
      doc_.nodes_[child].key_off = key_off;
      doc_.nodes_[child].key_len = key_len;
      link(n, last, child);
      last = child;
      skip_ws();
      if (at_end()) error("the text ends inside an object");
      if (s_[i_] == ',') {
        ++i_;
        skip_ws();
        continue;
      }
      if (s_[i_] == '}') {
        ++i_;
        return n;
      }
      error("expected ',' or '}' in an object");
    }
  }

  uint32_t array(int depth) {
    if (depth > kMaxJsonDepth) error("nested deeper than the limit of 256 levels");
    const uint32_t n = new_node(Type::array);
    ++i_;  // '['
    skip_ws();
    if (peek() == ']') {
      ++i_;
      return n;
    }
    uint32_t last = 0;
    while (true) {
      const uint32_t child = value(depth);
      link(n, last, child);
      last = child;
      skip_ws();
      if (at_end()) error("the text ends inside an array");
      if (s_[i_] == ',') {
        ++i_;
        skip_ws();
        continue;
      }
      if (s_[i_] == ']') {
        ++i_;
        return n;
      }
      error("expected ',' or ']' in an array");
    }
  }

  void link(uint32_t parent, uint32_t last, uint32_t child) {
    if (last == 0) {
      doc_.nodes_[parent].first_child = child;
    } else {
      doc_.nodes_[last].next = child;
    }
  }

  // A string token, decoded into the document's buffer: (offset, length).
  std::pair<uint32_t, uint32_t> string() {
    ++i_;  // opening quote
    std::string& out = doc_.strings_;
    const size_t off = out.size();
    while (true) {
      // Copy the plain run up to the next quote, backslash, control or non-ASCII byte at once.
      size_t j = i_;
      while (j < s_.size()) {
        const auto c = static_cast<unsigned char>(s_[j]);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++j;
      }
      out.append(s_.data() + i_, j - i_);
      i_ = j;
      if (at_end()) error("the text ends inside a string");
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return {static_cast<uint32_t>(off), static_cast<uint32_t>(out.size() - off)};
      }
      if (c == '\\') {
        escape(out);
      } else if (c < 0x20) {
        error("control character in a string (it must be escaped)");
      } else {
        utf8_sequence(out);
      }
    }
  }

  void escape(std::string& out) {
    ++i_;  // backslash
    if (at_end()) error("the text ends inside an escape");
    const char e = s_[i_++];
    switch (e) {
      case '"':
        out.push_back('"');
        return;
      case '\\':
        out.push_back('\\');
        return;
      case '/':
        out.push_back('/');
        return;
      case 'b':
        out.push_back('\b');
        return;
      case 'f':
        out.push_back('\f');
        return;
      case 'n':
        out.push_back('\n');
        return;
      case 'r':
        out.push_back('\r');
        return;
      case 't':
        out.push_back('\t');
        return;
      case 'u':
        break;
      default:
        --i_;
        error("invalid escape in a string");
    }
    uint32_t cp = hex4();
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      // A high surrogate must be followed by \u and a low one.
      for (const char want : {'\\', 'u'}) {
        if (at_end()) error("the text ends inside a surrogate pair");
        if (s_[i_] != want) error("a high surrogate \\u escape without its low surrogate");
        ++i_;
      }
      const uint32_t low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) error("a high surrogate followed by a non-low surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      error("a low surrogate \\u escape without a high one");
    }
    append_utf8(out, cp);
  }

  uint32_t hex4() {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      if (at_end()) error("the text ends inside a \\u escape");
      const char c = s_[i_];
      uint32_t d;
      if (c >= '0' && c <= '9') {
        d = static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        d = static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        d = static_cast<uint32_t>(c - 'A' + 10);
      } else {
        error("a \\u escape needs four hex digits");
      }
      v = v * 16 + d;
      ++i_;
    }
    return v;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // One multi-byte UTF-8 sequence, checked as nlohmann does (no overlongs, surrogates or >
  // U+10FFFF: core/utf8.h's rules).
  void utf8_sequence(std::string& out) {
    bool valid = false;
    const size_t len = scan_utf8_char(s_, i_, valid);
    if (!valid) {
      const auto lead = static_cast<unsigned char>(s_[i_]);
      if (lead < 0xC2 || lead > 0xF4) error("invalid UTF-8 byte in a string");
      if (i_ + len >= s_.size()) {
        i_ = s_.size();
        error("the text ends inside a UTF-8 sequence");
      }
      i_ += len;
      error("invalid UTF-8 sequence in a string");
    }
    out.append(s_.data() + i_, len);
    i_ += len;
  }

  uint32_t number() {
    const size_t start = i_;
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      ++i_;
    }
    if (at_end()) error("the text ends inside a number");
    if (s_[i_] == '0') {
      ++i_;
    } else if (s_[i_] >= '1' && s_[i_] <= '9') {
      while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    } else {
      error(negative ? "expected a digit after '-'" : "invalid value (not JSON)");
    }
    bool integral = true;
    if (peek() == '.') {
      integral = false;
      ++i_;
      if (at_end()) error("the text ends inside a number");
      if (s_[i_] < '0' || s_[i_] > '9') error("expected a digit after the decimal point");
      while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      if (at_end()) error("the text ends inside a number");
      if (s_[i_] < '0' || s_[i_] > '9') error("expected a digit in the exponent");
      while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + i_;
    if (integral) {
      if (negative) {
        int64_t v = 0;
        if (std::from_chars(first, last, v).ec == std::errc{}) {
          const uint32_t n = new_node(Type::integer);
          doc_.nodes_[n].u = static_cast<uint64_t>(v);
          return n;
        }
      } else {
        uint64_t v = 0;
        if (std::from_chars(first, last, v).ec == std::errc{}) {
          const uint32_t n = new_node(Type::unsigned_integer);
          doc_.nodes_[n].u = v;
          return n;
        }
      }
      // Beyond 64 bits: a double, as nlohmann does.
    }
    const uint32_t n = new_node(Type::real);
    doc_.nodes_[n].d = to_double(first, last, start);
    return n;
  }

  // Correctly rounded like strtod; an overflow is an error (nlohmann: "number overflow"), an
  // underflow gives what strtod gives (a subnormal or zero).
  double to_double(const char* first, const char* last, size_t start) const {
    double d = 0.0;
    // from_chars is the fast path; a C++ library without it for doubles (the site's WebAssembly
    // build) reads every number through strtod_l, with the same result.
#if defined(__cpp_lib_to_chars)
    const auto [ptr, ec] = std::from_chars(first, last, d);
    if (ec == std::errc{} && ptr == last && std::isfinite(d)) return d;
#endif
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
    const std::string token(first, last);
    d = strtod_l(token.c_str(), nullptr, c_locale);
    if (!std::isfinite(d)) {
      throw std::out_of_range("number overflow parsing '" + token + "' at byte " +
                              std::to_string(start + 1));
    }
    return d;
  }

  std::string_view s_;
  JsonDoc& doc_;
  size_t i_ = 0;
};

JsonDoc JsonDoc::parse(std::string_view text) {
  if (text.size() >= UINT32_MAX / 2) {
    throw JsonSyntaxError(0, "the text is too large for the JSON reader (4 GB)");
  }
  JsonDoc doc;
  Parser(text, doc).document();
  return doc;
}

double JsonDoc::number(Ref r) const {
  switch (type(r)) {
    case Type::integer:
      return static_cast<double>(integer(r));
    case Type::unsigned_integer:
      return static_cast<double>(unsigned_integer(r));
    default:
      return real(r);
  }
}

const char* JsonDoc::type_name(Ref r) const {
  switch (type(r)) {
    case Type::null:
      return "null";
    case Type::boolean:
      return "boolean";
    case Type::integer:
    case Type::unsigned_integer:
    case Type::real:
      return "number";
    case Type::string:
      return "string";
    case Type::array:
      return "array";
    case Type::object:
      return "object";
  }
  return "null";
}

JsonDoc::Ref JsonDoc::member(Ref object, std::string_view key) const {
  if (type(object) != Type::object) return 0;
  Ref found = 0;
  for (Ref c = nodes_[object].first_child; c != 0; c = nodes_[c].next) {
    if (view(nodes_[c].key_off, nodes_[c].key_len) == key) found = c;
  }
  return found;
}

std::vector<std::pair<std::string_view, JsonDoc::Ref>> JsonDoc::members(Ref object) const {
  std::vector<std::pair<std::string_view, Ref>> out;
  if (type(object) != Type::object) return out;
  for (Ref c = nodes_[object].first_child; c != 0; c = nodes_[c].next) {
    out.emplace_back(view(nodes_[c].key_off, nodes_[c].key_len), c);
  }
  // Stable: among equal keys the document order stays, and the last one is kept.
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::string_view, Ref>> unique;
  unique.reserve(out.size());
  for (size_t k = 0; k < out.size(); ++k) {
    if (k + 1 < out.size() && out[k + 1].first == out[k].first) continue;
    unique.push_back(out[k]);
  }
  return unique;
}

std::vector<JsonDoc::Ref> JsonDoc::elements(Ref array) const {
  std::vector<Ref> out;
  if (type(array) != Type::array) return out;
  for (Ref c = nodes_[array].first_child; c != 0; c = nodes_[c].next) out.push_back(c);
  return out;
}

}  // namespace ec::store
