// Which instantiation of the batch-1 GEMV kernels runs a GemvConfig (host code over device
// templates; included by gemv_<format>.cu): the register kernel of gemv_kernel.cuh with its rows,
// pipeline and step depth, the bulk-copy kernel of gemv_bulk_kernel.cuh, the flat kernel of
// gemv_flat_kernel.cuh, the whole-row kernel of gemv_whole_kernel.cuh or the row-pass kernel of
// gemv_pass_kernel.cuh.
#pragma once

#include <cuda_runtime_api.h>

#include <type_traits>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_bulk_kernel.cuh"
#include "engine/cuda/gemv_flat_kernel.cuh"
#include "engine/cuda/gemv_kernel.cuh"
#include "engine/cuda/gemv_pass_kernel.cuh"
#include "engine/cuda/gemv_unit_schedule.h"
#include "engine/cuda/gemv_whole_kernel.cuh"

namespace ec::engine::cuda::detail {

// Short steps (two chunks per row per step, half the registers of a step) are built only for the
// formats that offer them (F::kShortSteps), with one or two rows per warp. (Four rows with short
// steps never won on the H200.)
// Deep steps (8 or 16 chunks per row per step, unpipelined, all in flight at once) are built for
// the 8- and 16-bit formats, whose dot is cheap: one row per warp at 16 chunks, one or two at 8
// (at most 64 registers of weights).
template <class F, GemvPipeline P>
void dispatch_rows_pipelined(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  if constexpr (P == GemvPipeline::none && F::kBitsPerWeight >= 8) {
    if (config.unroll == 8) {
      if (config.rows_per_warp == 1 && !a.swiglu) return launch_gemv<F, 1, P, 8>(a, config, stream);
      if (config.rows_per_warp == 2) return launch_gemv<F, 2, P, 8>(a, config, stream);
      cuda_invalid("gemv: eight-chunk steps take 1 or 2 rows per warp (2 with swiglu)");
    }
    if (config.unroll == 16) {
      if (config.rows_per_warp == 1 && !a.swiglu)
        return launch_gemv<F, 1, P, 16>(a, config, stream);
      cuda_invalid("gemv: sixteen-chunk steps take 1 row per warp, without swiglu");
    }
  }
  if constexpr (F::kShortSteps) {
    if (config.unroll == 2) {
      if (config.rows_per_warp == 1 && !a.swiglu) return launch_gemv<F, 1, P, 2>(a, config, stream);
      if (config.rows_per_warp == 2) return launch_gemv<F, 2, P, 2>(a, config, stream);
      cuda_invalid("gemv: two-chunk steps take 1 or 2 rows per warp (2 with swiglu)");
    }
  }
  if (config.unroll != kGemvUnroll) {
    cuda_invalid("gemv: no variant of this format and pipeline has steps of that many chunks");
  }
  switch (config.rows_per_warp) {
    case 1:
      if (!a.swiglu) return launch_gemv<F, 1, P, kGemvUnroll>(a, config, stream);
      break;
    case 2:
      return launch_gemv<F, 2, P, kGemvUnroll>(a, config, stream);
    case 4:
      if constexpr (P != GemvPipeline::registers) {
        return launch_gemv<F, 4, P, kGemvUnroll>(a, config, stream);
      }
      break;
    default:
      break;
  }
  cuda_invalid(a.swiglu ? "gemv: rows_per_warp must be 2 or 4 with swiglu (2 double-buffered)"
                        : "gemv: rows_per_warp must be 1, 2 or 4 (1 or 2 double-buffered)");
}

// Bulk-copy variants for the formats with no per-chunk scales (f16, bf16, int8-wo; an NF4 lane
// would still load its block's absmax itself): kGemvBulkStages stages of four chunks per row with
// one or two rows per warp, or of two chunks with two rows.
template <class F>
void dispatch_rows_bulk(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  constexpr int S = kGemvBulkStages;
  if constexpr (F::kBitsPerWeight >= 8) {
    if (config.unroll == 4 && config.rows_per_warp == 1 && !a.swiglu) {
      return launch_gemv_bulk<F, 1, 4, S>(a, config, stream);
    }
    if (config.unroll == 4 && config.rows_per_warp == 2) {
      return launch_gemv_bulk<F, 2, 4, S>(a, config, stream);
    }
    if (config.unroll == 2 && config.rows_per_warp == 2) {
      return launch_gemv_bulk<F, 2, 2, S>(a, config, stream);
    }
  }
  cuda_invalid("gemv: no bulk-copy variant of this format with those rows and steps");
}

// The flat variant for the formats that sum in FP32 and stage x themselves (not LLM.int8()):
// units of two rows, two items a step.
template <class F>
void dispatch_rows_flat(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  if constexpr (std::is_same_v<Acc<F>, float>) {
    if (a.cols / F::kElems < kGemvFlatMinChunks) {
      cuda_invalid("gemv: the flat variant needs rows of at least kGemvFlatMinChunks chunks");
    }
    if (config.rows_per_warp == 2 && config.unroll == 2) {
      return launch_gemv_flat<F, 2, 2>(a, config, stream);
    }
  }
  cuda_invalid("gemv: the flat variant takes two rows a unit and two items a step");
}

// The whole-row variant: two rows a unit, the steps gemv_whole_steps gives for the format. 4-bit
// and 16-bit: 1, 2 or 4 steps, the last step's two halves paired where a row ends half-way through
// it; 8-bit: 2, 3, 4 or 7 steps, unpaired. Built only for the widths it can meet: x past F's
// single normalising pass (HeldWide<F>) is past 2,048 features, four steps in NF4 and seven in
// INT8-WO (FP16's four steps are 1,024 features).
// XReg: the staged x of a lane's chunks held in registers (the -xreg variant, WholeX).
template <class F, bool XReg>
void dispatch_rows_whole(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  const int chunks = a.cols / F::kElems;
  const int steps = gemv_whole_steps(chunks, F::kBitsPerWeight);
  const bool paired = whole_paired(chunks);
  if (config.rows_per_warp != 2 || config.unroll != kGemvUnroll || steps == 0) {
    cuda_invalid(
        "gemv: the whole-row variant takes two rows a unit and the steps of "
        "gemv_whole_steps");
  }
  constexpr bool kHeld = kIsHeldWide<F>;
  if constexpr (F::kBitsPerWeight == 4 || F::kBitsPerWeight == 16) {
    if (steps == 4) {
      return paired ? launch_gemv_whole<F, 4, true, XReg>(a, config, stream)
                    : launch_gemv_whole<F, 4, false, XReg>(a, config, stream);
    }
    if constexpr (!kHeld) {
      if (steps == 1) return launch_gemv_whole<F, 1, false, XReg>(a, config, stream);
      return paired ? launch_gemv_whole<F, 2, true, XReg>(a, config, stream)
                    : launch_gemv_whole<F, 2, false, XReg>(a, config, stream);
    }
  } else if constexpr (F::kBitsPerWeight == 8) {
    if (steps == 7) return launch_gemv_whole<F, 7, false, XReg>(a, config, stream);
    if constexpr (!kHeld) {
      if (steps == 2) return launch_gemv_whole<F, 2, false, XReg>(a, config, stream);
      if (steps == 3) return launch_gemv_whole<F, 3, false, XReg>(a, config, stream);
      return launch_gemv_whole<F, 4, false, XReg>(a, config, stream);
    }
  }
  cuda_invalid("gemv: no whole-row variant of this format at this width");
}

// The row-pass variant for the 4-bit formats and INT8-WO: two rows a unit, passes of 2 or 4 steps
// (unroll).
template <class F>
void dispatch_rows_pass(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  if constexpr ((F::kBitsPerWeight == 4 || F::kBitsPerWeight == 8) &&
                std::is_same_v<Acc<F>, float>) {
    if (config.rows_per_warp == 2 && config.unroll == 2) {
      return launch_gemv_pass<F, 2>(a, config, stream);
    }
    if (config.rows_per_warp == 2 && config.unroll == 4) {
      return launch_gemv_pass<F, 4>(a, config, stream);
    }
  }
  cuda_invalid("gemv: the row-pass variant takes two rows a unit and passes of 2 or 4 steps");
}

template <class F>
void dispatch_rows_of(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  switch (config.pipeline) {
    case GemvPipeline::bulk:
      return dispatch_rows_bulk<F>(a, config, stream);
    case GemvPipeline::flat:
      return dispatch_rows_flat<F>(a, config, stream);
    case GemvPipeline::whole:
      return dispatch_rows_whole<F, false>(a, config, stream);
    case GemvPipeline::xreg:
      if constexpr (requires { F::stage_token(a, nullptr); }) {
        cuda_invalid("gemv: LLM.int8() has no x-in-registers variant");
      } else {
        return dispatch_rows_whole<F, true>(a, config, stream);
      }
    case GemvPipeline::pass:
      return dispatch_rows_pass<F>(a, config, stream);
    case GemvPipeline::none:
      return dispatch_rows_pipelined<F, GemvPipeline::none>(a, config, stream);
    case GemvPipeline::l2_prefetch:
      return dispatch_rows_pipelined<F, GemvPipeline::l2_prefetch>(a, config, stream);
    case GemvPipeline::registers:
      return dispatch_rows_pipelined<F, GemvPipeline::registers>(a, config, stream);
  }
  cuda_invalid("gemv: unknown pipeline");
}

// The kernel of `config` for format F, in F's own policy or, where x is too wide for F's single
// normalising pass, in HeldWide<F> (gemv_kernel.cuh says why).
template <class F>
void dispatch_rows(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  if constexpr (single_pass_loads<F>() < single_pass_loads<HeldWide<F>>()) {
    if (wants_held_wide<F>(a)) return dispatch_rows_of<HeldWide<F>>(a, config, stream);
  }
  dispatch_rows_of<F>(a, config, stream);
}

}  // namespace ec::engine::cuda::detail
