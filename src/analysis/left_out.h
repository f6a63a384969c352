// The runs an analysis leaves out because they are not measurements, grouped by why: every table,
// page and command says how many it left out and the reason.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "store/run_row.h"

namespace ec::analysis {

struct LeftOut {
  std::string reason;  // RunRow::why_not_measured()
  size_t runs = 0;
};

// Grouped by reason, most runs first; empty when every run is a measurement.
std::vector<LeftOut> left_out(std::span<const store::RunRow> rows);

// The same for the runs no configuration summary takes: not measurements, and not runs without an
// energy meter either (aggregate and compare show those for throughput and quality).
std::vector<LeftOut> left_out_of_summaries(std::span<const store::RunRow> rows);

// "2 run(s) left out, not measurements: basis is 'interpolated', not 'measured' (1); …", or "".
std::string left_out_line(const std::vector<LeftOut>& groups);

}  // namespace ec::analysis
