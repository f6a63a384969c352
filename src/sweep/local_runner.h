// Running a sweep's pending cells on this host: one child at a time, or one per GPU in parallel,
// with cool-off, the manifest saved after every change, and an orderly stop on SIGINT/SIGTERM.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/run_row.h"
#include "sweep/cool_off.h"
#include "sweep/manifest.h"

namespace ec::sweep {

struct LocalRunOptions {
  std::filesystem::path dir;
  std::string program;    // the child executable (this binary)
  std::vector<int> gpus;  // empty: one child at a time on the default device
  CoolOffPolicy cool_off;
  std::function<void(const store::RunRow&)> on_report;  // each finished cell's report (the store)
  std::function<void(const std::string&)> log;          // one line per event
  bool progress = false;                                // draw a progress line on stderr
};

struct LocalRunResult {
  size_t started = 0;
  size_t done = 0;
  size_t failed = 0;
  bool interrupted = false;  // SIGINT/SIGTERM: running cells went back to pending
  double wall_s = 0.0;
};

// Runs every pending cell of `m` (the caller holds the directory lock and ran prepare_resume).
// Throws ec::Error when the manifest cannot be written; the children are stopped first and the
// cells they ran stay `running` on disk, so the next sweep re-runs them.
LocalRunResult run_local(Manifest& m, const LocalRunOptions& options);

}  // namespace ec::sweep
