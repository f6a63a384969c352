// Fuzz entry point for the safetensors reader: the input is a whole .safetensors file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "fuzz_support.h"
#include "model/safetensors.h"

namespace ec::fuzz {

// A file the reader accepts must describe only bytes inside its data section, each tensor's size
// must match its shape, names are unique and non-empty tensors never overlap.
inline void safetensors_one_input(std::span<const uint8_t> bytes) {
  const MemFile file(bytes);
  model::SafetensorsFile st;
  try {
    st = model::read_safetensors(file.path());
  } catch (const ec::Error&) {
    return;
  }
  const auto mapped = st.mapping->bytes();
  expect(mapped.size() == bytes.size(), "mapping size differs from the file size");
  expect(mapped.size() >= 8, "accepted a file shorter than the length field");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[static_cast<size_t>(i)];
  expect(header_len <= model::kMaxSafetensorsHeaderBytes, "accepted a header above the limit");
  const std::byte* data_begin = mapped.data() + 8 + header_len;
  const std::byte* data_end = mapped.data() + mapped.size();

  std::set<std::string> names;
  std::vector<std::pair<const std::byte*, const std::byte*>> ranges;
  volatile uint8_t sink = 0;
  for (const model::Tensor& t : st.tensors) {
    expect(names.insert(t.name).second, "duplicate tensor name '" + t.name + "'");
    expect(t.name != "__metadata__", "__metadata__ read as a tensor");
    expect(t.numel() >= 0, "negative element count for '" + t.name + "'");
    expect(static_cast<uint64_t>(t.numel()) * dtype_size(t.dtype) == t.nbytes,
           "size of '" + t.name + "' does not match its shape");
    expect(t.data >= data_begin && t.data <= data_end &&
               t.nbytes <= static_cast<size_t>(data_end - t.data),
           "tensor '" + t.name + "' points outside the data section");
    if (t.nbytes == 0) continue;
    ranges.emplace_back(t.data, t.data + t.nbytes);
    sink = sink ^ static_cast<uint8_t>(t.data[0]) ^ static_cast<uint8_t>(t.data[t.nbytes - 1]);
    if (t.dtype == DType::f32 || t.dtype == DType::f16 || t.dtype == DType::bf16) {
      (void)t.at(0);
      (void)t.at(t.numel() - 1);
    }
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    expect(ranges[i].first >= ranges[i - 1].second, "two accepted tensors overlap");
  }
  expect(st.find("") == nullptr || names.contains(""), "find() invents a tensor");
}

}  // namespace ec::fuzz
