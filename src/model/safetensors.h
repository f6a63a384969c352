// The safetensors format: a validating zero-copy reader over an mmap, and a streaming atomic
// writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/mapped_file.h"
#include "model/weights.h"

namespace ec::model {

// Largest JSON header we accept. Real headers are a few hundred bytes per tensor (a 7B model with
// ~340 tensors is ~40 KB); 100 MB leaves room for anything legitimate and stops a corrupt length
// from making us parse gigabytes.
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100ull * 1024 * 1024;
// Most tensors one file may hold. A dense 70B model has ~720, a 256-expert MoE ~47,000 in all its
// shards together; the limit stops a header of a million tiny entries from costing a million
// allocations.
inline constexpr size_t kMaxSafetensorsTensors = size_t{1} << 18;  // 262,144

struct SafetensorsFile {
  std::filesystem::path path;
  std::shared_ptr<const MappedFile> mapping;
  std::map<std::string, std::string> metadata;  // the optional "__metadata__" string map
  // Ordered by data offset; each holds `mapping` as owner. The format does not align tensors to
  // their element size (only the data section start, to 8 bytes, in files we write), so a tensor
  // after an odd-sized one may be unaligned: read through memcpy or copy before vector loads.
  std::vector<Tensor> tensors;
  bool has_gaps = false;  // unused bytes between tensors: legal, but unusual for writers we know

  const Tensor* find(std::string_view name) const;  // nullptr when absent
};

// Maps and validates the file: header length, JSON, dtype, shape, offsets within the data section,
// size = numel × dtype size, no overlaps, no duplicate names. Any violation → ec::Error naming the
// file and the tensor.
SafetensorsFile read_safetensors(const std::filesystem::path& path);

// Writes tensors in the given order (names must be unique) with a header padded by spaces to a
// multiple of 8 bytes, streamed to a temp file in the same directory, fsync'd, then renamed.
void write_safetensors(const std::filesystem::path& path, const std::vector<Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace ec::model
