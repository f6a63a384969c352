// Whole-file reads and crash-safe writes.
#include "core/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"

namespace ec {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open for reading: {}", path.string(), std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) fail("{}: read error: {}", path.string(), std::strerror(errno));
  return std::move(buffer).str();
}

std::string read_file_at_most(const std::filesystem::path& path, std::size_t max_bytes,
                              std::string_view what) {
  std::error_code error;
  if (std::filesystem::is_regular_file(path, error)) {
    const auto size = std::filesystem::file_size(path, error);
    if (!error && size > max_bytes) {
      fail("{}: {} bytes, more than the limit of {} bytes for {}", path.string(), size, max_bytes,
           what);
    }
  }
  return read_file(path);
}

namespace {

void write_all(int fd, std::string_view content, const std::string& tmp) {
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("{}: write failed: {}", tmp, std::strerror(saved));
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
  std::random_device rd;
  std::string tmp =
      (dir / fmt::format(".{}.tmp.{}.{:x}", path.filename().string(), ::getpid(), rd())).string();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    fail("{}: cannot create a file in {}: {}", path.string(), dir.string(), std::strerror(errno));
  write_all(fd, content, tmp);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int saved = errno;
    ::unlink(tmp.c_str());
    fail("{}: cannot flush to disk: {}", path.string(), std::strerror(saved));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(tmp.c_str());
    fail("{}: cannot rename temp file into place: {}", path.string(), std::strerror(saved));
  }
  // Make the rename itself durable.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace ec
