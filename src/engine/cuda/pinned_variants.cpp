// parse_pinned_variants(): a report's kernel_variant string back into per-role GEMV configs and
// the attention's KV splits.
#include "engine/cuda/pinned_variants.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/trim.h"

namespace ec::engine::cuda {

PinnedVariants parse_pinned_variants(std::string_view text, std::string_view source) {
  PinnedVariants out;
  std::string_view body = text;
  if (const size_t open = text.find('['); open != std::string_view::npos) {
    EC_CHECK(text.ends_with(']'), "{}: '{}' opens '[' but does not end with ']'", source, text);
    out.prefix = std::string(text.substr(0, open));
    body = text.substr(open + 1, text.size() - open - 2);
  }
  std::array<bool, kDecodeRoleNames.size()> seen{};
  std::optional<int> splits;
  while (!body.empty()) {
    const size_t comma = body.find(',');
    const std::string_view entry = body.substr(0, comma);
    body = comma == std::string_view::npos ? std::string_view{} : body.substr(comma + 1);
    const size_t colon = entry.find(':');
    EC_CHECK(colon != std::string_view::npos,
             "{}: entry '{}' is not name:value (a role such as 'qkv:r2p+pdl', or "
             "'attn-fused-splits:N')",
             source, entry);
    const std::string_view name = entry.substr(0, colon);
    const std::string_view value = entry.substr(colon + 1);
    if (name == "attn-fused-splits" || name == "attn-splits") {
      EC_CHECK(!splits, "{}: the attention's splits are given twice", source);
      int n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      EC_CHECK(ec == std::errc() && end == value.data() + value.size() && n >= 1,
               "{}: {} must be a whole number of KV slices, at least 1 (got '{}')", source, name,
               value);
      splits = n;
      out.fused_attention = name == "attn-fused-splits";
      continue;
    }
    const auto* role = std::find(kDecodeRoleNames.begin(), kDecodeRoleNames.end(), name);
    EC_CHECK(role != kDecodeRoleNames.end(),
             "{}: unknown entry '{}' (expected the roles qkv, o, gu, down, head and "
             "attn-fused-splits or attn-splits)",
             source, name);
    const auto index = static_cast<size_t>(role - kDecodeRoleNames.begin());
    EC_CHECK(!seen[index], "{}: role {} is given twice", source, name);
    seen[index] = true;
    try {
      out.roles[index] = parse_gemv_config(value);
    } catch (const Error& e) {
      fail("{}: role {}: {}", source, name, e.what());
    }
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    EC_CHECK(seen[i], "{}: role {} is missing (every role of qkv, o, gu, down, head is needed)",
             source, kDecodeRoleNames[i]);
  }
  EC_CHECK(splits.has_value(),
           "{}: the attention's splits are missing (attn-fused-splits:N or "
           "attn-splits:N)",
           source);
  out.splits = *splits;
  return out;
}

PinnedVariants pinned_variants_for(std::string_view list, std::string_view engine_prefix,
                                   std::string_view source) {
  std::vector<PinnedVariants> entries;
  while (!list.empty()) {
    const size_t semicolon = list.find(';');
    const std::string_view entry = trim(list.substr(0, semicolon), " \t\r\n\f\v");
    list = semicolon == std::string_view::npos ? std::string_view{} : list.substr(semicolon + 1);
    if (!entry.empty()) entries.push_back(parse_pinned_variants(entry, source));
  }
  EC_CHECK(!entries.empty(),
           "{}: no variants given (a report's engine.kernel_variant, or several "
           "separated by ';')",
           source);
  if (entries.size() == 1 && entries.front().prefix.empty()) return entries.front();
  std::string listed;
  const PinnedVariants* match = nullptr;
  for (const PinnedVariants& e : entries) {
    EC_CHECK(
        !e.prefix.empty(),
        "{}: with several entries each needs its prefix, such as cuda-f32acc-f16-gemv-v1[...], "
        "to say which engine it is for",
        source);
    EC_CHECK(e.prefix != engine_prefix || match == nullptr, "{}: two entries are for {}", source,
             engine_prefix);
    if (e.prefix == engine_prefix) match = &e;
    listed += (listed.empty() ? "" : ", ") + e.prefix;
  }
  EC_CHECK(match != nullptr,
           "{}: variants are given for {} but not for this engine, {}; add the kernel_variant a "
           "{} engine reported (for a run's FP16 baseline, the report's "
           "baseline.engine.kernel_variant), or unset it to tune",
           source, listed, engine_prefix, engine_prefix);
  return *match;
}

}  // namespace ec::engine::cuda
