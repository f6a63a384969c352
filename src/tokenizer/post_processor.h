// tokenizer.json "post_processor": TemplateProcessing (single sequences), ByteLevel, Sequence.
#pragma once

#include "tokenizer/json_where.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace ec::tok {

class PostProcessor {
 public:
  // `component` may be null. Types other than the three above fail naming the JSON path.
  static PostProcessor from_json(const nlohmann::json& component, const JsonWhere& where);

  // Wraps `ids` in the template's special tokens (only called with add_special_tokens).
  void apply(std::vector<int32_t>& ids) const;
  // Special tokens the single-sequence template puts before / after the text.
  const std::vector<int32_t>& prefix() const { return prefix_; }
  const std::vector<int32_t>& suffix() const { return suffix_; }

 private:
  static void add(const nlohmann::json& component, const JsonWhere& where, PostProcessor& out);

  std::vector<int32_t> prefix_;
  std::vector<int32_t> suffix_;
};

}  // namespace ec::tok
