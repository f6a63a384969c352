// The three things `ecocompute sweep` does with a directory: run its cells here, emit a Slurm array
// for them, or collect what a Slurm array produced. The CLI only parses flags and prints.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "store/run_row.h"
#include "sweep/cool_off.h"
#include "sweep/local_runner.h"
#include "sweep/manifest.h"
#include "sweep/slurm_script.h"

namespace ec::sweep {

// The manifest of `dir` for `spec`: a new one (session "sweep-<UTC time>" unless given) or the one
// already there, which must have the same spec (ec::UsageError listing every difference otherwise).
Manifest open_manifest(const std::filesystem::path& dir, const SweepSpec& spec,
                       const std::string& session);

// The reports of every done cell, read back with the sweep's session; a report that no longer reads
// is a problem line, and its cell goes back to pending.
struct CollectedRuns {
  std::vector<store::RunRow> rows;
  std::vector<std::string> problems;
};
CollectedRuns read_done_reports(Manifest& m, const std::filesystem::path& dir);

// The results store of a sweep: `db`, else DIR/store.sqlite.
std::filesystem::path sweep_db_path(const std::filesystem::path& dir,
                                    const std::filesystem::path& db);

struct SweepRun {
  Manifest manifest;
  std::vector<std::string> notes;  // what resuming changed
  LocalRunResult run;
  CollectedRuns collected;
  std::filesystem::path db;
};

struct RunRequest {
  std::filesystem::path dir;
  SweepSpec spec;
  std::string session;
  std::filesystem::path db;  // "" = DIR/store.sqlite
  bool retry_failed = true;
  LocalRunOptions local;  // dir is filled in from `dir`
};

// Locks DIR, creates or resumes its manifest, runs the pending cells, ingests every done cell into
// the store.
SweepRun run_sweep(const RunRequest& request);

struct EmitResult {
  Manifest manifest;
  std::vector<std::string> cells;    // the array's cells, in task order
  std::vector<std::string> running;  // cells a Slurm task marked running (maybe still alive)
  std::filesystem::path script;
  std::vector<std::string> notes;
};
// Writes DIR/manifest.json and DIR/sweep.sbatch (the unfinished cells only); creates DIR/slurm/
// for the tasks' output.
EmitResult emit_slurm(const std::filesystem::path& dir, const SweepSpec& spec,
                      const std::string& session, const SlurmOptions& options);

// Folds the tasks' status files into the manifest, ingests the done cells into the store.
SweepRun collect(const std::filesystem::path& dir, const std::filesystem::path& db);

}  // namespace ec::sweep
