// Reading runs from files: the original's published CSV layout (with or without `replicate`), the
// original container's energy.json (schema 1.0/1.1) and ours, into store::RunRow.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/csv_table.h"
#include "store/run_row.h"

namespace ec::analysis {

// Largest energy.json import reads: ours are ~10 KB, the original's ~2 KB; a report with every
// power sample inline stays far below.
inline constexpr size_t kMaxReportBytes = size_t{64} << 20;

struct ImportOptions {
  std::string session;  // when set, replaces every row's session
};

struct ImportResult {
  std::vector<store::RunRow> rows;
  std::vector<std::string> problems;  // one message each, naming the file (and line)
  size_t files_read = 0;              // files that gave at least one row
  size_t files_skipped = 0;           // files rejected whole
};

// Files and directories (walked recursively for *.csv and *.json). A malformed file or CSV row is
// reported in `problems` and skipped; the rest is returned. Never throws for bad input files.
ImportResult import_paths(std::span<const std::filesystem::path> paths,
                          const ImportOptions& options = {});

// True when the table has the published run layout's key columns.
bool is_published_run_csv(const CsvTable& table);
// True for the fit input `measured.csv` (energy_fp16_j1k, energy_quant_j1k per configuration).
bool is_measured_csv(const CsvTable& table);

// Rows of the published layout. Throws for a missing required column; a bad row is appended to
// `problems` and skipped.
std::vector<store::RunRow> import_published_csv(const CsvTable& table,
                                                std::vector<std::string>& problems);

// One energy.json (ours or the original's). Throws ec::Error naming the file and the field, or the
// size when `text` is longer than kMaxReportBytes.
store::RunRow import_report(std::string_view text, const std::filesystem::path& path);

// The UTC day of an ISO-8601 timestamp ("2026-08-19T06:05:13Z" → "2026-08-19"), or "" when the
// text does not start with a date.
std::string utc_day(std::string_view timestamp);

}  // namespace ec::analysis
