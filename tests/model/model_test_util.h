// Helpers shared by the model tests: capturing error messages, raw file writes, random tensors.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "model/weights.h"

namespace ec::model::test {

// The message of the ec::Error that `f` throws; a test failure (and "") when it does not throw.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ec::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ec::Error";
  return "";
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A safetensors file from a literal header (length prefix computed, no padding) and data bytes.
inline std::string raw_safetensors(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

// A heap tensor of random non-zero values (N(0,1) rounded to the dtype), seeded.
inline Tensor random_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape,
                            uint32_t seed) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  const int64_t n = t.numel();
  t.nbytes = static_cast<size_t>(n) * dtype_size(dtype);
  auto buf = std::shared_ptr<std::byte[]>(new std::byte[t.nbytes]);
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    float v = dist(rng);
    if (v == 0.0f) v = 0.5f;
    std::byte* p = buf.get() + static_cast<size_t>(i) * dtype_size(dtype);
    if (dtype == DType::f32) {
      std::memcpy(p, &v, 4);
    } else if (dtype == DType::f16 || dtype == DType::bf16) {
      uint16_t h = dtype == DType::f16 ? float_to_half(v) : float_to_bf16(v);
      std::memcpy(p, &h, 2);
    } else {
      for (size_t b = 0; b < dtype_size(dtype); ++b) {
        p[b] = static_cast<std::byte>(rng() & 0xff);
      }
    }
  }
  t.data = buf.get();
  t.owner = std::shared_ptr<const void>(buf, buf.get());
  return t;
}

inline bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.nbytes == b.nbytes && std::memcmp(a.data, b.data, a.nbytes) == 0;
}

}  // namespace ec::model::test
