// Size limits on the model files ecocompute reads (docs/limits.md lists every limit), and a whole-
// file read that refuses a file above its limit before allocating for it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace ec::model {

// A Hugging Face config.json is 1–5 KB; 4 MiB leaves room for any real one.
inline constexpr uint64_t kMaxConfigJsonBytes = uint64_t{4} << 20;
// model.safetensors.index.json: ~100 bytes per tensor name; 64 MiB is ~600,000 tensors.
inline constexpr uint64_t kMaxIndexJsonBytes = uint64_t{64} << 20;

// Reads `path` whole; a file of more than `limit` bytes is an ec::Error naming the file, its size,
// the limit and `what` ("config.json"), raised before the read (from the size on disk) or, for a
// file whose size is unknown up front (a pipe), as soon as the read passes the limit.
std::string read_file_within(const std::filesystem::path& path, uint64_t limit,
                             std::string_view what);

}  // namespace ec::model
