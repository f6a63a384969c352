// Post-processors: the special tokens tokenizers adds around one encoded sequence.
#include "tokenizer/post_processor.h"

#include "core/error.h"

#include <nlohmann/json.hpp>

namespace ec::tok {

void PostProcessor::add(const nlohmann::json& component, const JsonWhere& where,
                        PostProcessor& out) {
  const std::string type = where.type_of(component);
  if (type == "ByteLevel") return;  // trims offsets only; ids are unchanged
  if (type == "Sequence") {
    const JsonWhere list = where / "processors";
    const auto& items = where.member(component, "processors");
    if (!items.is_array()) list.fail("expected an array");
    for (std::size_t i = 0; i < items.size(); ++i) add(items[i], list[i], out);
    return;
  }
  if (type != "TemplateProcessing") where.unsupported("post_processor", type);
  if (!out.prefix_.empty() || !out.suffix_.empty()) where.fail("more than one template");

  const JsonWhere specials_where = where / "special_tokens";
  const auto& specials = where.member(component, "special_tokens");
  const JsonWhere single_where = where / "single";
  const auto& single = where.member(component, "single");
  if (!single.is_array()) single_where.fail("expected an array");
  bool seen_sequence = false;
  for (std::size_t i = 0; i < single.size(); ++i) {
    const JsonWhere item_where = single_where[i];
    const auto& item = single[i];
    if (item.is_object() && item.contains("Sequence")) {
      if (seen_sequence) item_where.fail("the single template names the sequence twice");
      seen_sequence = true;
      continue;
    }
    if (!item.is_object() || !item.contains("SpecialToken")) {
      item_where.fail("expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
    }
    const std::string name = item_where.string_member(item["SpecialToken"], "id");
    const auto& special = specials_where.member(specials, name);
    const JsonWhere ids_where = specials_where / name / "ids";
    const auto& ids = (specials_where / name).member(special, "ids");
    if (!ids.is_array()) ids_where.fail("expected an array of ids");
    for (const auto& id : ids) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
        ids_where.fail("expected non-negative integer ids");
      }
      (seen_sequence ? out.suffix_ : out.prefix_)
          .push_back(static_cast<int32_t>(id.get<int64_t>()));
    }
  }
  if (!seen_sequence) single_where.fail("the single template has no {\"Sequence\": ...}");
}

PostProcessor PostProcessor::from_json(const nlohmann::json& component, const JsonWhere& where) {
  PostProcessor processor;
  if (!component.is_null()) add(component, where, processor);
  return processor;
}

void PostProcessor::apply(std::vector<int32_t>& ids) const {
  ids.insert(ids.begin(), prefix_.begin(), prefix_.end());
  ids.insert(ids.end(), suffix_.begin(), suffix_.end());
}

}  // namespace ec::tok
