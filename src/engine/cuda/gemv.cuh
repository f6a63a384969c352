// The decode GEMV (batch 1) for every weight format: y = W·x with x optionally RMS-normalised on
// the way in, bias and residual added on the way out, or the SwiGLU of two matrices. One entry
// point, gemv(), dispatches on the format (the kernels live in gemv_<format>.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cuda/gemv_unit_schedule.h"
#include "quant/format.h"

namespace ec::engine::cuda {

// One weight matrix [rows, cols] in a quant:: layout, as device pointers.
struct GemvSegment {
  const void* w = nullptr;                // f16/bf16 bits, int8 codes (CB) or packed NF4 codes
  const float* scales = nullptr;          // int8: SCB [rows]; nf4: absmax per 64; nf4-dq: per 256
  const uint8_t* absmax_codes = nullptr;  // nf4-dq: one dynamic-map byte per 64-block
  float absmax_offset = 0.0f;             // nf4-dq: mean of the fp32 absmax
  const float* absmax_map = nullptr;      // nf4-dq: quant::signed_dynamic_map() [256]
  const float* bias = nullptr;            // [rows] or null (int8-llm: already rounded to fp16)
  int rows = 0;
};

inline constexpr int kGemvMaxSegments = 3;

struct GemvArgs {
  quant::Format format = quant::Format::fp16;
  // Rows of the segments are concatenated (q|k|v). With swiglu, seg[0] is the gate and seg[1] the
  // up projection (same rows) and y[j] = silu(gate_j) · up_j.
  GemvSegment seg[kGemvMaxSegments];
  int n_seg = 1;
  bool swiglu = false;
  int cols = 0;
  const float* x = nullptr;  // [cols]
  // x as fp16 bits instead of x (exactly one of the two), where the format takes it
  // (gemv_takes_x_half) and there is no norm: copied to shared memory as is. The decode step
  // passes INT8-WO's down_proj the SwiGLU activation this way, rounded once where gate_up writes
  // it (y_half) as the fp32 staging would round it: the same products bit for bit, and each
  // thread's round trips to L2 carry twice the features.
  const uint16_t* x_half = nullptr;
  const float* norm = nullptr;  // RMSNorm gain [cols]: x is normalised first; null = x as is
  double norm_eps = 0.0;
  const float* residual = nullptr;  // [outputs] added to y; may alias y
  float* y = nullptr;               // [Σ rows], or [seg[0].rows] with swiglu
  uint16_t* y_half = nullptr;       // swiglu, gemv_takes_x_half: the outputs as fp16 bits, not y
  // int8-llm only: when set, the outlier columns (a bitmask over cols, set over a whole prefill
  // batch as bitsandbytes does) instead of this token's own |x| ≥ 6 columns.
  const uint32_t* outlier_mask = nullptr;
};

// How a warp overlaps the weight loads of its next step with the arithmetic of the current one:
// not at all (load, then compute), by an L2 prefetch of the next step's weights (no registers),
// by loading the next step into a second register buffer (twice the registers), or (sm_90) by
// bulk copies into a ring of kGemvBulkStages steps in shared memory, lane 0 issuing them: no
// registers in flight, and the first stages requested before waiting for the predecessor (PDL).
// The flat variant (gemv_flat_kernel.cuh) double-buffers in registers too, but spreads each
// warp's even share of the rows over its lanes as one flat sequence of (rows, chunk) items
// instead of row groups; it needs rows of at least kGemvFlatMinChunks 16-byte chunks.
// The whole-row variant (gemv_whole_kernel.cuh; NF4, NF4-DQ, INT8-WO, FP16, BF16) double-buffers in
// registers a lane's whole share of two rows, for the rows gemv_whole_steps has a kernel for; the
// row-pass variant (gemv_pass_kernel.cuh, NF4, NF4-DQ and INT8-WO, the rows the whole-row one has
// no kernel for) streams two rows in passes of `unroll` (2 or 4) steps held in registers. The
// x-in-registers variant (xreg; the whole-row variant's formats but LLM.int8()) is the whole-row
// kernel with the staged x of a lane's chunks read into registers once, at one block an SM.
enum class GemvPipeline : int { none, l2_prefetch, registers, bulk, flat, whole, pass, xreg };

inline constexpr int kGemvFlatMinChunks = 64;
inline constexpr int kGemvWholeMaxSteps = 7;

// The steps of 32 chunks the whole-row variant takes for rows of `chunks` 16-byte chunks of a
// format of `bits` bits a weight (every step but the last full), else 0 where it has no kernel for
// them. 4-bit and 16-bit: 1, 2 or 4 steps, the last one shared by the unit's two rows where it is
// half full (whole_paired). 8-bit (INT8-WO, 16 weights a chunk): 2, 3, 4 or 7 steps, never paired;
// 7 steps are 14 chunks of weights a lane, which fit its 128 registers unspilled. The presets'
// hidden sizes (896, 1,536, 2,048 and 3,584 features) are all rows of NF4's and INT8-WO's; of
// FP16's, 896 (qwen2-0.5b).
constexpr int gemv_whole_steps(int chunks, int bits) {
  const int steps = (chunks + 31) / 32;
  if (chunks <= 0) return 0;
  if (bits == 4 || bits == 16) return steps == 1 || steps == 2 || steps == 4 ? steps : 0;
  if (bits == 8 && !detail::whole_paired(chunks)) {
    return steps == 2 || steps == 3 || steps == 4 || steps == kGemvWholeMaxSteps ? steps : 0;
  }
  return 0;
}

inline constexpr int kGemvBlockWarps = 8;  // warps per block of every decode GEMV kernel
inline constexpr int kGemvBulkStages = 4;  // ring stages per warp of the bulk-copy variant

// What the GPU offers the GEMV variants.
struct GemvDevice {
  bool bulk_copy = false;   // cp.async.bulk with mbarrier byte counts (sm_90 and newer)
  size_t shared_limit = 0;  // opt-in shared memory per block, bytes
};

// The current device's (cudaGetDevice); throws ec::Error naming the CUDA error.
GemvDevice current_gemv_device();

// How the rows are spread over the grid; results are bit-identical for every choice.
struct GemvConfig {
  int rows_per_warp = 2;   // 1, 2 or 4 (even with swiglu)
  bool persistent = true;  // grid of resident blocks looping over row groups, else one per group
  // Programmatic dependent launch (sm_90): blocks start while the previous kernel finishes and
  // load their first weights before waiting for x.
  bool pdl = false;
  GemvPipeline pipeline = GemvPipeline::none;  // int8-llm's prefill kernel ignores it
  // Chunks (16-byte loads) per row a lane loads per step: 4; 2 where the format offers it
  // (int8-wo, int8-llm, nf4, nf4-dq): half the registers of a step, so more warps fit on an SM;
  // 8 or 16, unpipelined, for f16, bf16 and the int8 formats: more bytes in flight per warp.
  int unroll = 4;
};

// e.g. "r2p", "r1g-l2pf+pdl", "r2p-bulk", "r2p-flat-u2", "r2p-whole", "r2p-pass-u2", "r2p-xreg"
std::string gemv_config_name(const GemvConfig& config);

// The config gemv_config_name() names: r{1,2,4}{p,g}, then -l2pf, -dbuf, -bulk, -flat, -whole,
// -pass or -xreg, then -u{2,8,16}, then +pdl, each suffix optional. Throws ec::Error naming the
// text and what was expected. (Whether a format has that variant is gemv_candidates()' business.)
GemvConfig parse_gemv_config(std::string_view name);

// Every config worth timing for these arguments on `device` (the autotuner picks among them). The
// bulk-copy variants are offered only where the device has the bulk copy and their rings fit its
// shared memory at args.cols (a default GemvDevice has neither).
std::vector<GemvConfig> gemv_candidates(const GemvArgs& args, const GemvDevice& device = {});

// Checks the shapes (cols a multiple of the format's vector width, segments consistent) and
// launches on `stream`. Throws ec::Error naming the problem.
void gemv(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream);

// Whether the format's decode GEMV takes x in fp16 (x_half) and writes SwiGLU's outputs in fp16
// (y_half): INT8-WO's. NF4, NF4-DQ and LLM.int8() stage x in fp16 too, but on the H200 the
// hand-off did not pay for them (docs/results/decode-h200.md), so their kernels are built without
// it.
bool gemv_takes_x_half(quant::Format format);

// Number of outputs y holds for these arguments.
int gemv_outputs(const GemvArgs& args);

// Shared memory one block of the format's decode GEMV needs for `cols` input features: its
// tables and the staged x, which grows with cols.
size_t gemv_shared_bytes(quant::Format format, int cols);

// The same for one variant: the bulk-copy variants add their rings and barriers.
size_t gemv_variant_shared_bytes(quant::Format format, int cols, const GemvConfig& config);

// The most input features the format's decode GEMV stages within `limit` bytes of shared memory
// per block (0 if none).
int gemv_max_features(quant::Format format, size_t limit);

// Throws ec::Error, naming `tensor`, its width and the widest the format allows, when its decode
// GEMV would need more than `limit` bytes of shared memory per block (the GPU's opt-in maximum).
void check_gemv_fits(quant::Format format, int cols, size_t limit, const std::string& tensor);

}  // namespace ec::engine::cuda
