// One attempt at a cell, shared by the local runner and a Slurm array task: the child's command
// line and environment, and turning how it ended into the cell's state.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "store/run_row.h"
#include "sweep/child_process.h"
#include "sweep/manifest.h"

namespace ec::sweep {

// The CUDA_VISIBLE_DEVICES value that shows a child only GPU `gpu` of the sweep's numbering: the
// entry of the sweep's own CUDA_VISIBLE_DEVICES when that is set, else the index itself. Throws
// ec::UsageError when the index is beyond that list.
std::string visible_device_for(int gpu, const std::optional<std::string>& sweep_visible);

// The child for `cell`: `program run …` with its report and log in the cell directory. With `gpu`
// the child sees only that device (CUDA_VISIBLE_DEVICES) and meters it as --gpu 0. When
// EC_SWEEP_CHILD_WRAPPER names an executable, the child is `WRAPPER program run …`.
ChildSpec cell_child(const Manifest& m, const Cell& cell, const std::filesystem::path& dir,
                     const std::string& program, std::optional<int> gpu,
                     const std::optional<std::string>& sweep_visible);

// Marks the cell running on this host and clears the previous attempt's results.
void begin_attempt(Cell& cell, std::optional<int> gpu);

// Records how the child ended. Done means exit status 0 and a report that reads back; the report's
// row (session set to the sweep's) is returned for the store. Failed cells get a one-line error
// with the child's last log line.
std::optional<store::RunRow> finish_attempt(Cell& cell, const Manifest& m,
                                            const std::filesystem::path& dir, const ExitInfo& how,
                                            double seconds);

// This machine's host name ("" when unknown).
std::string host_name();

}  // namespace ec::sweep
