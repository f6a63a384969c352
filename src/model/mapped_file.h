// A read-only memory mapping of a whole file (RAII); shared so tensors viewing it keep it alive.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

namespace ec::model {

class MappedFile {
 public:
  // Maps `path` read-only; throws ec::Error naming the path and the OS reason. Empty files map to
  // an empty span (mmap refuses length 0).
  static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  MappedFile(std::filesystem::path path, const std::byte* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ec::model
