// Row-wise absmax int8 quantization of weights (bnb's int8_vectorwise_quant with threshold 0).
#include "quant/int8_rowwise.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace ec::quant {

double Int8RowwiseTensor::bits_per_weight() const {
  return numel() == 0 ? 0.0
                      : 8.0 * static_cast<double>(storage_bytes()) / static_cast<double>(numel());
}

void quantize_int8_row(const float* x, int64_t n, float absmax, int8_t* out) {
  // bnb (csrc/.../int8.cu, kInt8VectorQuant): scale = 127 / absmax once per row, then
  // __float2int_rn(x * scale), i.e. round half to EVEN (not half away from zero); nearbyint in the
  // default rounding mode does the same. bnb divides with __fdividef (within 2 ulp of 127/absmax).
  // When 127/absmax overflows (absmax below ~3.7e-37), x/absmax·127 keeps the codes finite.
  const float scale = 127.0f / absmax;
  const bool scale_finite = std::isfinite(scale);
  for (int64_t i = 0; i < n; ++i) {
    const float scaled = scale_finite ? x[i] * scale : x[i] / absmax * 127.0f;
    const float q = std::clamp(std::nearbyint(scaled), -127.0f, 127.0f);
    out[i] = static_cast<int8_t>(q);
  }
}

Int8RowwiseTensor quantize_int8_rowwise(std::span<const float> w, int64_t rows, int64_t cols,
                                        std::string_view name, Format format) {
  EC_CHECK(format == Format::int8_llm || format == Format::int8_wo,
           "tensor '{}': int8 row-wise layout requested for format {}", name, format_name(format));
  EC_CHECK(shape_has_count(rows, cols, w.size()), "tensor '{}': {} values given for shape [{}, {}]",
           name, w.size(), rows, cols);
  require_finite(w, cols, name);

  Int8RowwiseTensor t;
  t.format = format;
  t.name = std::string(name);
  t.rows = rows;
  t.cols = cols;
  t.codes.assign(static_cast<size_t>(rows * cols), 0);
  t.scales.assign(static_cast<size_t>(rows), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = w.data() + r * cols;
    float absmax = 0.0f;
    for (int64_t c = 0; c < cols; ++c) absmax = std::max(absmax, std::fabs(row[c]));
    t.scales[r] = absmax;
    // All-zero row: bnb computes 0 · (127/0) = NaN and __float2int_rn(NaN) = 0; we skip the
    // division and leave the zero codes, which dequantize to exactly 0 as well.
    if (absmax > 0.0f) quantize_int8_row(row, cols, absmax, t.codes.data() + r * cols);
  }
  return t;
}

std::vector<float> dequantize_int8_rowwise(const Int8RowwiseTensor& tensor) {
  std::vector<float> out(static_cast<size_t>(tensor.numel()));
  for (int64_t r = 0; r < tensor.rows; ++r) {
    for (int64_t c = 0; c < tensor.cols; ++c) {
      const int64_t i = r * tensor.cols + c;
      out[i] = int8_dequant_value(tensor.codes[i], tensor.scales[r]);
    }
  }
  return out;
}

}  // namespace ec::quant
