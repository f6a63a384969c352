// The table a sweep prints at the end (and `sweep --collect`): per configuration, how many cells
// finished and the replicates' mean, 95 % interval and CV of each metric.
#pragma once

#include <span>

#include "analysis/table.h"
#include "store/run_row.h"
#include "sweep/manifest.h"

namespace ec::sweep {

// One row per (model, precision, new tokens) in the sweep's order. Energy figures use only runs
// whose basis is `measured` (as `aggregate` does); throughput and quality (perplexity, KL and
// top-1 against FP16) use every finished run, since the clock and the probe measured them either
// way. `brief`: the columns a person reads on a terminal.
analysis::Table summary_table(const Manifest& m, std::span<const store::RunRow> rows, bool brief);

}  // namespace ec::sweep
