// GPU model names → architecture families, and family names matched without regard to case.
#include "core/architecture_names.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/trim.h"

namespace ec {
namespace {

constexpr std::array<std::string_view, 9> kFamilies = {
    "kepler", "maxwell", "pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell"};

struct GpuModel {
  std::string_view compact;  // lower case, without spaces, '-' or '_'
  std::string_view family;
};

// Data-centre, workstation and GeForce models by compute capability (NVIDIA's CUDA GPUs table).
constexpr std::array<GpuModel, 62> kModels = {{
    {"k80", "kepler"},
    {"k40", "kepler"},
    {"m40", "maxwell"},
    {"m60", "maxwell"},
    {"p100", "pascal"},
    {"p40", "pascal"},
    {"p4", "pascal"},
    {"gtx1080ti", "pascal"},
    {"gtx1080", "pascal"},
    {"gtx1070", "pascal"},
    {"titanxp", "pascal"},
    {"v100", "volta"},
    {"titanv", "volta"},
    {"t4", "turing"},
    {"rtx2080ti", "turing"},
    {"rtx2080", "turing"},
    {"rtx2070", "turing"},
    {"rtx2060", "turing"},
    {"titanrtx", "turing"},
    {"rtx6000", "turing"},
    {"rtx8000", "turing"},
    {"a100", "ampere"},
    {"a800", "ampere"},
    {"a40", "ampere"},
    {"a30", "ampere"},
    {"a10g", "ampere"},
    {"a10", "ampere"},
    {"a16", "ampere"},
    {"a2", "ampere"},
    {"rtxa6000", "ampere"},
    {"rtxa5000", "ampere"},
    {"rtxa4000", "ampere"},
    {"rtx3090ti", "ampere"},
    {"rtx3090", "ampere"},
    {"rtx3080ti", "ampere"},
    {"rtx3080", "ampere"},
    {"rtx3070", "ampere"},
    {"rtx3060", "ampere"},
    {"l4", "ada"},
    {"l40s", "ada"},
    {"l40", "ada"},
    {"l20", "ada"},
    {"rtx6000ada", "ada"},
    {"rtx4090", "ada"},
    {"rtx4080", "ada"},
    {"rtx4070ti", "ada"},
    {"rtx4070", "ada"},
    {"rtx4060ti", "ada"},
    {"rtx4060", "ada"},
    {"h100", "hopper"},
    {"h200", "hopper"},
    {"h800", "hopper"},
    {"h20", "hopper"},
    {"gh200", "hopper"},
    {"b100", "blackwell"},
    {"b200", "blackwell"},
    {"gb200", "blackwell"},
    {"b300", "blackwell"},
    {"rtx5090", "blackwell"},
    {"rtx5080", "blackwell"},
    {"rtx5070", "blackwell"},
    {"rtxpro6000", "blackwell"},
}};

// "NVIDIA GeForce RTX 4090" → "rtx 4090": lower case, '-' and '_' as spaces, and the vendor and
// product-line words in front dropped.
std::string spaced_gpu_name(std::string_view text) {
  std::string out;
  for (char c : ascii_lower(text)) out += (c == '-' || c == '_') ? ' ' : c;
  bool dropped = true;
  while (dropped) {
    dropped = false;
    const size_t first = out.find_first_not_of(' ');
    out.erase(0, first == std::string::npos ? out.size() : first);
    for (std::string_view word : {"nvidia", "geforce", "tesla", "quadro"}) {
      if (out.starts_with(word)) {
        out.erase(0, word.size());
        dropped = true;
      }
    }
  }
  return out;
}

// Whether `name` (spaced) starts with `model` (compact) read without spaces, and ends there or
// goes on with something other than another digit of a model number: "a100 sxm4" and "h100 80gb"
// are an A100 and an H100, "a1000" is not an A100.
bool names_model(std::string_view name, std::string_view model) {
  size_t at = 0;
  for (char wanted : model) {
    while (at < name.size() && name[at] == ' ') ++at;
    if (at == name.size() || name[at] != wanted) return false;
    ++at;
  }
  return at == name.size() || !std::isdigit(static_cast<unsigned char>(name[at]));
}

}  // namespace

std::optional<std::string_view> architecture_of_gpu_name(std::string_view text) {
  const std::string name = spaced_gpu_name(text);
  // The longest listed model the name gives: "rtx 6000 ada" is the Ada card, not the Turing one.
  const GpuModel* best = nullptr;
  for (const auto& model : kModels) {
    if (!names_model(name, model.compact)) continue;
    if (!best || model.compact.size() > best->compact.size()) best = &model;
  }
  if (!best) return std::nullopt;
  return best->family;
}

std::string normalize_architecture(std::string_view text) {
  std::string name = ascii_lower(text);
  for (std::string_view family : kFamilies) {
    if (name == family) return name;
  }
  if (auto family = architecture_of_gpu_name(text)) return std::string(*family);
  return name;
}

}  // namespace ec
