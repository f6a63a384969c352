// flock(2) on DIR/.sweep.lock.
#include "sweep/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace ec::sweep {

DirLock::DirLock(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail("{}: cannot create the sweep directory: {}", dir.string(), ec.message());
  const auto path = dir / ".sweep.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    fail("{}: cannot write in the sweep directory: {}", dir.string(), std::strerror(errno));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      fail("{}: another sweep is running in this directory (it holds {})", dir.string(),
           path.string());
    }
    fail("{}: cannot lock: {}", path.string(), std::strerror(err));
  }
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace ec::sweep
