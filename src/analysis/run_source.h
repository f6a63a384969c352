// Where an analysis command's runs come from: paths given on the command line (imported into a
// private in-memory store, so duplicates collapse by run id) and/or a results store (--db).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "store/run_row.h"

namespace ec::analysis {

struct RunSource {
  std::vector<std::filesystem::path> paths;
  std::filesystem::path db;  // empty: the default store, used only when no paths are given
  std::string session;       // when set, overrides the session of imported rows
};

struct LoadedRuns {
  std::vector<store::RunRow> rows;
  std::vector<std::string> problems;  // bad files and rows, each naming the file
};

LoadedRuns load_runs(const RunSource& source);

}  // namespace ec::analysis
