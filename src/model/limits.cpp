// Bounded whole-file reads for the model's JSON files.
#include "model/limits.h"

#include <cstdio>
#include <memory>

#include "core/error.h"
#include "core/file_io.h"

namespace ec::model {

std::string read_file_within(const std::filesystem::path& path, uint64_t limit,
                             std::string_view what) {
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(path, error);
  if (!error && size > limit) {
    fail("{}: {} bytes, more than the limit of {} bytes for a {}", path.string(), size, limit,
         what);
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return read_file(path);  // names the path and the OS reason
  std::string text;
  char buffer[1 << 16];
  size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) {
    text.append(buffer, got);
    if (text.size() > limit) {
      fail("{}: more than the limit of {} bytes for a {}", path.string(), limit, what);
    }
  }
  if (std::ferror(file.get())) fail("{}: read error", path.string());
  return text;
}

}  // namespace ec::model
