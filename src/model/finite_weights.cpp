// require_finite_weights: a scan of the exponent bits (all ones is Inf or NaN in every float type).
#include "model/finite_weights.h"

#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace ec::model {
namespace {

template <class Bits>
int64_t first_non_finite(const std::byte* data, int64_t count, Bits exponent_mask) {
  for (int64_t i = 0; i < count; ++i) {
    Bits v;
    std::memcpy(&v, data + i * static_cast<int64_t>(sizeof(Bits)), sizeof(Bits));
    if ((v & exponent_mask) == exponent_mask) return i;
  }
  return -1;
}

}  // namespace

void require_finite_weights(const Tensor& tensor, std::string_view file) {
  const int64_t n = tensor.numel();
  int64_t bad = -1;
  switch (tensor.dtype) {
    case DType::f32:
      bad = first_non_finite<uint32_t>(tensor.data, n, 0x7F800000u);
      break;
    case DType::f16:
      bad = first_non_finite<uint16_t>(tensor.data, n, uint16_t{0x7C00});
      break;
    case DType::bf16:
      bad = first_non_finite<uint16_t>(tensor.data, n, uint16_t{0x7F80});
      break;
    default:
      return;
  }
  if (bad < 0) return;
  const float v = tensor.at(bad);
  const char* what = v != v ? "NaN" : (v > 0 ? "+Inf" : "-Inf");
  const int64_t cols = tensor.cols();
  fail("{}: tensor '{}': element {} (row {}, column {}) is {}; model weights must be finite", file,
       tensor.name, bad, cols > 0 ? bad / cols : 0, cols > 0 ? bad % cols : 0, what);
}

}  // namespace ec::model
