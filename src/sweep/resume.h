// Bringing a manifest read back from disk to a state a sweep can continue from.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sweep/manifest.h"

namespace ec::sweep {

struct ResumeOptions {
  bool retry_failed = true;  // failed cells run again (a transient failure should not stick)
};

// * cells/<id>/status.json written by a Slurm array task is folded in first;
// * `running`: the sweep that started it died (the caller holds the directory lock), so its partial
//   output is deleted and the cell is pending again;
// * `done` without its report on disk is pending again;
// * `failed` is pending again when options.retry_failed.
// Returns one line per cell it changed, for the user.
std::vector<std::string> prepare_resume(Manifest& m, const std::filesystem::path& dir,
                                        const ResumeOptions& options);

// Folds each cell's status.json (a Slurm task's record) into the manifest; returns the cells it
// updated. A malformed status file is reported and ignored.
std::vector<std::string> fold_cell_status(Manifest& m, const std::filesystem::path& dir);

// Removes the cell's directory (partial output of an attempt) and creates it empty.
void reset_cell_dir(const std::filesystem::path& dir, const Cell& cell);

}  // namespace ec::sweep
