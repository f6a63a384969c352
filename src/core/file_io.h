// Reading whole files with errors that name them, and atomic writes (temp file + fsync + rename).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ec {

// The path a command-line file argument names: "-" is standard input (/dev/stdin), as in most
// Unix tools; anything else is itself.
std::filesystem::path input_path(std::string_view argument);

// Reads the whole file; throws ec::Error naming the path and the OS reason when it cannot.
std::string read_file(const std::filesystem::path& path);

// Like read_file, but refuses (before reading anything) a regular file larger than `max_bytes`,
// naming the path, its size, the limit and `what` the file was meant to be.
std::string read_file_at_most(const std::filesystem::path& path, std::size_t max_bytes,
                              std::string_view what);

// Writes `content` so that readers see either the old file or the complete new one, never a part:
// a temp file in the same directory, flushed to disk, then renamed over the target.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Checks, without leaving anything behind, that write_file_atomic(path, ...) can succeed: the path
// is not a folder, its folder exists and a file can be created in it. Throws ec::Error naming the
// path, `what` it was meant to hold and the reason; run before work whose result would be lost.
void check_writable_file(const std::filesystem::path& path, std::string_view what);

}  // namespace ec
