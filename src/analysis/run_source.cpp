// Loading runs from paths and/or the store; imported paths go through an in-memory store so a run
// found twice (a copied report, a file given twice) counts once.
#include "analysis/run_source.h"

#include "analysis/import.h"
#include "store/store.h"

namespace ec::analysis {

LoadedRuns load_runs(const RunSource& source) {
  LoadedRuns out;
  store::Store memory = store::Store::in_memory();
  if (!source.db.empty() || source.paths.empty()) {
    const auto db_path = source.db.empty() ? store::default_db_path() : source.db;
    // Reading never creates a store: a mistyped --db is an error, not an empty result.
    if (std::filesystem::exists(db_path)) {
      const auto rows = store::Store::open(db_path).runs();
      memory.ingest(rows);
    } else {
      out.problems.push_back(
          db_path.string() +
          ": no results store yet (run `ecocompute ingest PATH…` or give paths)");
    }
  }
  if (!source.paths.empty()) {
    ImportResult imported = import_paths(source.paths, {.session = source.session});
    out.problems.insert(out.problems.end(), imported.problems.begin(), imported.problems.end());
    memory.ingest(imported.rows);
  }
  out.rows = memory.runs();
  return out;
}

}  // namespace ec::analysis
