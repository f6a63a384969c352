// CudaLinear: the weights of one Linear role of a layer on the device (q|k|v, gate|up, o, down or
// the lm_head) in one weight format, uploaded and converted or quantized once; decode goes through
// gemv(), prefill through cuBLAS (dequantized to fp16 where needed) or, for int8-llm, through the
// LLM.int8() kernel with the batch's outlier columns.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/gemv.cuh"
#include "model/weights.h"

namespace ec::engine::cuda {

// Device scratch the prefill path shares across linears (sized by the engine).
struct PrefillScratch {
  DeviceBuffer<uint16_t> x16;    // activations as fp16/bf16 [tokens, max cols]
  DeviceBuffer<uint16_t> w16;    // one dequantized segment [rows, cols]
  DeviceBuffer<float> gate, up;  // [tokens, intermediate] for the dense SwiGLU path
  DeviceBuffer<uint32_t> mask;   // int8-llm outlier columns [max cols / 32]
};

class CudaLinear {
 public:
  CudaLinear() = default;

  // Uploads `weights` (host tensors [rows_i, cols], f32/f16/bf16, one to three with the same cols)
  // with their optional biases and converts them to `format` on the device (quantizing from the
  // fp16-rounded values, as the CPU engine does). `staging` is reused between calls.
  // `dynamic_map` is the device copy of quant::signed_dynamic_map() (nf4-dq).
  CudaLinear(const std::vector<const model::Tensor*>& weights,
             const std::vector<const std::optional<model::Tensor>*>& biases, quant::Format format,
             bool swiglu, const float* dynamic_map, DeviceBuffer<uint8_t>& staging,
             cudaStream_t stream);

  // A dense f16/bf16 matrix already on the device (the tied lm_head reading the embedding).
  static CudaLinear borrow(const uint16_t* w, int rows, int cols, quant::Format format);

  // Segments and format filled in; x, norm, residual and y are the caller's.
  GemvArgs decode_args() const;
  quant::Format format() const { return format_; }
  int cols() const { return cols_; }
  int outputs() const;  // Σ rows, or the gate's rows with swiglu
  int max_segment_rows() const;
  // Bytes one decode step reads: weights, scales, absmax codes and biases.
  int64_t weight_bytes() const { return weight_bytes_; }

  // y [n, outputs] = W·x (+ y when accumulate) for x [n, cols] FP32 on the device; with swiglu
  // y = silu(gate)·up. Scratch must hold n tokens.
  void prefill(const float* x, int n, float* y, bool accumulate, PrefillScratch& scratch,
               cublasHandle_t cublas, const GemvConfig& config, cudaStream_t stream) const;

 private:
  struct Segment {
    DeviceBuffer<uint8_t> w;
    DeviceBuffer<float> scales;
    DeviceBuffer<uint8_t> absmax_codes;
    DeviceBuffer<float> bias;
    float absmax_offset = 0.0f;
    const void* borrowed = nullptr;
    int rows = 0;
    GemvSegment view(const float* dynamic_map) const;
  };

  void gemm(const Segment& s, const uint16_t* x16, int n, float* y, int ldy, bool accumulate,
            PrefillScratch& scratch, cublasHandle_t cublas, cudaStream_t stream) const;

  quant::Format format_ = quant::Format::fp16;
  bool swiglu_ = false;
  int cols_ = 0;
  const float* dynamic_map_ = nullptr;
  std::vector<Segment> segs_;
  int64_t weight_bytes_ = 0;
};

}  // namespace ec::engine::cuda
