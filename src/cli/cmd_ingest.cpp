// `ecocompute ingest PATH…`: index reports and published CSVs into the results store.
#include "analysis/import.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "store/store.h"

namespace ec::cli {

void add_ingest_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("ingest",
                                 "Index energy.json reports and published CSVs (files or "
                                 "directories) into the results store");
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
    analysis_cli::report_problems(imported.problems);
    store::Store store =
        store::Store::open(o->db.empty() ? store::default_db_path() : std::filesystem::path(o->db));
    const store::IngestStats s = store.ingest(imported.rows);
    size_t not_measured = 0;
    for (const auto& r : imported.rows) not_measured += r.is_measured() ? 0 : 1;
    fmt::print(
        "{}: {} new, {} updated, {} unchanged runs from {} file(s); {} file(s) skipped; "
        "{} run(s) not measured (kept, never used as measurements); {} runs stored\n",
        store.path().string(), s.inserted, s.updated, s.unchanged, imported.files_read,
        imported.files_skipped, not_measured, store.count());
    if (imported.rows.empty()) throw ExitStatus{1};
  });
}

}  // namespace ec::cli
