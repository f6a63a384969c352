// A streaming atomic file writer for outputs too large to build in memory (model files of GBs):
// temp file in the target's directory, write in pieces, fsync, rename. Belongs in core next to
// write_file_atomic; kept here because only the model writers use it so far.
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

namespace ec::model {

class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path target);
  // Not committed → the temp file is removed; the target is untouched.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::span<const std::byte> bytes);
  void write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }
  // fsync, close, rename over the target, fsync the directory.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
};

}  // namespace ec::model
