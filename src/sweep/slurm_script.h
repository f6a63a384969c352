// `--emit-slurm`: an sbatch job-array script with one array task per unfinished cell; each task
// runs `ecocompute sweep --cell ID --out DIR` on shared storage.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sweep/manifest.h"

namespace ec::sweep {

struct SlurmOptions {
  std::string program;  // ecocompute as the compute nodes see it (ECOCOMPUTE overrides at run time)
  std::string job_name = "ecocompute-sweep";
  std::string time;                // --time, "" = the partition's default
  std::string partition;           // "" = the default partition
  int max_parallel = 0;            // the array's %N throttle, 0 = none
  int cpus_per_task = 0;           // 0 = not requested
  std::vector<std::string> extra;  // more #SBATCH options, verbatim
};

// The script for `cells` (ids). `dir` must be absolute (tasks run elsewhere). A GPU is requested
// (--gres=gpu:1) unless the sweep's backend is cpu. Throws ec::UsageError for a directory or option
// that an #SBATCH line cannot carry (whitespace, quotes).
std::string slurm_script(const Manifest& m, const std::vector<std::string>& cells,
                         const std::filesystem::path& dir, const SlurmOptions& options);

// The ids of the cells a (re-)submission must run: every cell that is not done.
std::vector<std::string> unfinished_cells(const Manifest& m);

// What the array task does: runs the cell's child, recording cells/<id>/status.json (running,
// then done or failed) atomically. Reads the manifest but never writes it (tasks run at the same
// time; `--collect` folds the status files in). Returns the exit status for the task: 0 when done.
int run_cell_task(const std::filesystem::path& dir, const std::string& cell_id,
                  const std::string& program);

}  // namespace ec::sweep
