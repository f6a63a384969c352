// Double quantization of NF4 block absmax (bnb compress_statistics) and nf4-dq dequantization.
#include "quant/nf4_dq.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "quant/format.h"

namespace ec::quant {

int64_t Nf4DqTensor::storage_bytes() const {
  return static_cast<int64_t>(packed.size()) + static_cast<int64_t>(absmax_codes.size()) +
         4 * static_cast<int64_t>(absmax_scales.size()) + 4;
}

double Nf4DqTensor::bits_per_weight() const {
  return numel() == 0 ? 0.0
                      : 8.0 * static_cast<double>(storage_bytes()) / static_cast<double>(numel());
}

DoubleQuantizedAbsmax double_quantize_absmax(std::span<const float> absmax) {
  DoubleQuantizedAbsmax dq;
  const auto n = static_cast<int64_t>(absmax.size());
  if (n == 0) return dq;
  // torch's absmax.mean() reduces in float32 with its own summation order; a double sum rounded
  // once is within an ulp of it and independent of any order.
  double sum = 0.0;
  for (float a : absmax) sum += a;
  dq.offset = static_cast<float>(sum / static_cast<double>(n));

  const DynamicMap& map = signed_dynamic_map();
  const int64_t blocks = (n + kNf4DqBlockSize - 1) / kNf4DqBlockSize;
  dq.codes.assign(static_cast<size_t>(n), 127);
  dq.scales.assign(static_cast<size_t>(blocks), 0.0f);
  std::vector<float> centered(static_cast<size_t>(kNf4DqBlockSize));
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = b * kNf4DqBlockSize;
    const int64_t end = std::min(n, begin + kNf4DqBlockSize);
    float m = 0.0f;
    for (int64_t i = begin; i < end; ++i) {
      centered[i - begin] = absmax[i] - dq.offset;  // bnb: absmax -= offset, in float32
      m = std::max(m, std::fabs(centered[i - begin]));
    }
    dq.scales[b] = m;
    if (m == 0.0f) continue;     // all equal to the offset: code 127 (0.0) decodes to the offset
    const float inv = 1.0f / m;  // bnb kQuantizeBlockwise: multiply by the fp32 reciprocal
    const bool inv_finite = std::isfinite(inv);
    for (int64_t i = begin; i < end; ++i) {
      const float v = centered[i - begin];
      dq.codes[i] = dynamic_quantize_value(map, inv_finite ? v * inv : v / m);
    }
  }
  return dq;
}

std::vector<float> dequantize_absmax(const DoubleQuantizedAbsmax& dq) {
  const DynamicMap& map = signed_dynamic_map();
  std::vector<float> out(dq.codes.size());
  for (size_t i = 0; i < dq.codes.size(); ++i) {
    out[i] = map[dq.codes[i]] * dq.scales[i / kNf4DqBlockSize] + dq.offset;
  }
  return out;
}

Nf4DqTensor quantize_nf4_dq(std::span<const float> w, int64_t rows, int64_t cols,
                            std::string_view name) {
  EC_CHECK(shape_has_count(rows, cols, w.size()), "tensor '{}': {} values given for shape [{}, {}]",
           name, w.size(), rows, cols);
  require_finite(w, cols, name);
  Nf4DqTensor t;
  t.name = std::string(name);
  t.rows = rows;
  t.cols = cols;
  std::vector<float> absmax;
  quantize_nf4_blocks(w, t.packed, absmax);
  DoubleQuantizedAbsmax dq = double_quantize_absmax(absmax);
  t.absmax_codes = std::move(dq.codes);
  t.absmax_scales = std::move(dq.scales);
  t.absmax_offset = dq.offset;
  return t;
}

std::vector<float> dequantize_nf4_dq(const Nf4DqTensor& tensor) {
  std::vector<float> block_absmax(static_cast<size_t>(tensor.blocks()));
  for (int64_t b = 0; b < tensor.blocks(); ++b) block_absmax[b] = tensor.block_absmax(b);
  std::vector<float> out(static_cast<size_t>(tensor.numel()));
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    out[i] = kNf4Code[tensor.code_at(i)] * block_absmax[i / kNf4BlockSize];
  }
  return out;
}

}  // namespace ec::quant
