// An exclusive lock on a sweep directory, so two sweeps never drive the same manifest. The kernel
// drops it when the holder dies, even by kill -9.
#pragma once

#include <filesystem>

namespace ec::sweep {

class DirLock {
 public:
  // Creates DIR (and parents) when needed and locks DIR/.sweep.lock without waiting. Throws
  // ec::Error naming the directory when it cannot be created or written, or is already locked.
  explicit DirLock(const std::filesystem::path& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace ec::sweep
