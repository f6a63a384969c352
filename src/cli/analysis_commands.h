// The analysis subcommands (ingest, aggregate, compare, fit, estimate, check-regression,
// sessions) and the
// options and output handling they share.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <unistd.h>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_source.h"
#include "analysis/table.h"
#include "core/diagnostic.h"
#include "core/error.h"
#include "core/file_io.h"

namespace ec::cli {

void add_ingest_command(CLI::App& app);
void add_aggregate_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_fit_command(CLI::App& app);
void add_estimate_command(CLI::App& app);
void add_optimize_command(CLI::App& app);
void add_check_regression_command(CLI::App& app);
void add_sessions_command(CLI::App& app);

namespace analysis_cli {

// Options every analysis command shares: the output format and the results store.
struct CommonOptions {
  std::string format;  // empty: md on a terminal, csv otherwise
  std::string db;
};

inline void add_common_options(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--format", o.format, "Output: md, csv, json, jsonl or sql (md on a terminal)");
  cmd->add_option("--db", o.db, "Results store (default ~/.local/share/ecocompute/results.sqlite)");
}

inline analysis::OutputFormat output_format(const CommonOptions& o) {
  if (o.format.empty())
    return isatty(STDOUT_FILENO) ? analysis::OutputFormat::md : analysis::OutputFormat::csv;
  return analysis::parse_output_format(o.format);
}

// Bad files and rows are warnings: the good ones are still used. A command left with nothing to
// show fails with nothing_left, whose error line names the first input skipped.
inline void report_problems(const std::vector<std::string>& problems) {
  for (const auto& p : problems) print_warning(fmt::format("skipped {}", p));
}

[[noreturn]] inline void nothing_left(std::string_view what,
                                      const std::vector<std::string>& problems) {
  if (problems.empty()) fail("{}: no measured run to use (the notes above say why)", what);
  fail("{}: no measured run to use; {} input(s) skipped, the first: {}", what, problems.size(),
       problems.front());
}

inline analysis::LoadedRuns load(const std::vector<std::string>& paths, const CommonOptions& o,
                                 const std::string& session = {}) {
  analysis::RunSource source;
  for (const auto& p : paths) source.paths.emplace_back(p);
  source.db = o.db;
  source.session = session;
  analysis::LoadedRuns runs = analysis::load_runs(source);
  report_problems(runs.problems);
  return runs;
}

inline void print(const analysis::Table& t, analysis::OutputFormat f) {
  fmt::print("{}", analysis::render(t, f));
}

}  // namespace analysis_cli
}  // namespace ec::cli
