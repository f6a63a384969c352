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
  size_t rows_rejected = 0;           // CSV rows rejected (their files' other rows were read)
  // Anything given that was not stored: a file or row rejected, a path that does not exist.
  bool any_rejected() const { return files_skipped > 0 || rows_rejected > 0; }
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

// Rows of the fit input layout (measured.csv): one configuration per row with its n (n_trials),
// basis measured, the delta computed from the two energies, the session from the row's GPU and
// the date its note names (fit_input_session). Throws for a missing column; bad rows go to
// `problems`.
std::vector<store::RunRow> import_fit_input_csv(const CsvTable& table,
                                                std::vector<std::string>& problems);
// "RTX 4090 July 2026 (measured.csv)", "RTX 4090 2026-08-06 (measured.csv)", "T4 (measured.csv)".
std::string fit_input_session(const std::string& gpu, std::string_view note,
                              const std::string& file_name);

// One energy.json (ours or the original's). Throws ec::Error naming the file and the field, or the
// size when `text` is longer than kMaxReportBytes. A report enters only when it passes what
// `validate` checks (our schema when it has report_format, else the original's 1.1, and the
// consistency checks) and row_check_failures(): otherwise the error lists the failures. A report
// without a run id gets content_run_id() (src/analysis/content_run_id.cpp).
store::RunRow import_report(std::string_view text, const std::filesystem::path& path);

// import_report() without the content run id: run_id stays empty when the report carries none.
// The site's report grader (WebAssembly, no hashing library) reads reports with it and hashes
// content_identity() in the browser.
store::RunRow read_report(std::string_view text, const std::filesystem::path& path);

// Throws ec::Error ("rejected, not stored: FILE: /pointer: why; …") when the report fails the
// checks above.
void refuse_unless_valid(std::string_view text, const std::filesystem::path& path,
                         const store::RunRow& row);

// A run's identity from its content: a hash of the fields that identify it (when, where, what,
// and what was measured), for reports that carry no run_id. Independent of the file's bytes.
// "content:" + the first 16 hex digits of the SHA-256 of content_identity(row).
std::string content_run_id(const store::RunRow& row);
// The text content_run_id() hashes: "name=value\x1f" for each identifying field.
std::string content_identity(const store::RunRow& row);

// The UTC day of an ISO-8601 timestamp ("2026-08-19T06:05:13Z" → "2026-08-19"), or "" when the
// text does not start with a date.
std::string utc_day(std::string_view timestamp);

}  // namespace ec::analysis
