// JSON field access for tokenizer.json with errors that name the file and the JSON path.
#include "tokenizer/json_where.h"

#include "core/error.h"

namespace ec::tok {

JsonWhere JsonWhere::operator/(std::string_view key) const {
  return JsonWhere(file_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

JsonWhere JsonWhere::operator[](std::size_t index) const {
  return JsonWhere(file_, fmt::format("{}[{}]", path_, index));
}

void JsonWhere::fail(std::string_view what) const {
  ec::fail("{}: {}: {}", file_, path_.empty() ? std::string("(top level)") : path_, what);
}

const nlohmann::json& JsonWhere::member(const nlohmann::json& object, std::string_view key) const {
  if (!object.is_object()) fail("expected a JSON object");
  const auto it = object.find(key);
  if (it == object.end()) (*this / key).fail("missing field");
  return *it;
}

std::string JsonWhere::string_member(const nlohmann::json& object, std::string_view key) const {
  const auto& value = member(object, key);
  if (!value.is_string()) (*this / key).fail("expected a string");
  return value.get<std::string>();
}

bool JsonWhere::bool_member(const nlohmann::json& object, std::string_view key,
                            bool fallback) const {
  if (!object.is_object()) fail("expected a JSON object");
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) (*this / key).fail("expected true or false");
  return it->get<bool>();
}

std::string JsonWhere::type_of(const nlohmann::json& component) const {
  return string_member(component, "type");
}

void JsonWhere::unsupported(std::string_view kind, std::string_view type) const {
  fail(fmt::format("unsupported {} type '{}'", kind, type));
}

}  // namespace ec::tok
