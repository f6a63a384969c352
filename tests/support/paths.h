// Paths tests use: the source tree (fixtures) and a fresh scratch directory per test.
#pragma once

#include <filesystem>
#include <string>

namespace ec::test {

inline std::filesystem::path source_dir() {
  return EC_SOURCE_DIR;
}
inline std::filesystem::path fixture(const std::string& relative) {
  return source_dir() / "tests" / "fixtures" / relative;
}

// A new empty directory under the build tree, removed when the object dies.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace ec::test
