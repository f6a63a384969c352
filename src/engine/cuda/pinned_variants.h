// A decode step's kernel variants as a report names them (EngineInfo::kernel_variant, e.g.
// "cuda-f32acc-f16-gemv-v1[qkv:r2p+pdl,o:r1p-u16+pdl,gu:r2p+pdl,down:r1p-u16+pdl,head:r2p+pdl,
// attn-fused-splits:5]"), parsed so that a later load runs exactly those kernels instead of the
// tuning table's (EngineOptions::kernel_variants, `--kernel-variants`): the same variants replay
// an older report's kernels, or pin both sides of an A/B run. Host code; no GPU needed.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "engine/cuda/gemv.cuh"
#include "engine/tuning_table.h"

namespace ec::engine::cuda {

// The GEMV roles of a decode step, in the order a kernel_variant string lists them.
inline constexpr const auto& kDecodeRoleNames = kDecodeRoles;

struct PinnedVariants {
  std::string prefix;  // "cuda-f32acc-f16-gemv-v1"; empty when the text was only the bracket's
  std::array<GemvConfig, kDecodeRoleNames.size()> roles;  // in kDecodeRoleNames' order
  bool fused_attention = true;  // "attn-fused-splits:N" rather than "attn-splits:N"
  int splits = 1;               // KV slices of the decode attention
};

// Parses "<prefix>[role:variant,...,attn-fused-splits:N]" or the bracket's contents alone: every
// role exactly once, in any order, and the attention's splits. Throws ec::Error naming `source`
// (where the text came from, e.g. "--kernel-variants"), the entry and what was expected.
PinnedVariants parse_pinned_variants(std::string_view text, std::string_view source);

// The entry of `list` for an engine whose variants begin with `engine_prefix`: entries are
// kernel_variant strings separated by ';' (a run loads an FP16 baseline and its precision, and its
// report records both strings), and the one whose prefix is the engine's is taken. A single entry
// without a prefix applies to any engine. Throws ec::Error when an entry is malformed, two
// entries are for one engine, or none is for this one.
PinnedVariants pinned_variants_for(std::string_view list, std::string_view engine_prefix,
                                   std::string_view source);

}  // namespace ec::engine::cuda
