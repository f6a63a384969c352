// Reading whole files with errors that name them, and atomic writes (temp file + fsync + rename).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ec {

// Reads the whole file; throws ec::Error naming the path and the OS reason when it cannot.
std::string read_file(const std::filesystem::path& path);

// Like read_file, but refuses (before reading anything) a regular file larger than `max_bytes`,
// naming the path, its size, the limit and `what` the file was meant to be.
std::string read_file_at_most(const std::filesystem::path& path, std::size_t max_bytes,
                              std::string_view what);

// Writes `content` so that readers see either the old file or the complete new one, never a part:
// a temp file in the same directory, flushed to disk, then renamed over the target.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace ec
