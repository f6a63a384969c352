// Fuzz entry point for the quantizers on arbitrary float arrays: int8 row-wise (int8-llm,
// int8-wo), nf4, nf4-dq and the LLM.int8() activation side and reference matmul.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "fuzz_support.h"
#include "quant/format.h"
#include "quant/int8_llm.h"
#include "quant/int8_rowwise.h"
#include "quant/nf4.h"
#include "quant/nf4_dq.h"

namespace ec::quant::fuzz_detail {

inline bool all_finite(std::span<const float> v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

// Each dequantized value is finite and no larger than the absmax it was scaled by.
inline void check_bounded(std::span<const float> w, std::span<const float> back,
                          std::span<const float> absmax, int64_t group, const char* what) {
  using ec::fuzz::expect;
  expect(back.size() == w.size(), std::string(what) + ": dequantized size differs");
  for (size_t i = 0; i < w.size(); ++i) {
    const float a = absmax[i / static_cast<size_t>(group)];
    expect(std::isfinite(back[i]), std::string(what) + ": non-finite dequantized value");
    expect(std::fabs(back[i]) <= a * 1.000001f, std::string(what) + ": |value| above its absmax");
    expect(std::fabs(w[i]) <= a, std::string(what) + ": absmax below an element");
  }
}

}  // namespace ec::quant::fuzz_detail

namespace ec::fuzz {

// Byte 0: the quantizer (low 3 bits) and whether bytes 1..16 are a raw [rows, cols] pair (bit 7)
// instead of a column count (bytes 1..2) that divides the floats into rows. The rest: floats.
// Non-finite input must be an ec::Error; finite input of a consistent shape must quantize, and
// dequantize to finite values bounded by the scale of its row or block.
inline void quant_one_input(std::span<const uint8_t> bytes) {
  using namespace ec::quant;
  if (bytes.size() < 3) return;
  const uint8_t mode = bytes[0];
  const bool raw_shape = (mode & 0x80) != 0;
  const size_t header = raw_shape ? 17 : 3;
  if (bytes.size() < header) return;
  std::vector<float> values((bytes.size() - header) / 4);
  if (!values.empty()) std::memcpy(values.data(), bytes.data() + header, values.size() * 4);
  int64_t rows = 0;
  int64_t cols = 0;
  if (raw_shape) {
    std::memcpy(&rows, bytes.data() + 1, 8);
    std::memcpy(&cols, bytes.data() + 9, 8);
  } else {
    const auto n = static_cast<int64_t>(values.size());
    cols = 1 + (bytes[1] | (bytes[2] << 8)) % std::max<int64_t>(n, 1);
    rows = n / cols;
    values.resize(static_cast<size_t>(rows * cols));
  }
  const bool consistent = rows >= 0 && cols >= 0 && rows <= kMaxQuantizedDim &&
                          cols <= kMaxQuantizedDim &&
                          rows * cols == static_cast<int64_t>(values.size());
  const bool finite = fuzz_detail::all_finite(values);
  const std::span<const float> w(values);
  const int which = mode & 7;
  // The documented refusals besides NaN/Inf and shape: LLM.int8() activations beyond fp16 (they
  // round to Inf from 65520 up) or wider than its int32 sums hold, and magnitudes beyond
  // kMaxQuantizableMagnitude.
  const auto any_above = [&values](float limit) {
    return std::any_of(values.begin(), values.end(),
                       [limit](float x) { return std::fabs(x) >= limit; });
  };
  const bool fp16_overflow = which >= 4 && any_above(65520.0f);
  // LLM.int8() sums int8 products in int32: at most kLlmInt8MaxFeatures input features.
  const bool int32_too_narrow = which >= 4 && cols > kLlmInt8MaxFeatures;
  const bool too_large = any_above(std::nextafter(kMaxQuantizableMagnitude, INFINITY));
  try {
    switch (which) {
      case 0:
      case 1: {
        const Format f = which == 0 ? Format::int8_llm : Format::int8_wo;
        const Int8RowwiseTensor t = quantize_int8_rowwise(w, rows, cols, "fuzz", f);
        fuzz_detail::check_bounded(w, dequantize_int8_rowwise(t), t.scales,
                                   std::max<int64_t>(cols, 1), "int8");
        break;
      }
      case 2: {
        const Nf4Tensor t = quantize_nf4(w, rows, cols, "fuzz");
        fuzz_detail::check_bounded(w, dequantize_nf4(t), t.absmax, kNf4BlockSize, "nf4");
        break;
      }
      case 3: {
        const Nf4DqTensor t = quantize_nf4_dq(w, rows, cols, "fuzz");
        const std::vector<float> back = dequantize_nf4_dq(t);
        expect(back.size() == values.size(), "nf4-dq: dequantized size differs");
        expect(fuzz_detail::all_finite(back), "nf4-dq: non-finite dequantized value");
        break;
      }
      default: {
        // The activations are the input; the weights are the same values, one output row per
        // activation row, so both sides of the matmul see the fuzzed numbers.
        const float threshold = which == 4 ? kLlmInt8Threshold : 0.0f;
        const Int8Activations a = quantize_activations_llm_int8(w, rows, cols, threshold, "fuzz");
        expect(a.row_absmax.size() == static_cast<size_t>(rows), "llm.int8: absmax per row");
        if (rows > 0 && cols > 0 && rows * rows <= 1 << 16) {
          const Int8RowwiseTensor wt = quantize_int8_rowwise(w, rows, cols, "fuzz-w");
          const std::vector<float> y = int8_llm_matmul_reference(w, rows, wt, {}, threshold);
          expect(y.size() == static_cast<size_t>(rows * rows), "llm.int8: output size");
        }
        break;
      }
    }
  } catch (const ec::Error&) {
    // Refusing is right for non-finite values, an inconsistent shape, and the documented limits;
    // anything else must have succeeded.
    expect(!finite || !consistent || fp16_overflow || too_large || int32_too_narrow,
           "finite input of a valid shape refused");
    return;
  }
  expect(finite, "non-finite input accepted");
  expect(consistent, "inconsistent shape accepted");
  expect(!too_large, "accepted a value above kMaxQuantizableMagnitude");
  expect(!int32_too_narrow, "LLM.int8() accepted more input features than int32 sums hold");
}

}  // namespace ec::fuzz
