// A run's version stack read as structured fields (quantization library, its version, torch, CUDA,
// driver, Python, our build, kernel variants, meter, quality corpus) with spellings that name the
// same thing normalised, and the comparison of two sets of runs on it.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "store/run_row.h"

namespace ec::analysis {

// Field → normalised value: "quantization_backend" → "bitsandbytes" for both "bitsandbytes" and
// "bitsandbytes LLM.int8()" on an INT8 run (LLM.int8() is what bitsandbytes' INT8 is);
// "matches_reference_pins" → "true" for True/true/yes/1; versions trimmed, a leading "v" dropped.
std::map<std::string, std::string> version_stack(const store::RunRow& row);

// Sessions are comparable (and may be pooled) only when every field both record agrees.
struct Comparability {
  bool comparable = true;
  std::vector<std::string> differences;  // "torch: 2.4.1+cu121 vs 2.5.1+cu121"
  std::vector<std::string> accepted;     // differences the user accepted by name
  std::vector<std::string> unknown;      // fields recorded on one side only
  std::string verdict() const;           // one line for people
};

// Compares the measured runs of each side. A field named in `accept` that differs is listed under
// `accepted` and does not make the sides incomparable.
Comparability compare_version_stacks(std::span<const store::RunRow> a,
                                     std::span<const store::RunRow> b,
                                     const std::set<std::string>& accept = {});

}  // namespace ec::analysis
