// Tensor dtype conversions done once at engine load, and FP32 copies of small tensors.
#include "engine/cpu/tensor_convert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <memory>

#include "core/error.h"
#include "core/half.h"
#include "engine/cpu/half_convert.h"

namespace ec::engine::cpu {
namespace {

void check_storage(const model::Tensor& t) {
  if (t.dtype != DType::f32 && t.dtype != DType::f16 && t.dtype != DType::bf16) {
    fail("tensor {}: dtype {} is not a floating-point weight type (expected F32, F16 or BF16)",
         t.name, dtype_name(t.dtype));
  }
  const int64_t count = element_count(t);
  const size_t needed = static_cast<size_t>(count) * dtype_size(t.dtype);
  EC_CHECK(t.data != nullptr || count == 0, "tensor {}: no data", t.name);
  EC_CHECK(t.nbytes >= needed, "tensor {}: {} bytes for shape [{}] of {}, expected {}", t.name,
           t.nbytes, fmt::join(t.shape, ", "), dtype_name(t.dtype), needed);
}

// Element i as float, from possibly unaligned storage.
float load_element(const std::byte* data, DType dtype, int64_t i) {
  if (dtype == DType::f32) {
    float v;
    std::memcpy(&v, data + i * 4, 4);
    return v;
  }
  uint16_t bits;
  std::memcpy(&bits, data + i * 2, 2);
  return dtype == DType::f16 ? f16_bits_to_f32(bits) : bf16_bits_to_f32(bits);
}

}  // namespace

int64_t element_count(const model::Tensor& tensor) {
  int64_t n = 1;
  for (int64_t d : tensor.shape) n *= d;
  return n;
}

void check_shape(const model::Tensor& tensor, const std::vector<int64_t>& expected) {
  if (tensor.shape != expected) {
    fail("tensor {}: shape [{}], expected [{}]", tensor.name, fmt::join(tensor.shape, ", "),
         fmt::join(expected, ", "));
  }
}

model::Tensor convert_tensor(const model::Tensor& tensor, DType dtype) {
  check_storage(tensor);
  EC_CHECK(dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16,
           "tensor {}: cannot convert to {}", tensor.name, dtype_name(dtype));
  const auto address = reinterpret_cast<uintptr_t>(tensor.data);
  if (tensor.dtype == dtype && address % dtype_size(dtype) == 0) return tensor;

  const int64_t count = element_count(tensor);
  const size_t nbytes = static_cast<size_t>(count) * dtype_size(dtype);
  // Allocated as floats so the bytes are aligned for every element type.
  auto storage = std::make_shared<std::vector<float>>((nbytes + 3) / 4);
  auto* out = reinterpret_cast<std::byte*>(storage->data());
  for (int64_t i = 0; i < count; ++i) {
    const float v = load_element(tensor.data, tensor.dtype, i);
    if (dtype == DType::f32) {
      std::memcpy(out + i * 4, &v, 4);
    } else {
      const uint16_t bits = dtype == DType::f16 ? float_to_half(v) : float_to_bf16(v);
      std::memcpy(out + i * 2, &bits, 2);
    }
  }
  model::Tensor result;
  result.name = tensor.name;
  result.dtype = dtype;
  result.shape = tensor.shape;
  result.data = out;
  result.nbytes = nbytes;
  result.owner = storage;
  return result;
}

std::vector<float> tensor_to_f32(const model::Tensor& tensor) {
  check_storage(tensor);
  const int64_t count = element_count(tensor);
  std::vector<float> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out[i] = load_element(tensor.data, tensor.dtype, i);
  return out;
}

}  // namespace ec::engine::cpu
