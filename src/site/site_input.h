// What the report site is built from: the runs (files and/or a results store) and the fitted
// curves (a curves.json, else fitted from measured.csv points, else from the runs).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/fit.h"
#include "store/run_row.h"

namespace ec::site {

struct SiteSources {
  std::vector<std::filesystem::path> paths;  // reports, CSVs, measured.csv, directories
  std::filesystem::path db;                  // results store; the default one when no paths
  std::filesystem::path curves;              // curves.json; empty: fit here
  bool force = false;                        // pool sessions whose version stacks differ
};

struct SiteInput {
  std::vector<store::RunRow> runs;
  std::optional<analysis::CurveSet> curves;
  std::string curves_source;          // for people: where the curves came from
  std::vector<std::string> problems;  // skipped files and rows, each naming the file
  std::vector<std::string> warnings;  // e.g. why no curves could be fitted
};

// Never throws for bad input files (they become `problems`); throws ec::Error for an unreadable
// --curves file, since the caller asked for that one explicitly.
SiteInput load_site_input(const SiteSources& sources);

}  // namespace ec::site
