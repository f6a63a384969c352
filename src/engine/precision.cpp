// Names of precisions (what the user asks for), weight formats (what the engine stores) and
// backends.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/error.h"
#include "core/precision_names.h"
#include "engine/engine.h"

namespace ec::engine {
namespace {

struct PrecisionName {
  Precision precision;
  std::string_view name;  // as the user and the report spell it
};

constexpr std::array<PrecisionName, 6> kPrecisions = {{
    {Precision::fp16, "FP16"},
    {Precision::bf16, "BF16"},
    {Precision::int8_llm, "INT8"},
    {Precision::int8_wo, "INT8-WO"},
    {Precision::nf4, "NF4"},
    {Precision::nf4_dq, "NF4-DQ"},
}};

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

const PrecisionName& entry(Precision p) {
  for (const auto& e : kPrecisions) {
    if (e.precision == p) return e;
  }
  fail("unknown precision value {}", static_cast<int>(p));
}

}  // namespace

Precision parse_precision(std::string_view text) {
  if (auto name = known_precision(text)) {
    for (const auto& e : kPrecisions) {
      if (*name == e.name) return e.precision;
    }
  }
  fail_usage("unknown precision '{}': expected one of FP16, BF16, INT8, INT8-WO, NF4, NF4-DQ",
             text);
}

std::string_view precision_name(Precision p) {
  return entry(p).name;
}

std::string_view weight_format(Precision p) {
  return quant::format_name(entry(p).precision);
}

Backend parse_backend(std::string_view text) {
  const std::string wanted = upper(text);
  if (wanted == "CPU") return Backend::cpu;
  if (wanted == "CUDA") return Backend::cuda;
  fail_usage("unknown backend '{}': expected cpu or cuda", text);
}

std::string_view backend_name(Backend b) {
  return b == Backend::cpu ? "cpu" : "cuda";
}

}  // namespace ec::engine
