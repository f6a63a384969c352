// gemv(): the one dispatch point from a weight format to its decode GEMV kernel, with the shape
// checks every kernel relies on (vector widths, alignment, segments).
#include "engine/cuda/gemv.cuh"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <utility>

#include "core/error.h"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv_half.cuh"
#include "engine/cuda/gemv_int8_llm.cuh"
#include "engine/cuda/gemv_int8_wo.cuh"
#include "engine/cuda/gemv_nf4.cuh"
#include "quant/int8_llm.h"

namespace ec::engine::cuda {
namespace {

// Columns one 16-byte load of weights covers (f16/bf16 8, int8 16, nf4 32): a chunk.
int chunk_width(quant::Format f) {
  switch (f) {
    case quant::Format::fp16:
    case quant::Format::bf16:
      return 8;
    case quant::Format::int8_wo:
    case quant::Format::int8_llm:
      return 16;
    case quant::Format::nf4:
    case quant::Format::nf4_dq:
      return 32;
  }
  return 32;
}

// What cols must be a multiple of: a chunk, which also keeps every row 16-byte aligned; int8-llm
// lists outlier columns 32 at a time.
int vector_width(quant::Format f) {
  return f == quant::Format::int8_llm ? 32 : chunk_width(f);
}

void check_args(const GemvArgs& a) {
  const std::string_view name = quant::format_name(a.format);
  EC_CHECK(a.n_seg >= 1 && a.n_seg <= kGemvMaxSegments, "gemv {}: {} segments (1 to {})", name,
           a.n_seg, kGemvMaxSegments);
  EC_CHECK(
      a.cols > 0 && a.cols % vector_width(a.format) == 0,
      "gemv {}: {} input features is not a positive multiple of {} (the kernel's vector width)",
      name, a.cols, vector_width(a.format));
  EC_CHECK((a.x != nullptr) != (a.x_half != nullptr),
           "gemv {}: x (fp32) or x_half (fp16), exactly one, must be a device pointer", name);
  EC_CHECK((a.y != nullptr) != (a.y_half != nullptr),
           "gemv {}: y (fp32) or y_half (fp16), exactly one, must be a device pointer", name);
  EC_CHECK(a.x_half == nullptr || gemv_takes_x_half(a.format),
           "gemv {}: x_half is taken by int8-wo only", name);
  EC_CHECK(a.x_half == nullptr || a.norm == nullptr,
           "gemv {}: x_half is copied as it is, so there can be no norm", name);
  EC_CHECK(a.y_half == nullptr || a.swiglu, "gemv {}: y_half is for SwiGLU's outputs only", name);
  EC_CHECK(a.y_half == nullptr || gemv_takes_x_half(a.format),
           "gemv {}: y_half is written by int8-wo only", name);
  EC_CHECK(a.format != quant::Format::int8_llm || a.cols <= quant::kLlmInt8MaxFeatures,
           "gemv int8-llm: {} input features; the int32 sum of int8 products holds at most {}",
           a.cols, quant::kLlmInt8MaxFeatures);
  EC_CHECK(!a.swiglu || (a.n_seg == 2 && a.seg[0].rows == a.seg[1].rows),
           "gemv {}: swiglu needs two segments (gate, up) of equal rows", name);
  EC_CHECK(!a.swiglu || a.residual == nullptr, "gemv {}: swiglu takes no residual", name);
  for (int i = 0; i < a.n_seg; ++i) {
    const GemvSegment& s = a.seg[i];
    EC_CHECK(s.rows > 0 && s.w != nullptr, "gemv {}: segment {} has no rows or no weights", name,
             i);
    EC_CHECK(reinterpret_cast<uintptr_t>(s.w) % 16 == 0,
             "gemv {}: segment {} weights are not 16-byte aligned", name, i);
    const bool scaled = a.format != quant::Format::fp16 && a.format != quant::Format::bf16;
    EC_CHECK(!scaled || s.scales != nullptr, "gemv {}: segment {} has no scales", name, i);
    EC_CHECK(
        a.format != quant::Format::nf4_dq || (s.absmax_codes != nullptr && s.absmax_map != nullptr),
        "gemv nf4-dq: segment {} lacks absmax codes or the dynamic map", i);
    // NF4's blocks and the whole-row and row-pass variants' rows are found from the segment's
    // chunk index, in 32 bits.
    const auto chunks_per_row = static_cast<uint64_t>(a.cols / chunk_width(a.format));
    EC_CHECK(static_cast<uint64_t>(s.rows) * chunks_per_row <=
                 uint64_t{std::numeric_limits<uint32_t>::max()} + 1,
             "gemv {}: segment {} has {} rows of {} weights; the kernels index the {}-weight "
             "chunks of a segment in 32 bits (at most 2^32 of them)",
             name, i, s.rows, a.cols, chunk_width(a.format));
  }
}

}  // namespace

bool gemv_takes_x_half(quant::Format format) {
  return format == quant::Format::int8_wo;
}

std::string gemv_config_name(const GemvConfig& config) {
  std::string name(1, 'r');
  name += std::to_string(config.rows_per_warp);
  name += config.persistent ? 'p' : 'g';
  if (config.pipeline == GemvPipeline::l2_prefetch) name += "-l2pf";
  if (config.pipeline == GemvPipeline::registers) name += "-dbuf";
  if (config.pipeline == GemvPipeline::bulk) name += "-bulk";
  if (config.pipeline == GemvPipeline::flat) name += "-flat";
  if (config.pipeline == GemvPipeline::whole) name += "-whole";
  if (config.pipeline == GemvPipeline::pass) name += "-pass";
  if (config.pipeline == GemvPipeline::xreg) name += "-xreg";
  if (config.unroll != 4) name += "-u" + std::to_string(config.unroll);
  if (config.pdl) name += "+pdl";
  return name;
}

GemvConfig parse_gemv_config(std::string_view name) {
  std::string_view rest = name;
  const auto take = [&rest](std::string_view prefix) {
    if (!rest.starts_with(prefix)) return false;
    rest.remove_prefix(prefix.size());
    return true;
  };
  const auto bad = [name](std::string_view what) {
    fail(
        "GEMV variant '{}': {} (expected r{{1,2,4}}{{p,g}}, then optionally -l2pf, -dbuf, -bulk, "
        "-flat, -whole, -pass or -xreg, -u2, -u8 or -u16, and +pdl, as in 'r2p-dbuf-u2+pdl')",
        name, what);
  };
  GemvConfig c;
  if (!take("r") || rest.empty()) bad("no rows per warp after 'r'");
  switch (rest.front()) {
    case '1':
    case '2':
    case '4':
      c.rows_per_warp = rest.front() - '0';
      break;
    default:
      bad("rows per warp must be 1, 2 or 4");
  }
  rest.remove_prefix(1);
  if (take("p")) {
    c.persistent = true;
  } else if (take("g")) {
    c.persistent = false;
  } else {
    bad("'p' (resident grid) or 'g' (a block per row group) must follow the rows per warp");
  }
  if (take("-l2pf")) {
    c.pipeline = GemvPipeline::l2_prefetch;
  } else if (take("-dbuf")) {
    c.pipeline = GemvPipeline::registers;
  } else if (take("-bulk")) {
    c.pipeline = GemvPipeline::bulk;
  } else if (take("-flat")) {
    c.pipeline = GemvPipeline::flat;
  } else if (take("-whole")) {
    c.pipeline = GemvPipeline::whole;
  } else if (take("-pass")) {
    c.pipeline = GemvPipeline::pass;
  } else if (take("-xreg")) {
    c.pipeline = GemvPipeline::xreg;
  }
  // Longest first: "-u16" also starts with "-u1".
  if (take("-u16")) {
    c.unroll = 16;
  } else if (take("-u8")) {
    c.unroll = 8;
  } else if (take("-u2")) {
    c.unroll = 2;
  }
  c.pdl = take("+pdl");
  if (!rest.empty()) bad(fmt::format("unexpected '{}'", rest));
  return c;
}

GemvDevice current_gemv_device() {
  int device = 0, major = 0, shared = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return GemvDevice{major >= 9, static_cast<size_t>(shared)};
}

std::vector<GemvConfig> gemv_candidates(const GemvArgs& args, const GemvDevice& device) {
  std::vector<GemvConfig> out;
  for (int r : {1, 2, 4}) {
    if (args.swiglu && r == 1) continue;
    for (bool persistent : {true, false}) out.push_back(GemvConfig{r, persistent});
  }
  // The pipelined variants pay off in a resident grid, where a warp's next step may be in the next
  // row group; one or two rows per warp (four double-buffered would spill). On the H200 no other
  // pipelined variant won end to end, and each candidate costs
  // the autotuner two timings of whole decode steps at load.
  for (GemvPipeline pipeline : {GemvPipeline::l2_prefetch, GemvPipeline::registers}) {
    for (int r : {1, 2}) {
      if (args.swiglu && r == 1) continue;
      GemvConfig c{r, true};
      c.pipeline = pipeline;
      out.push_back(c);
    }
  }
  // Two-chunk steps for the formats whose dot costs more instructions than their load: half the
  // registers of a step, so more warps fit; one or two rows, every pipeline.
  const bool int8 = args.format == quant::Format::int8_wo || args.format == quant::Format::int8_llm;
  if (int8 || args.format == quant::Format::nf4 || args.format == quant::Format::nf4_dq) {
    for (GemvPipeline pipeline :
         {GemvPipeline::none, GemvPipeline::l2_prefetch, GemvPipeline::registers}) {
      for (int r : {1, 2}) {
        if (args.swiglu && r == 1) continue;
        GemvConfig c{r, true};
        c.pipeline = pipeline;
        c.unroll = 2;
        out.push_back(c);
      }
    }
  }
  // Bulk-copy rings for the 8- and 16-bit formats (NF4's per-chunk scales would still be loaded
  // by the lanes): one or two rows of four chunks a step, or two rows of two. Alone each GEMV of
  // the 7B shapes is slower than the register kernels, but in the decode chain FP16 gains:
  // qwen2.5-3b +8.0 % with o and down on them, qwen2-7b +1.25 % with o, down and the lm_head;
  // int8-wo loses 6 % at 3B, and the tuner leaves it.
  if (device.bulk_copy &&
      (args.format == quant::Format::fp16 || args.format == quant::Format::bf16 || int8)) {
    for (auto [r, unroll] : {std::pair{1, 4}, std::pair{2, 4}, std::pair{2, 2}}) {
      if (args.swiglu && r == 1) continue;
      GemvConfig c{r, true};
      c.pipeline = GemvPipeline::bulk;
      c.unroll = unroll;
      if (gemv_variant_shared_bytes(args.format, args.cols, c) <= device.shared_limit) {
        out.push_back(c);
      }
    }
  }
  // The flat variant (gemv_flat_kernel.cuh) for the formats that sum in FP32, where a row has at
  // least kGemvFlatMinChunks chunks: units of two rows (SwiGLU's gate and up), two items a step.
  if (args.format != quant::Format::int8_llm &&
      args.cols / chunk_width(args.format) >= kGemvFlatMinChunks) {
    GemvConfig c{2, true};
    c.pipeline = GemvPipeline::flat;
    c.unroll = 2;
    out.push_back(c);
  }
  // The whole-row variant (gemv_whole_kernel.cuh) for every format: two rows a unit, where
  // gemv_whole_steps has a kernel for the rows (the 4- and 8-bit formats' at every preset's hidden
  // size, FP16's at 0.5B's). It sheds the step loop's instructions beside the dots.
  const bool four_bit = args.format == quant::Format::nf4 || args.format == quant::Format::nf4_dq;
  const bool half = args.format == quant::Format::fp16 || args.format == quant::Format::bf16;
  const int whole_bits = four_bit ? 4 : int8 ? 8 : half ? 16 : 0;
  const int chunks = args.cols / chunk_width(args.format);
  if (whole_bits != 0 && gemv_whole_steps(chunks, whole_bits) > 0) {
    GemvConfig c{2, true};
    c.pipeline = GemvPipeline::whole;
    out.push_back(c);
    // The same with x in registers: a lane's chunks are the same in every unit, so their x need
    // not be read from shared memory by every dot. Not built for LLM.int8(): its x is one 16-byte
    // unit of int8 codes a chunk, a quarter of NF4's x per byte of weights.
    if (args.format != quant::Format::int8_llm) {
      c.pipeline = GemvPipeline::xreg;
      out.push_back(c);
    }
  }
  // The row-pass variant (gemv_pass_kernel.cuh) for the NF4, NF4-DQ and INT8-WO rows the whole-row
  // variant has no kernel for (every preset's down_proj; in NF4 also rows of 3 steps, in INT8-WO
  // not rows of one step or less): two rows a unit, passes of two or four steps.
  const bool pass_rows = four_bit ? chunks >= 1 && gemv_whole_steps(chunks, 4) == 0
                                  : args.format == quant::Format::int8_wo && chunks > 32 &&
                                        gemv_whole_steps(chunks, 8) == 0;
  if (pass_rows) {
    for (int steps : {2, 4}) {
      GemvConfig c{2, true};
      c.pipeline = GemvPipeline::pass;
      c.unroll = steps;
      out.push_back(c);
    }
  }
  // Deep steps for the 8- and 16-bit formats: 8 or 16 chunks of a row in flight per lane at once
  // (at 3,584 columns, 16 are a lane's whole share of an f16 row). Alone, no GEMV of the 7B shapes
  // got faster; in the decode chain the tuner picks them for down_proj at 0.5B-1.5B, +3 to +6 %.
  if (args.format == quant::Format::fp16 || args.format == quant::Format::bf16 || int8) {
    for (int r : {1, 2}) {
      if (args.swiglu && r == 1) continue;
      GemvConfig c{r, true};
      c.unroll = 8;
      out.push_back(c);
    }
    if (!args.swiglu) {
      for (bool persistent : {true, false}) {
        GemvConfig c{1, persistent};
        c.unroll = 16;
        out.push_back(c);
      }
    }
  }
  return out;
}

int gemv_outputs(const GemvArgs& a) {
  if (a.swiglu) return a.seg[0].rows;
  int total = 0;
  for (int i = 0; i < a.n_seg; ++i) total += a.seg[i].rows;
  return total;
}

size_t gemv_shared_bytes(quant::Format format, int cols) {
  switch (format) {
    case quant::Format::fp16:
    case quant::Format::bf16:
      return gemv_half_shared_bytes(format, cols);
    case quant::Format::int8_wo:
      return gemv_int8_wo_shared_bytes(cols);
    case quant::Format::int8_llm:
      return gemv_int8_llm_shared_bytes(cols);
    case quant::Format::nf4:
    case quant::Format::nf4_dq:
      return gemv_nf4_shared_bytes(format, cols);
  }
  fail("gemv: unknown format {}", static_cast<int>(format));
}

size_t gemv_variant_shared_bytes(quant::Format format, int cols, const GemvConfig& config) {
  const size_t base = gemv_shared_bytes(format, cols);
  if (config.pipeline != GemvPipeline::bulk) return base;
  // gemv_bulk_kernel.cuh: after the tables and staged x (128-byte aligned), each warp's ring of
  // kGemvBulkStages steps of rows_per_warp × unroll 16-byte chunks for 32 lanes, then one 8-byte
  // mbarrier per stage and warp.
  const size_t stage = static_cast<size_t>(config.rows_per_warp) * 512 * config.unroll;
  return (base + 127) / 128 * 128 + size_t{kGemvBlockWarps} * kGemvBulkStages * (stage + 8);
}

int gemv_max_features(quant::Format format, size_t limit) {
  // Shared memory grows with cols, so bisect over multiples of the vector width: lo fits, hi
  // does not (2^24 features is far past any GPU's shared memory).
  const int width = vector_width(format);
  int lo = 0, hi = (1 << 24) / width;
  if (gemv_shared_bytes(format, width) > limit) return 0;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (gemv_shared_bytes(format, mid * width) <= limit ? lo : hi) = mid;
  }
  return lo * width;
}

void check_gemv_fits(quant::Format format, int cols, size_t limit, const std::string& tensor) {
  const size_t need = gemv_shared_bytes(format, cols);
  EC_CHECK(need <= limit,
           "tensor {}: {} input features need {} bytes of shared memory per block in the {} "
           "decode GEMV, and this GPU allows {}; at most {} features fit (docs/limits.md)",
           tensor, cols, need, quant::format_name(format), limit, gemv_max_features(format, limit));
}

void gemv(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream) {
  check_args(args);
  switch (args.format) {
    case quant::Format::fp16:
    case quant::Format::bf16:
      return launch_gemv_half(args, config, stream);
    case quant::Format::int8_wo:
      return launch_gemv_int8_wo(args, config, stream);
    case quant::Format::int8_llm:
      return launch_gemv_int8_llm(args, config, 1, stream);
    case quant::Format::nf4:
    case quant::Format::nf4_dq:
      return launch_gemv_nf4(args, config, stream);
  }
  fail("gemv: unknown format {}", static_cast<int>(args.format));
}

}  // namespace ec::engine::cuda
