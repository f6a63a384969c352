// Which kernels a decode step runs: a GEMV variant per role and the decode attention (fused or
// split) with its KV slices. Chosen at load, never by timing: a report's pinned strings, else the
// tuning table's entry for each GEMV shape, else the heuristic (docs/gpu-machine.md). Also how the
// choice is named in a report (EngineInfo::kernel_variant).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "engine/cuda/device_model.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/engine.h"
#include "engine/tuning_table.h"

namespace ec::engine::cuda {

struct DecodeKernels {
  std::array<GemvConfig, kDecodeRoleCount> gemv;
  bool fused_attention = true;  // attention_decode.cu, else rope_store + attention.cu's split one
  int splits = 1;               // KV slices of the decode attention
  std::string source;           // EngineInfo::kernel_variant_choice
};

// What the choice depends on besides the options.
struct KernelContext {
  const DeviceModel* model = nullptr;
  const model::ModelConfig* config = nullptr;
  int decode_length = 0;  // the positions the KV slices are sized for: ≤ the KV cache's length
  int compute_major = 0;  // the GPU's compute capability
  GemvDevice device;      // what the GEMV variants may use there
  bool pdl = false;       // programmatic dependent launch: asked for, and the GPU has it
  bool split_attention = false;
};

// "cuda-f32acc-<format>-gemv-v<n>": the format and the arithmetic of its kernels.
std::string variant_prefix(quant::Format format);
// The prefix and every role's variant:
// "cuda-f32acc-nf4-gemv-v2[qkv:r2p+pdl,...,attn-fused-splits:5]".
std::string variant_name(quant::Format format, const DecodeKernels& kernels);

// The heuristic, the same on every GPU: r2p for every GEMV (two rows per warp, a resident grid:
// the H200's most frequent winner across formats and roles), PDL where on; the fused attention
// where the head size allows it, in fused_attention_slices(ctx.decode_length, a cluster).
DecodeKernels heuristic_kernels(const KernelContext& ctx);

// The fused decode attention's KV slices for a job whose steps attend to at most `decode_length`
// positions: one per 64, from 1 to `max_slices`. Sized for the job, not the cache: at 272 positions
// in a 4,096-position cache, 5 slices decoded Qwen2-0.5B NF4 2.4 % faster than 8 on an H100, and no
// measured row slower by more than its processes' spread (docs/results/decode-h100.md).
int fused_attention_slices(int decode_length, int max_slices);

// The tuning table's key of a role's GEMV.
TuningKey tuning_key(const KernelContext& ctx, DecodeRole role);

// The same GEMV kernel: equal in everything but PDL, which is a property of the launch.
bool same_kernel(const GemvConfig& a, const GemvConfig& b);

// Every variant of a role worth timing (gemv_candidates() for its launch, fused norm included),
// with PDL as ctx has it.
std::vector<GemvConfig> role_candidates(const KernelContext& ctx, DecodeRole role);

// The heuristic with every role the table has an entry for replaced by that entry. ec::Error,
// naming the table and the entry, when an entry names a variant this build does not offer there.
DecodeKernels kernels_from_table(const KernelContext& ctx, const TuningTable& table);

// The variants and KV splits of `text` (a report's kernel_variant strings, ';'-separated; the
// entry whose prefix is this engine's). ec::Error naming `source` when they do not fit the engine.
DecodeKernels pinned_kernels(const KernelContext& ctx, std::string_view text,
                             std::string_view source);

}  // namespace ec::engine::cuda
