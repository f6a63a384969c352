// Tensor dtype conversions done once at engine load (BF16 checkpoint → FP16 format, ...), and
// FP32 copies of small tensors (norm weights, biases).
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "model/weights.h"

namespace ec::engine::cpu {

// The tensor in `dtype` (f32, f16 or bf16): the same view when it already is and is aligned for
// its element type, else a converted copy that owns its bytes. Values round to nearest even.
model::Tensor convert_tensor(const model::Tensor& tensor, DType dtype);

// Every element as float; ec::Error naming the tensor when it is not f32/f16/bf16.
std::vector<float> tensor_to_f32(const model::Tensor& tensor);

// Checks shape == expected, else ec::Error naming the tensor and both shapes.
void check_shape(const model::Tensor& tensor, const std::vector<int64_t>& expected);

// Element count from the shape (1 for a scalar); independent of model::Tensor::numel.
int64_t element_count(const model::Tensor& tensor);

}  // namespace ec::engine::cpu
