// tokenizer.json "decoder": ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence.
#pragma once

#include "tokenizer/json_where.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace ec::tok {

class Decoder {
 public:
  // `component` may be null: tokens are then joined with spaces, as tokenizers does.
  static Decoder from_json(const nlohmann::json& component, const JsonWhere& where);

  std::string decode(std::vector<std::string> tokens) const;

 private:
  enum class Kind { byte_level, replace, byte_fallback, fuse, strip, metaspace };
  struct Step {
    Kind kind;
    std::string pattern;  // replace: literal; strip: the character; metaspace: the replacement
    std::string content;  // replace
    std::size_t start = 0;
    std::size_t stop = 0;
    bool strip_first = true;  // metaspace: prepend_scheme != never
  };
  static void add(const nlohmann::json& component, const JsonWhere& where, std::vector<Step>& out);
  static std::vector<std::string> apply(const Step& step, std::vector<std::string> tokens);

  bool present_ = false;
  std::vector<Step> steps_;
};

}  // namespace ec::tok
