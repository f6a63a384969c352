// tokenizer.json "normalizer": Unicode normal forms, Prepend, Replace, Lowercase, Sequence.
#pragma once

#include "tokenizer/json_where.h"
#include "tokenizer/regex.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ec::tok {

class Normalizer {
 public:
  // `component` may be null (no normalizer). Unknown types fail naming file and JSON path.
  static Normalizer from_json(const nlohmann::json& component, const JsonWhere& where);

  std::string apply(std::string text) const;
  bool empty() const { return steps_.empty(); }
  // True when some step prepends or replaces with "▁" (SentencePiece style), for kind().
  bool uses_metaspace() const;

 private:
  enum class Kind { nfc, nfd, nfkc, nfkd, prepend, replace, lowercase };
  struct Step {
    Kind kind;
    std::string pattern;  // replace: the literal text (when regex is null)
    std::string content;  // prepend/replace: the text inserted
    std::shared_ptr<const Regex> regex;
  };
  static void add(const nlohmann::json& component, const JsonWhere& where, std::vector<Step>& out);

  std::vector<Step> steps_;
};

}  // namespace ec::tok
