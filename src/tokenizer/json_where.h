// A position inside tokenizer.json (file + JSON path) so every load error names where it happened.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace ec::tok {

class JsonWhere {
 public:
  JsonWhere(std::string file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}

  JsonWhere operator/(std::string_view key) const;  // "model" / "vocab" → "model.vocab"
  JsonWhere operator[](std::size_t index) const;    // "decoders"[2] → "decoders[2]"
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

  // Throws ec::Error: "<file>: <path>: <what>".
  [[noreturn]] void fail(std::string_view what) const;

  // Field access that fails naming the field when it is absent or of the wrong type.
  const nlohmann::json& member(const nlohmann::json& object, std::string_view key) const;
  std::string string_member(const nlohmann::json& object, std::string_view key) const;
  bool bool_member(const nlohmann::json& object, std::string_view key, bool fallback) const;
  // The component's "type" string; fails when it is missing.
  std::string type_of(const nlohmann::json& component) const;
  // Fails with "unsupported <kind> type '<type>'" (the type of the component here).
  [[noreturn]] void unsupported(std::string_view kind, std::string_view type) const;

 private:
  std::string file_;
  std::string path_;
};

}  // namespace ec::tok
