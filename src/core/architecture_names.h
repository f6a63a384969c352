// GPU architecture names as users type them: a family in any case ("Hopper") or a GPU's model name
// ("H200", "NVIDIA GeForce RTX 4090", "a100-sxm4-80gb"), resolved to the family reports and curves
// use ("hopper", "ada", "ampere").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ec {

// The family of a GPU model name ("rtx4090" → "ada"); nullopt when the model is not listed.
// Case, spaces, '-' and '_' and the words NVIDIA, GeForce, Tesla and Quadro in front are ignored,
// and a suffix after the model number ("-SXM4-80GB", " 80GB HBM3") is allowed unless it starts
// with a digit: "a100-sxm4" is an A100, "a1000" is not.
std::optional<std::string_view> architecture_of_gpu_name(std::string_view text);

// The family for a family name in any case or a GPU model name; otherwise `text` lower-cased (for
// callers that report the unknown name against their own list, such as a curve set's).
std::string normalize_architecture(std::string_view text);

}  // namespace ec
