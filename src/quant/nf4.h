// NF4 (bnb 4-bit NormalFloat): the code table, bnb's decision-tree quantizer, and the packed layout
// (blocks of 64 over the flattened weight, fp32 absmax per block, first element in the high
// nibble).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ec::quant {

inline constexpr int64_t kNf4BlockSize = 64;

// bitsandbytes' NF4 table (functional.py get_4bit_type("nf4")), index 0..15.
inline constexpr std::array<float, 16> kNf4Code = {-1.0f,
                                                   -0.6961928009986877f,
                                                   -0.5250730514526367f,
                                                   -0.39491748809814453f,
                                                   -0.28444138169288635f,
                                                   -0.18477343022823334f,
                                                   -0.09105003625154495f,
                                                   0.0f,
                                                   0.07958029955625534f,
                                                   0.16093020141124725f,
                                                   0.24611230194568634f,
                                                   0.33791524171829224f,
                                                   0.44070982933044434f,
                                                   0.5626170039176941f,
                                                   0.7229568362236023f,
                                                   1.0f};

// kNf4Threshold[k] separates code k from k+1: the midpoint, exactly as the float literals of bnb's
// dQuantizeNF4 decision tree (csrc blockwise_quantization.cu / kernels.cu).
inline constexpr std::array<float, 15> kNf4Threshold = {
    -0.8480964004993439f,  -0.6106329262256622f,  -0.4599952697753906f,   -0.33967943489551544f,
    -0.23460740596055984f, -0.13791173323988914f, -0.045525018125772476f, 0.03979014977812767f,
    0.1202552504837513f,   0.2035212516784668f,   0.2920137718319893f,    0.3893125355243683f,
    0.5016634166240692f,   0.6427869200706482f,   0.8614784181118011f};

// The code index for a normalized value, walking bnb's tree: every comparison is a strict `x > t`,
// so a value exactly on a threshold takes the LOWER code, and NaN falls through to index 0.
inline uint8_t nf4_quantize_value(float x) {
  int i = x > kNf4Threshold[7] ? 8 : 0;
  i += x > kNf4Threshold[i + 3] ? 4 : 0;
  i += x > kNf4Threshold[i + 1] ? 2 : 0;
  i += x > kNf4Threshold[i] ? 1 : 0;
  return static_cast<uint8_t>(i);
}

// Code of the padding nibble after an odd element count: bnb quantizes the padded 0.0 (index 7).
inline constexpr uint8_t kNf4PadCode = 7;

struct Nf4Tensor {
  std::string name;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<uint8_t> packed;  // ceil(n/2) bytes: element 2i in the high nibble, 2i+1 in the low
  std::vector<float> absmax;    // ceil(n/64): absmax of each block of the flattened [rows, cols]

  int64_t numel() const { return rows * cols; }
  int64_t blocks() const { return static_cast<int64_t>(absmax.size()); }
  int64_t storage_bytes() const;
  double bits_per_weight() const;
  // The 4-bit code of flattened element i.
  uint8_t code_at(int64_t i) const {
    const uint8_t byte = packed[static_cast<size_t>(i / 2)];
    return (i % 2 == 0) ? static_cast<uint8_t>(byte >> 4) : static_cast<uint8_t>(byte & 0x0f);
  }
};

// Quantizes `w` [rows, cols] row-major like bnb's kQuantizeBlockwise<NF4>: per block of 64
// contiguous elements of the flattened tensor, absmax = max|w| and each element gets
// nf4_quantize_value(w · (1/absmax)). A size that is not a multiple of 64 ends in a partial block
// whose absmax covers only its own elements (bnb does the same); an odd size pads the last low
// nibble with kNf4PadCode. A block of zeros gets absmax 0 and code 7 (0.0) without dividing.
// NaN/Inf → ec::Error naming `name`.
Nf4Tensor quantize_nf4(std::span<const float> w, int64_t rows, int64_t cols, std::string_view name);

// Block absmax and packed codes of `w` (shared with nf4-dq); `absmax` gets ceil(n/64) entries.
void quantize_nf4_blocks(std::span<const float> w, std::vector<uint8_t>& packed,
                         std::vector<float>& absmax);

// w[i] = code[q_i] · absmax[i / 64], [rows, cols] row-major.
std::vector<float> dequantize_nf4(const Nf4Tensor& tensor);

}  // namespace ec::quant
