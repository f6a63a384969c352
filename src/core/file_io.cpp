// Whole-file reads and crash-safe writes.
#include "core/file_io.h"

#include <sys/stat.h>

#include <cstdio>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"

namespace ec {

std::filesystem::path input_path(std::string_view argument) {
  if (argument == "-") return "/dev/stdin";
  return std::filesystem::path(std::string(argument));
}

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
  // A regular file: refused from its size on disk before anything is allocated, then read in one
  // call of that size (much cheaper than a stringstream for the 100,000 small reports of an
  // ingest). Anything else (a pipe): read in blocks, refused as soon as it passes the limit.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return read_file(path);  // names the path and the OS reason
  struct stat st {};
  if (::fstat(::fileno(file.get()), &st) == 0 && S_ISREG(st.st_mode)) {
    const auto size = static_cast<std::uintmax_t>(st.st_size);
    if (size > max_bytes) {
      fail("{}: {} bytes, more than the limit of {} bytes for a {}", path.string(), size, max_bytes,
           what);
    }
    std::string text(static_cast<std::size_t>(size), '\0');
    if (std::fread(text.data(), 1, text.size(), file.get()) == text.size() &&
        std::fgetc(file.get()) == EOF) {
      return text;
    }
    std::rewind(file.get());  // it changed under us: fall through to the bounded block read
  }
  std::string text;
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) {
    text.append(buffer, got);
    if (text.size() > max_bytes) {
      fail("{}: more than the limit of {} bytes for a {}", path.string(), max_bytes, what);
    }
  }
  if (std::ferror(file.get())) fail("{}: read error", path.string());
  return text;
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

void check_writable_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    fail("{}: is a folder; expected the path of the {} to write", path.string(), what);
  }
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  if (!std::filesystem::exists(dir, ec)) {
    fail("{}: the folder {} does not exist (the {} would be lost after the work)", path.string(),
         dir.string(), what);
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    fail("{}: {} is not a folder", path.string(), dir.string());
  }
  // Creating a file is the only reliable test (permissions, read-only mounts, ACLs).
  std::random_device rd;
  const std::string probe =
      (dir / fmt::format(".{}.check.{}.{:x}", path.filename().string(), ::getpid(), rd())).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    fail("{}: cannot write the {} in {}: {}", path.string(), what, dir.string(),
         std::strerror(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace ec
