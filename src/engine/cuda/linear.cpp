// CudaLinear: upload, conversion and quantization of a Linear role's weights on the device, and
// its prefill path (cuBLAS GEMM with FP32 compute, or the LLM.int8() kernel over the batch).
#include "engine/cuda/linear.cuh"

#include <algorithm>
#include <span>

#include "core/error.h"
#include "core/half.h"
#include "engine/cuda/gemv_int8_llm.cuh"
#include "engine/cuda/quantize.cuh"
#include "engine/cuda/swiglu.cuh"
#include "engine/cuda/tensor_convert.cuh"
#include "quant/nf4_dq.h"

namespace ec::engine::cuda {
namespace {

bool dense(quant::Format f) {
  return f == quant::Format::fp16 || f == quant::Format::bf16;
}

std::vector<float> bias_values(const model::Tensor& t, int64_t rows, quant::Format format) {
  EC_CHECK(t.numel() == rows, "tensor {}: bias has {} values, expected {}", t.name, t.numel(),
           rows);
  std::vector<float> b(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) b[static_cast<size_t>(i)] = t.at(i);
  if (format == quant::Format::int8_llm) {
    // bnb's fused dequant adds the model's fp16 bias (cpu::make_gemv_int8_llm does the same).
    for (float& v : b) v = half_to_float(float_to_half(v));
  }
  return b;
}

}  // namespace

CudaLinear::CudaLinear(const std::vector<const model::Tensor*>& weights,
                       const std::vector<const std::optional<model::Tensor>*>& biases,
                       quant::Format format, bool swiglu, const float* dynamic_map,
                       DeviceBuffer<uint8_t>& staging, cudaStream_t stream)
    : format_(format), swiglu_(swiglu), dynamic_map_(dynamic_map) {
  EC_CHECK(!weights.empty() && weights.size() <= kGemvMaxSegments,
           "CudaLinear: 1 to {} weight matrices, got {}", kGemvMaxSegments, weights.size());
  EC_CHECK(biases.empty() || biases.size() == weights.size(),
           "CudaLinear: {} biases for {} weights", biases.size(), weights.size());
  for (size_t i = 0; i < weights.size(); ++i) {
    const model::Tensor& t = *weights[i];
    EC_CHECK(t.shape.size() == 2, "tensor {}: a Linear weight must be 2-D [out, in], got {} dims",
             t.name, t.shape.size());
    EC_CHECK(t.dtype == DType::f32 || t.dtype == DType::f16 || t.dtype == DType::bf16,
             "tensor {}: dtype {} is not F32, F16 or BF16", t.name, dtype_name(t.dtype));
    const int64_t rows = t.shape[0], cols = t.shape[1];
    EC_CHECK(rows > 0 && cols > 0 && rows < (int64_t{1} << 31) && cols < (int64_t{1} << 31),
             "tensor {}: shape [{}, {}] is empty or too large", t.name, rows, cols);
    if (i == 0) {
      cols_ = static_cast<int>(cols);
      // Past this the first decode launch would fail inside CUDA, naming neither tensor nor width.
      int device = 0, limit = 0;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      check_gemv_fits(format, cols_, static_cast<size_t>(limit), t.name);
    }
    EC_CHECK(cols == cols_,
             "tensor {}: {} input features, the other matrices of this layer have {}", t.name, cols,
             cols_);
    EC_CHECK(t.nbytes == static_cast<size_t>(rows * cols) * dtype_size(t.dtype),
             "tensor {}: {} bytes for shape [{}, {}] of {}", t.name, t.nbytes, rows, cols,
             dtype_name(t.dtype));

    Segment s;
    s.rows = static_cast<int>(rows);
    const int64_t n = rows * cols;
    // The raw bytes, then the 16-bit form (the weights themselves for FP16/BF16).
    const size_t raw_bytes = (t.nbytes + 15) / 16 * 16;
    staging.resize(std::max(staging.size(), raw_bytes + static_cast<size_t>(n) * 2));
    uint8_t* raw = staging.get();
    auto* w16 = reinterpret_cast<uint16_t*>(staging.get() + raw_bytes);
    CUDA_CHECK(cudaMemcpyAsync(raw, t.data, t.nbytes, cudaMemcpyHostToDevice, stream));
    if (dense(format)) {
      s.w.resize(static_cast<size_t>(n) * 2);
      convert_to_16bit(raw, t.dtype, n, reinterpret_cast<uint16_t*>(s.w.get()),
                       format == quant::Format::bf16, stream);
      weight_bytes_ += n * 2;
    } else {
      convert_to_16bit(raw, t.dtype, n, w16, false, stream);
      if (format == quant::Format::int8_wo || format == quant::Format::int8_llm) {
        s.w.resize(static_cast<size_t>(n));
        s.scales.resize(static_cast<size_t>(rows));
        quantize_int8_rowwise(w16, rows, cols, reinterpret_cast<int8_t*>(s.w.get()), s.scales.get(),
                              stream);
        weight_bytes_ += n + 4 * rows;
      } else {
        const int64_t blocks = (n + quant::kNf4BlockSize - 1) / quant::kNf4BlockSize;
        s.w.resize(static_cast<size_t>((n + 1) / 2));
        s.scales.resize(static_cast<size_t>(blocks));
        quantize_nf4(w16, n, s.w.get(), s.scales.get(), stream);
        weight_bytes_ += (n + 1) / 2;
        if (format == quant::Format::nf4) {
          weight_bytes_ += 4 * blocks;
        } else {
          // Double quantization of the block absmax on the host, as quant::quantize_nf4_dq does.
          CUDA_CHECK(cudaStreamSynchronize(stream));
          const std::vector<float> absmax = s.scales.download();
          const quant::DoubleQuantizedAbsmax dq = quant::double_quantize_absmax(absmax);
          s.absmax_codes.upload(std::span<const uint8_t>(dq.codes));
          s.scales.upload(std::span<const float>(dq.scales));
          s.absmax_offset = dq.offset;
          weight_bytes_ += blocks + 4 * static_cast<int64_t>(dq.scales.size()) + 4;
        }
      }
    }
    if (!biases.empty() && biases[i]->has_value()) {
      const std::vector<float> b = bias_values(**biases[i], rows, format);
      s.bias.upload(std::span<const float>(b));
      weight_bytes_ += 4 * rows;
    }
    // The staging buffer is reused by the next call: finish with it first.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    segs_.push_back(std::move(s));
  }
  EC_CHECK(!swiglu || (segs_.size() == 2 && segs_[0].rows == segs_[1].rows),
           "CudaLinear: swiglu needs gate and up matrices of equal rows");
}

CudaLinear CudaLinear::borrow(const uint16_t* w, int rows, int cols, quant::Format format) {
  EC_CHECK(dense(format), "CudaLinear::borrow: only f16/bf16 weights can be shared");
  CudaLinear l;
  l.format_ = format;
  l.cols_ = cols;
  Segment s;
  s.rows = rows;
  s.borrowed = w;
  l.segs_.push_back(std::move(s));
  l.weight_bytes_ = int64_t{2} * rows * cols;
  return l;
}

GemvSegment CudaLinear::Segment::view(const float* dynamic_map) const {
  GemvSegment v;
  v.w = borrowed != nullptr ? borrowed : static_cast<const void*>(w.get());
  v.scales = scales.size() > 0 ? scales.get() : nullptr;
  v.absmax_codes = absmax_codes.size() > 0 ? absmax_codes.get() : nullptr;
  v.absmax_offset = absmax_offset;
  v.absmax_map = dynamic_map;
  v.bias = bias.size() > 0 ? bias.get() : nullptr;
  v.rows = rows;
  return v;
}

GemvArgs CudaLinear::decode_args() const {
  GemvArgs a;
  a.format = format_;
  a.n_seg = static_cast<int>(segs_.size());
  for (size_t i = 0; i < segs_.size(); ++i) a.seg[i] = segs_[i].view(dynamic_map_);
  a.swiglu = swiglu_;
  a.cols = cols_;
  return a;
}

int CudaLinear::outputs() const {
  if (swiglu_) return segs_.front().rows;
  int total = 0;
  for (const Segment& s : segs_) total += s.rows;
  return total;
}

int CudaLinear::max_segment_rows() const {
  int m = 0;
  for (const Segment& s : segs_) m = std::max(m, s.rows);
  return m;
}

void CudaLinear::gemm(const Segment& s, const uint16_t* x16, int n, float* y, int ldy,
                      bool accumulate, PrefillScratch& scratch, cublasHandle_t cublas,
                      cudaStream_t stream) const {
  const GemvSegment v = s.view(dynamic_map_);
  const void* w = v.w;
  cudaDataType_t type = format_ == quant::Format::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  if (!dense(format_)) {
    EC_CHECK(scratch.w16.size() >= static_cast<size_t>(s.rows) * static_cast<size_t>(cols_),
             "prefill: dequantization scratch too small");
    dequantize_to_f16(format_, v, cols_, scratch.w16.get(), stream);
    w = scratch.w16.get();
    type = CUDA_R_16F;
  }
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  CUBLAS_CHECK(cublasSetStream(cublas, stream));
  // Row-major W [rows, cols] is column-major [cols, rows]: y (col-major [rows, n]) = Wᵀ·x.
  CUBLAS_CHECK(cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, s.rows, n, cols_, &alpha, w, type,
                            cols_, x16, type, cols_, &beta, y, CUDA_R_32F, ldy, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
  if (v.bias != nullptr) add_bias(y, v.bias, n, s.rows, ldy, stream);
}

void CudaLinear::prefill(const float* x, int n, float* y, bool accumulate, PrefillScratch& scratch,
                         cublasHandle_t cublas, const GemvConfig& config,
                         cudaStream_t stream) const {
  if (n <= 0) return;
  if (format_ == quant::Format::int8_llm) {
    // bnb's batch semantics: outlier columns over every token of the call.
    EC_CHECK(scratch.mask.size() >= static_cast<size_t>(cols_ / 32), "prefill: mask too small");
    CUDA_CHECK(cudaMemsetAsync(scratch.mask.get(), 0, static_cast<size_t>(cols_ / 32) * 4, stream));
    int8_llm_outlier_mask(x, n, cols_, scratch.mask.get(), stream);
    GemvArgs a = decode_args();
    a.x = x;
    a.y = y;
    a.residual = accumulate ? y : nullptr;
    a.outlier_mask = scratch.mask.get();
    launch_gemv_int8_llm(a, config, n, stream);
    return;
  }
  EC_CHECK(scratch.x16.size() >= static_cast<size_t>(n) * static_cast<size_t>(cols_),
           "prefill: activation scratch too small");
  convert_to_16bit(x, DType::f32, int64_t{n} * cols_, scratch.x16.get(),
                   format_ == quant::Format::bf16, stream);
  if (swiglu_) {
    const int rows = segs_[0].rows;
    EC_CHECK(scratch.gate.size() >= static_cast<size_t>(n) * static_cast<size_t>(rows),
             "prefill: gate scratch too small");
    gemm(segs_[0], scratch.x16.get(), n, scratch.gate.get(), rows, false, scratch, cublas, stream);
    gemm(segs_[1], scratch.x16.get(), n, scratch.up.get(), rows, false, scratch, cublas, stream);
    swiglu(scratch.gate.get(), scratch.up.get(), int64_t{n} * rows, y, stream);
    return;
  }
  const int ldy = outputs();
  int offset = 0;
  for (const Segment& s : segs_) {
    gemm(s, scratch.x16.get(), n, y + offset, ldy, accumulate, scratch, cublas, stream);
    offset += s.rows;
  }
}

}  // namespace ec::engine::cuda
