// tokenizer.json "pre_tokenizer": Split (regex or literal), ByteLevel, Metaspace, Sequence.
#pragma once

#include "tokenizer/json_where.h"
#include "tokenizer/regex.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ec::tok {

// A span of normalized text on its way to the model. `at_origin`: it starts at offset 0 of the
// input (Metaspace's prepend_scheme "first" prepends only there).
struct Piece {
  std::string text;
  bool at_origin = false;
};

class PreTokenizer {
 public:
  // `component` may be null (the whole span is one word). Unknown types fail naming the JSON path.
  static PreTokenizer from_json(const nlohmann::json& component, const JsonWhere& where);

  // Splits `pieces` in place, in the order the steps are listed; empty pieces are dropped.
  void apply(std::vector<Piece>& pieces) const;

  bool uses_byte_level() const;
  bool uses_metaspace() const;

 private:
  enum class Kind { split, byte_level, metaspace };
  enum class Behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };
  enum class Prepend { always, first, never };
  struct Step {
    Kind kind;
    std::shared_ptr<const Regex> regex;  // split (regex pattern), byte_level with use_regex
    std::string literal;                 // split (string pattern)
    Behavior behavior = Behavior::isolated;
    bool invert = false;
    bool add_prefix_space = false;  // byte_level
    std::string replacement;        // metaspace
    Prepend prepend = Prepend::always;
    bool split_on_replacement = true;
  };
  static void add(const nlohmann::json& component, const JsonWhere& where, std::vector<Step>& out);
  static void split(const Piece& piece,
                    const std::vector<std::pair<std::size_t, std::size_t>>& hits, Behavior behavior,
                    bool invert, std::vector<Piece>& out);
  void apply_step(const Step& step, std::vector<Piece>& pieces) const;

  std::vector<Step> steps_;
};

}  // namespace ec::tok
