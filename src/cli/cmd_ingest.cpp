// `ecocompute ingest PATH…`: index reports, published CSVs and the fit input into the results
// store. Exit status: 0 everything given was stored; 3 some files or rows were rejected (each named
// on stderr with its field; the rest was stored); 2 usage; 1 nothing stored (the store could not
// be opened or written).
#include "analysis/import.h"
#include "analysis/left_out.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "core/diagnostic.h"
#include "store/store.h"

namespace ec::cli {

void add_ingest_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "ingest",
      "Index energy.json reports, published CSVs and measured.csv (files or directories) into "
      "the results store. Reports and rows that fail the checks of `validate` are rejected. "
      "Exit 0: all stored; 3: some rejected, the rest stored; 2: usage; 1: nothing stored");
  struct Options {
    std::vector<std::string> paths;
    std::string db;
    std::string session;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("paths", o->paths, "Files and directories (walked for *.json and *.csv)")
      ->required();
  cmd->add_option("--db", o->db,
                  "Results store (default ~/.local/share/ecocompute/results.sqlite)");
  cmd->add_option("--session", o->session, "Session name for every run ingested by this call");
  cmd->callback([o] {
    std::vector<std::filesystem::path> paths(o->paths.begin(), o->paths.end());
    const analysis::ImportResult imported = analysis::import_paths(paths, {.session = o->session});
    // Each rejected input is an error (exit 3 below), though the rest is still stored.
    for (const auto& p : imported.problems) print_error(fmt::format("{} (rejected)", p));
    store::Store store =
        store::Store::open(o->db.empty() ? store::default_db_path() : std::filesystem::path(o->db));
    const store::IngestStats s = store.ingest(imported.rows);
    const auto left_out = analysis::left_out(imported.rows);
    size_t not_measured = 0;
    for (const auto& g : left_out) not_measured += g.runs;
    fmt::print(
        "{}: {} new, {} updated, {} unchanged runs from {} file(s); {} file(s) and {} row(s) "
        "rejected; {} run(s) kept but not measurements (never used as measurements); {} runs "
        "stored\n",
        store.path().string(), s.inserted, s.updated, s.unchanged, imported.files_read,
        imported.files_skipped, imported.rows_rejected, not_measured, store.count());
    for (const auto& g : left_out)
      fmt::print("  not a measurement ({} run(s)): {}\n", g.runs, g.reason);
    if (imported.any_rejected()) throw ExitStatus{3};
    if (imported.rows.empty()) throw ExitStatus{1};  // nothing found to store
  });
}

}  // namespace ec::cli
