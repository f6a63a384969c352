// NF4 blockwise quantization and dequantization (bnb layout, block 64, high nibble first).
#include "quant/nf4.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "quant/format.h"

namespace ec::quant {

int64_t Nf4Tensor::storage_bytes() const {
  return static_cast<int64_t>(packed.size()) + 4 * static_cast<int64_t>(absmax.size());
}

double Nf4Tensor::bits_per_weight() const {
  return numel() == 0 ? 0.0
                      : 8.0 * static_cast<double>(storage_bytes()) / static_cast<double>(numel());
}

void quantize_nf4_blocks(std::span<const float> w, std::vector<uint8_t>& packed,
                         std::vector<float>& absmax) {
  const auto n = static_cast<int64_t>(w.size());
  const int64_t blocks = (n + kNf4BlockSize - 1) / kNf4BlockSize;
  packed.assign(static_cast<size_t>((n + 1) / 2), 0);
  absmax.assign(static_cast<size_t>(blocks), 0.0f);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = b * kNf4BlockSize;
    const int64_t end = std::min(n, begin + kNf4BlockSize);
    float m = 0.0f;
    for (int64_t i = begin; i < end; ++i) m = std::max(m, std::fabs(w[i]));
    absmax[b] = m;
    // bnb multiplies by the fp32 reciprocal (smem_absmax_value = 1.0f / local_abs_max) rather than
    // dividing; that rounding decides codes next to a threshold, so we do the same. A subnormal
    // absmax whose reciprocal overflows is divided instead (bnb would produce NaN codes there).
    const float inv = m > 0.0f ? 1.0f / m : 0.0f;
    const bool inv_finite = std::isfinite(inv);
    for (int64_t i = begin; i < end; ++i) {
      uint8_t q = 7;  // exact 0.0: all-zero blocks (bnb: 0 · inf = NaN → index 0, also 0 after ×0)
      if (m > 0.0f) q = nf4_quantize_value(inv_finite ? w[i] * inv : w[i] / m);
      uint8_t& byte = packed[static_cast<size_t>(i / 2)];
      byte = (i % 2 == 0) ? static_cast<uint8_t>(byte | (q << 4)) : static_cast<uint8_t>(byte | q);
    }
  }
  if (n % 2 == 1) packed.back() = static_cast<uint8_t>(packed.back() | kNf4PadCode);
}

Nf4Tensor quantize_nf4(std::span<const float> w, int64_t rows, int64_t cols,
                       std::string_view name) {
  EC_CHECK(shape_has_count(rows, cols, w.size()), "tensor '{}': {} values given for shape [{}, {}]",
           name, w.size(), rows, cols);
  require_finite(w, cols, name);
  Nf4Tensor t;
  t.name = std::string(name);
  t.rows = rows;
  t.cols = cols;
  quantize_nf4_blocks(w, t.packed, t.absmax);
  return t;
}

std::vector<float> dequantize_nf4(const Nf4Tensor& tensor) {
  std::vector<float> out(static_cast<size_t>(tensor.numel()));
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    out[i] = kNf4Code[tensor.code_at(i)] * tensor.absmax[i / kNf4BlockSize];
  }
  return out;
}

}  // namespace ec::quant
