// The table `run` prints: one row per measured precision (the FP16 baseline once, first), with
// tok/s and J/1k tok as mean ± SD, min and max over the measured iterations, ΔE vs FP16 and the
// quality figures. Built from run_statistics; the printers in table.h only format it.
#pragma once

#include <span>
#include <string>

#include "analysis/table.h"
#include "report/run_record.h"

namespace ec::analysis {

// Numbers in their own columns, for csv, json and jsonl. `report_paths[i]` is where records[i]
// was written (the baseline row names the first). J/1k tok cells are absent unless the report
// carries a measured energy per token.
Table run_summary_table(std::span<const report::RunRecord> records,
                        std::span<const std::string> report_paths);

// The same rows for people (md): "mean ± SD" and "min … max" in one cell each, "n/a" where the
// numeric table has no value.
Table run_summary_text_table(std::span<const report::RunRecord> records);

}  // namespace ec::analysis
