// The load-time check that a checkpoint's weights are finite, for every precision and backend.
#pragma once

#include <string_view>

#include "model/weights.h"

namespace ec::model {

// Throws ec::Error naming `file`, the tensor, the element (row, column) and NaN/+Inf/-Inf when
// an F32, F16 or BF16 tensor holds a non-finite value: such a model computes nothing meaningful,
// and FP16 would carry it silently where INT8 and NF4 refuse it at quantization.
void require_finite_weights(const Tensor& tensor, std::string_view file);

}  // namespace ec::model
