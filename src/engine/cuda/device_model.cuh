// The model on the device: embedding, norms and every Linear role of every layer in the engine's
// weight format, uploaded (and quantized on the GPU) once at load.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/linear.cuh"
#include "model/config.h"
#include "model/weights.h"
#include "quant/format.h"

namespace ec::engine::cuda {

// The decode step's GEMV roles, in kDecodeRoles' order.
enum DecodeRole { kQkv, kO, kGateUp, kDown, kHead, kDecodeRoleCount };

struct DeviceLayer {
  DeviceBuffer<float> attn_norm, ffn_norm;
  CudaLinear qkv, o, gate_up, down;
};

struct DeviceModel {
  quant::Format format = quant::Format::fp16;  // the layers' weights
  quant::Format dense = quant::Format::fp16;   // embedding and lm_head: 16-bit, as bitsandbytes
  DeviceBuffer<float> dynamic_map;             // quant::signed_dynamic_map() (nf4-dq)
  DeviceBuffer<uint16_t> embed;
  DeviceBuffer<float> final_norm;
  std::vector<DeviceLayer> layers;
  CudaLinear lm_head;  // borrows embed when the embeddings are tied
  int64_t max_segment_weights =
      0;  // largest rows × cols of one segment (prefill's dequant scratch)

  // Bytes one decode step reads: every GEMV's weights, scales and biases, and one embedding row.
  int64_t decode_weight_bytes() const;
  // The decode GEMV of `role` in `layer` (the lm_head for kHead), with the RMSNorm the step fuses
  // into it: everything but x, y and the residual.
  GemvArgs role_args(DecodeRole role, int layer, double rms_norm_eps) const;
};

// Uploads and converts `weights` (checked against `config`) to `format` on `stream`'s device.
DeviceModel upload_model(const model::ModelWeights& weights, const model::ModelConfig& config,
                         quant::Format format, cudaStream_t stream);

}  // namespace ec::engine::cuda
