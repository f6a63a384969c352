// Temp file + fsync + rename, streamed: readers see the old file or the complete new one.
#include "model/atomic_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "core/error.h"

namespace ec::model {

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  std::random_device rd;
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    temp_ = target_;
    temp_ += fmt::format(".tmp.{}.{:08x}", ::getpid(), rd());
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    fail("{}: cannot create temporary file {}: {}", target_.string(), temp_.string(),
         std::strerror(errno));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

void AtomicFileWriter::write(std::span<const std::byte> bytes) {
  EC_CHECK(fd_ >= 0, "{}: write after commit", target_.string());
  const std::byte* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    // Linux writes at most ~2 GiB per call; larger tensors go in pieces.
    ssize_t n = ::write(fd_, p, std::min<size_t>(left, size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("{}: write failed: {}", target_.string(), std::strerror(errno));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void AtomicFileWriter::commit() {
  EC_CHECK(fd_ >= 0, "{}: committed twice", target_.string());
  if (::fsync(fd_) != 0) fail("{}: fsync failed: {}", target_.string(), std::strerror(errno));
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp_.c_str());
    fail("{}: close failed: {}", target_.string(), std::strerror(err));
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    int err = errno;
    ::unlink(temp_.c_str());
    fail("{}: cannot rename {} over it: {}", target_.string(), temp_.string(), std::strerror(err));
  }
  // Make the rename itself durable.
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace ec::model
