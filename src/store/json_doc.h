// A read-only JSON document parsed strictly (RFC 8259, UTF-8) into one flat array of nodes and one
// buffer of decoded strings: what import reads 100,000 reports with, and the store its version
// stacks, without a heap node per value.
// It accepts exactly what nlohmann::json::parse accepts (same numbers, duplicate keys: the last
// wins), nesting up to kMaxJsonDepth; fuzz/report_ingest_entry.h checks the two agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ec::store {

// Deeper documents are refused (a report uses 4 levels); the parser recurses once per level.
inline constexpr int kMaxJsonDepth = 256;

// A syntax error at byte `offset` of the text (== its size when the text ends early).
class JsonSyntaxError : public std::runtime_error {
 public:
  JsonSyntaxError(size_t offset, const std::string& what)
      : std::runtime_error(what), offset_(offset) {}
  size_t offset() const { return offset_; }

 private:
  size_t offset_;
};

class JsonDoc {
 public:
  // nlohmann's kinds: a non-negative integer is `unsigned_integer`, a negative one `integer`, and
  // an integer too large for 64 bits a `real`.
  enum class Type : uint8_t {
    null,
    boolean,
    integer,
    unsigned_integer,
    real,
    string,
    array,
    object
  };
  using Ref = uint32_t;  // a node; the root is 0

  // Throws JsonSyntaxError (text that is not JSON) or std::out_of_range (a number beyond double).
  static JsonDoc parse(std::string_view text);

  Ref root() const { return 0; }
  Type type(Ref r) const { return nodes_[r].type; }
  bool is_number(Ref r) const {
    const Type t = type(r);
    return t == Type::integer || t == Type::unsigned_integer || t == Type::real;
  }
  bool boolean(Ref r) const { return nodes_[r].u != 0; }
  int64_t integer(Ref r) const { return static_cast<int64_t>(nodes_[r].u); }
  uint64_t unsigned_integer(Ref r) const { return nodes_[r].u; }
  double real(Ref r) const { return nodes_[r].d; }
  // Any number as a double (what nlohmann's get<double>() gives).
  double number(Ref r) const;
  std::string_view string(Ref r) const { return view(nodes_[r].str_off, nodes_[r].str_len); }
  // "null", "boolean", "number", "string", "array" or "object", as nlohmann's type_name().
  const char* type_name(Ref r) const;

  // The member named `key` (the last one when the key repeats), or 0 when absent or `object` is
  // not an object. 0 is the root and never a member, so it doubles as "none".
  Ref member(Ref object, std::string_view key) const;
  // An object's members sorted by key, a repeated key once (its last value): nlohmann's order.
  std::vector<std::pair<std::string_view, Ref>> members(Ref object) const;
  // An array's elements in order (empty for anything else).
  std::vector<Ref> elements(Ref array) const;

 private:
  struct Node {
    Type type = Type::null;
    uint32_t key_off = 0, key_len = 0;  // the member's key (in strings_)
    uint32_t str_off = 0, str_len = 0;  // a string's value (in strings_)
    uint32_t first_child = 0;           // arrays and objects; 0: none
    uint32_t next = 0;                  // the next member or element; 0: none
    union {
      uint64_t u = 0;
      double d;
    };
  };
  class Parser;

  std::string_view view(uint32_t off, uint32_t len) const { return {strings_.data() + off, len}; }

  std::vector<Node> nodes_;
  std::string strings_;  // every decoded key and string, back to back
};

}  // namespace ec::store
