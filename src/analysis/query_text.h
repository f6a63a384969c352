// "13B on A100 int8 batch 32 ctx 8k" → size, class, precision, batch and context: the original
// estimator's rules-based reading of a plain-English question, GPU names mapped to classes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ec::analysis {

struct QueryText {
  std::optional<double> params_b;
  std::optional<std::string> arch;
  std::optional<std::string> precision;  // INT8 or NF4
  std::optional<double> batch;
  std::optional<double> ctx;
};

// `original_k_suffix`: the original reads "32k tokens" as a context of 32 (its second context rule
// drops the k); by default such a context is 32 × 1024 as "ctx 32k" is. Texts longer than
// kMaxQueryText bytes are refused by the callers.
QueryText parse_query_text(std::string_view text, bool original_k_suffix = false);

inline constexpr size_t kMaxQueryText = 1000;

}  // namespace ec::analysis
