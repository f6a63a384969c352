// NF4 with double quantization (nf4-dq, transformers' bnb_4bit_use_double_quant=True): the NF4
// codes of nf4, with each block absmax stored as one byte of bnb's signed dynamic map.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quant/dynamic_map.h"
#include "quant/nf4.h"

namespace ec::quant {

// Absmax values per second-level block (bnb quantize_4bit: quantize_blockwise(..., blocksize=256)).
inline constexpr int64_t kNf4DqBlockSize = 256;

struct Nf4DqTensor {
  std::string name;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<uint8_t> packed;        // the NF4 codes, exactly as Nf4Tensor::packed
  std::vector<uint8_t> absmax_codes;  // [ceil(n/64)]: index into signed_dynamic_map()
  std::vector<float> absmax_scales;   // [ceil(blocks/256)]: absmax of (absmax - offset) per 256
  float absmax_offset = 0.0f;         // mean of the fp32 block absmax

  int64_t numel() const { return rows * cols; }
  int64_t blocks() const { return static_cast<int64_t>(absmax_codes.size()); }
  // packed + absmax_codes + 4·absmax_scales + 4 (offset); the 1 KiB map is a shared constant.
  int64_t storage_bytes() const;
  double bits_per_weight() const;  // ≈ 4.127 for large tensors
  uint8_t code_at(int64_t i) const {
    const uint8_t byte = packed[static_cast<size_t>(i / 2)];
    return (i % 2 == 0) ? static_cast<uint8_t>(byte >> 4) : static_cast<uint8_t>(byte & 0x0f);
  }
  // Block b's absmax as the kernels see it: code[q_b] · absmax_scales[b / 256] + offset.
  float block_absmax(int64_t b) const {
    return signed_dynamic_map()[absmax_codes[static_cast<size_t>(b)]] *
               absmax_scales[static_cast<size_t>(b / kNf4DqBlockSize)] +
           absmax_offset;
  }
};

// The double-quantized statistics of a block-absmax vector, as bnb's quantize_4bit with
// compress_statistics=True: offset = mean(absmax); absmax - offset quantized blockwise (256) with
// the signed dynamic map, each 256-block scaled by the fp32 reciprocal of its absmax. A 256-block
// whose values all equal the offset gets scale 0 and code 127 (0.0) without dividing.
struct DoubleQuantizedAbsmax {
  std::vector<uint8_t> codes;
  std::vector<float> scales;
  float offset = 0.0f;
};
DoubleQuantizedAbsmax double_quantize_absmax(std::span<const float> absmax);
// code[q] · scale + offset for every entry (bnb: dequantize_blockwise(qabsmax, state2) + offset).
std::vector<float> dequantize_absmax(const DoubleQuantizedAbsmax& dq);

// NF4 codes from the fp32 absmax (the weights are quantized before the statistics are compressed,
// as in bnb), then the absmax double-quantized. NaN/Inf → ec::Error naming `name`.
Nf4DqTensor quantize_nf4_dq(std::span<const float> w, int64_t rows, int64_t cols,
                            std::string_view name);

std::vector<float> dequantize_nf4_dq(const Nf4DqTensor& tensor);

}  // namespace ec::quant
