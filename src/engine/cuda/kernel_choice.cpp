// The kernel choice at load: heuristic, tuning table, pinned strings; and its name in reports.
#include "engine/cuda/kernel_choice.cuh"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "engine/cuda/attention.cuh"
#include "engine/cuda/attention_decode.cuh"
#include "engine/cuda/pinned_variants.h"
#include "engine/tuning_model.h"

namespace ec::engine::cuda {

bool same_kernel(const GemvConfig& a, const GemvConfig& b) {
  return a.rows_per_warp == b.rows_per_warp && a.persistent == b.persistent &&
         a.pipeline == b.pipeline && a.unroll == b.unroll;
}

namespace {

bool fused_attention(const KernelContext& ctx) {
  return !ctx.split_attention &&
         decode_attention_supported(ctx.config->head_dim, 1, ctx.compute_major);
}

// The most KV slices the fused decode attention may use: one cluster, where the GPU has them.
int max_fused_splits(const KernelContext& ctx) {
  return decode_attention_supported(ctx.config->head_dim, kDecodeAttentionMaxSplits,
                                    ctx.compute_major)
             ? kDecodeAttentionMaxSplits
             : 1;
}

std::string offered(const std::vector<GemvConfig>& candidates) {
  std::string out;
  for (GemvConfig c : candidates) {
    c.pdl = false;  // the variants, not how they are launched
    out += (out.empty() ? "" : " ") + gemv_config_name(c);
  }
  return out;
}

}  // namespace

std::string variant_prefix(quant::Format format) {
  // v2 where products are taken in fp16 (NF4, NF4-DQ and INT8-WO; their results moved by ~5e-4
  // relative from v1); the other formats' arithmetic is unchanged.
  const bool f16_products = format == quant::Format::nf4 || format == quant::Format::nf4_dq ||
                            format == quant::Format::int8_wo;
  return fmt::format("cuda-f32acc-{}-gemv-{}", quant::format_name(format),
                     f16_products ? "v2" : "v1");
}

std::string variant_name(quant::Format format, const DecodeKernels& k) {
  std::string s = variant_prefix(format);
  for (int role = 0; role < kDecodeRoleCount; ++role) {
    s += role == 0 ? "[" : ",";
    s += fmt::format("{}:{}", kDecodeRoles[static_cast<size_t>(role)],
                     gemv_config_name(k.gemv[static_cast<size_t>(role)]));
  }
  return s +
         fmt::format(",{}:{}]", k.fused_attention ? "attn-fused-splits" : "attn-splits", k.splits);
}

int fused_attention_slices(int decode_length, int max_slices) {
  EC_CHECK(decode_length >= 1 && max_slices >= 1,
           "fused attention slices: the decode length ({}) and the most slices ({}) must be at "
           "least 1",
           decode_length, max_slices);
  return std::clamp((decode_length + 63) / 64, 1, max_slices);
}

DecodeKernels heuristic_kernels(const KernelContext& ctx) {
  DecodeKernels k;
  k.gemv.fill(GemvConfig{2, true, ctx.pdl});
  k.fused_attention = fused_attention(ctx);
  k.splits = k.fused_attention ? fused_attention_slices(ctx.decode_length, max_fused_splits(ctx))
                               : attention_splits(1, ctx.config->num_kv_heads, ctx.decode_length);
  k.source = "heuristic";
  return k;
}

TuningKey tuning_key(const KernelContext& ctx, DecodeRole role) {
  const GemvArgs a = ctx.model->role_args(role, 0, ctx.config->rms_norm_eps);
  return TuningKey{ctx.model->format, std::string(kDecodeRoles[static_cast<size_t>(role)]),
                   gemv_outputs(a), a.cols};
}

std::vector<GemvConfig> role_candidates(const KernelContext& ctx, DecodeRole role) {
  // Listed for the launch the step makes, fused norm included: a variant that needs x as it is
  // must not be offered to qkv, gate_up or the lm_head.
  std::vector<GemvConfig> out =
      gemv_candidates(ctx.model->role_args(role, 0, ctx.config->rms_norm_eps), ctx.device);
  for (GemvConfig& c : out) c.pdl = ctx.pdl;
  return out;
}

DecodeKernels kernels_from_table(const KernelContext& ctx, const TuningTable& table) {
  DecodeKernels k = heuristic_kernels(ctx);
  int found = 0;
  const std::string model = tuning_model_name(*ctx.config);
  for (int r = 0; r < kDecodeRoleCount; ++r) {
    const auto role = static_cast<DecodeRole>(r);
    const TuningKey key = tuning_key(ctx, role);
    const TuningEntry* e = table.find(key, model);
    if (e == nullptr) continue;
    const std::string where =
        fmt::format("tuning table {}: the {} {} GEMV {}x{}", table.name,
                    quant::format_name(key.format), key.role, key.rows, key.cols);
    GemvConfig config;
    try {
      config = parse_gemv_config(e->variant);
    } catch (const Error& err) {
      fail("{}: {}", where, err.what());
    }
    const std::vector<GemvConfig> candidates = role_candidates(ctx, role);
    EC_CHECK(std::any_of(candidates.begin(), candidates.end(),
                         [&](const GemvConfig& c) { return same_kernel(c, config); }),
             "{}: variant {} is not one this build offers there (it has: {}); measure the table "
             "again with `ecocompute tune`, or load without it (--tuning-table none)",
             where, e->variant, offered(candidates));
    config.pdl = ctx.pdl;
    k.gemv[static_cast<size_t>(r)] = config;
    ++found;
  }
  k.source = found == kDecodeRoleCount ? "table" : found > 0 ? "table+heuristic" : "heuristic";
  return k;
}

DecodeKernels pinned_kernels(const KernelContext& ctx, std::string_view text,
                             std::string_view source) {
  const quant::Format format = ctx.model->format;
  const PinnedVariants pinned = pinned_variants_for(text, variant_prefix(format), source);
  const bool fused = fused_attention(ctx);
  EC_CHECK(pinned.fused_attention == fused,
           "{}: {} given, but this engine decodes with the {} attention (--cuda-attention split "
           "selects the split one)",
           source, pinned.fused_attention ? "attn-fused-splits" : "attn-splits",
           fused ? "fused" : "split");
  const bool splits_ok =
      fused ? decode_attention_supported(ctx.config->head_dim, pinned.splits, ctx.compute_major)
            : pinned.splits <= kAttentionMaxSplits;
  EC_CHECK(splits_ok,
           "{}: {} KV slices are more than this engine's {} attention takes (at most {})", source,
           pinned.splits, fused ? "fused" : "split",
           fused ? max_fused_splits(ctx) : kAttentionMaxSplits);
  const bool gpu_has_pdl = ctx.compute_major >= 9;
  DecodeKernels k;
  for (int r = 0; r < kDecodeRoleCount; ++r) {
    const GemvConfig& c = pinned.roles[static_cast<size_t>(r)];
    const std::string_view role = kDecodeRoles[static_cast<size_t>(r)];
    EC_CHECK(!c.pdl || gpu_has_pdl,
             "{}: role {} asks for programmatic dependent launch (+pdl), which this GPU does not "
             "have (compute capability 9.0 and newer)",
             source, role);
    const std::vector<GemvConfig> candidates = role_candidates(ctx, static_cast<DecodeRole>(r));
    EC_CHECK(std::any_of(candidates.begin(), candidates.end(),
                         [&](const GemvConfig& cand) { return same_kernel(cand, c); }),
             "{}: role {}: {} is not a {} variant for this role (it has: {})", source, role,
             gemv_config_name(c), quant::format_name(format), offered(candidates));
    k.gemv[static_cast<size_t>(r)] = c;
  }
  k.fused_attention = fused;
  k.splits = pinned.splits;
  k.source = "pinned";
  return k;
}

}  // namespace ec::engine::cuda
