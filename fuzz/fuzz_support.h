// What every fuzz entry point shares: the bug signal (a property violated), and in-memory files
// for parsers that only take a path.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ec::fuzz {

// Thrown when a parser accepted or produced something it must not. Entry points let it (and any
// exception other than ec::Error) escape: libFuzzer reports it as a crash, the regression test as a
// failure. ec::Error is the one expected outcome of hostile input, and entry points swallow it.
class PropertyViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

inline void expect(bool condition, const std::string& what) {
  if (!condition) throw PropertyViolation(what);
}

// The input as a file without touching the disk: a memfd, reachable as /proc/self/fd/N by every
// function that opens a path (open, fopen, ifstream, mmap all work on it).
class MemFile {
 public:
  explicit MemFile(std::span<const uint8_t> bytes) {
    fd_ = ::memfd_create("ec-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("memfd_create failed");
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) {
        ::close(fd_);
        throw std::runtime_error("write to memfd failed");
      }
      done += static_cast<std::size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  int fd_ = -1;
  std::filesystem::path path_;
};

inline std::string_view as_text(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The project's source tree, for fixtures: compiled in by fuzz/CMakeLists.txt and by the tests.
inline std::filesystem::path source_dir() {
  return EC_SOURCE_DIR;
}

}  // namespace ec::fuzz
