// The spread of one run's measured iterations: with the energy counter's window edges on its
// updates, each iteration's energy is a measurement of its own (docs/method.md).
#pragma once

#include <optional>

#include "report/run_record.h"

namespace ec::analysis {

// CV (%, sample SD / mean) of the iterations' energy per token; absent when an iteration has no
// energy or no tokens, or with fewer than two iterations.
std::optional<double> iteration_energy_cv_pct(const report::DecodeRun& run);

}  // namespace ec::analysis
