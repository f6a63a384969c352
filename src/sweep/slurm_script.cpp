// The sbatch script text and the array task's body.
#include "sweep/slurm_script.h"

#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_io.h"
#include "report/run_record.h"
#include "sweep/cell_attempt.h"
#include "sweep/resume.h"

namespace ec::sweep {
namespace {

void check_sbatch_safe(const std::string& text, const char* what) {
  if (text.find_first_of(" \t\n'\"\\$`") != std::string::npos) {
    fail_usage("{} '{}': an sbatch script cannot carry whitespace, quotes, '$' or '\\' here", what,
               text);
  }
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

std::vector<std::string> unfinished_cells(const Manifest& m) {
  std::vector<std::string> ids;
  for (const auto& c : m.cells) {
    if (c.state != CellState::done) ids.push_back(c.config.id);
  }
  return ids;
}

std::string slurm_script(const Manifest& m, const std::vector<std::string>& cells,
                         const std::filesystem::path& dir, const SlurmOptions& o) {
  if (!dir.is_absolute())
    fail_usage("--emit-slurm {}: the directory must be absolute", dir.string());
  if (cells.empty()) fail("{}: every cell is done; nothing to submit", dir.string());
  check_sbatch_safe(dir.string(), "sweep directory");
  check_sbatch_safe(o.program, "ecocompute path");
  check_sbatch_safe(o.job_name, "--slurm-job-name");
  std::string s = "#!/bin/bash\n";
  s += fmt::format(
      "# Written by `ecocompute sweep --emit-slurm` at {}: {} array task(s), one per unfinished "
      "cell\n"
      "# of the sweep in {} ({} cells in all). Results go to that directory (shared storage).\n"
      "# Submit: sbatch {}/sweep.sbatch   Afterwards: ecocompute sweep --collect {}\n"
      "# Re-emit after a partial run to list only the cells still unfinished.\n",
      report::utc_timestamp_now(), cells.size(), dir.string(), m.cells.size(), dir.string(),
      dir.string());
  s += fmt::format("#SBATCH --job-name={}\n", o.job_name);
  s += fmt::format("#SBATCH --array=0-{}{}\n", cells.size() - 1,
                   o.max_parallel > 0 ? fmt::format("%{}", o.max_parallel) : "");
  s += fmt::format("#SBATCH --output={}/slurm/%A_%a.out\n", dir.string());
  s += "#SBATCH --ntasks=1\n";
  // One card per cell: a replicate is metered on its own device only.
  if (m.spec.backend != "cpu") s += "#SBATCH --gres=gpu:1\n";
  if (o.cpus_per_task > 0) s += fmt::format("#SBATCH --cpus-per-task={}\n", o.cpus_per_task);
  if (!o.time.empty()) {
    check_sbatch_safe(o.time, "--slurm-time");
    s += fmt::format("#SBATCH --time={}\n", o.time);
  }
  if (!o.partition.empty()) {
    check_sbatch_safe(o.partition, "--slurm-partition");
    s += fmt::format("#SBATCH --partition={}\n", o.partition);
  }
  for (const auto& e : o.extra) {
    if (e.find('\n') != std::string::npos) fail_usage("--slurm-option '{}': one line only", e);
    s += fmt::format("#SBATCH {}\n", e);
  }
  s += "set -euo pipefail\n";
  s += fmt::format("SWEEP_DIR='{}'\n", dir.string());
  s += fmt::format("ECOCOMPUTE=\"${{ECOCOMPUTE:-{}}}\"\n", o.program);
  s += "CELLS=(\n";
  for (const auto& id : cells) {
    check_sbatch_safe(id, "cell id");
    s += fmt::format("  '{}'\n", id);
  }
  s += ")\n";
  s +=
      "exec \"$ECOCOMPUTE\" sweep --out \"$SWEEP_DIR\" --cell \"${CELLS[$SLURM_ARRAY_TASK_ID]}\"\n";
  return s;
}

int run_cell_task(const std::filesystem::path& dir, const std::string& cell_id,
                  const std::string& program) {
  std::optional<Manifest> loaded = load_manifest(dir);
  if (!loaded) fail("{}: no sweep manifest here (manifest.json)", dir.string());
  Manifest& m = *loaded;
  Cell* found = m.find(cell_id);
  if (found == nullptr) fail("{}: the manifest has no cell '{}'", dir.string(), cell_id);
  Cell cell = *found;
  // Attempts count across resubmissions: the previous task's status file knows them.
  fold_cell_status(m, dir);
  cell.attempts = m.find(cell_id)->attempts;
  reset_cell_dir(dir, cell);
  begin_attempt(cell, std::nullopt);
  const std::string job = env_or_empty("SLURM_ARRAY_JOB_ID");
  const std::string task = env_or_empty("SLURM_ARRAY_TASK_ID");
  if (!job.empty()) cell.slurm_job = job + "_" + task;
  write_file_atomic(dir / cell.status(), to_json(cell).dump(2) + "\n");
  // Under Slurm the child keeps the job's own CUDA_VISIBLE_DEVICES (its --gres allocation).
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = spawn_child(cell_child(m, cell, dir, program, std::nullopt, std::nullopt));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail("waitpid: {}", std::strerror(errno));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  finish_attempt(cell, m, dir, decode_wait_status(status), seconds);
  write_file_atomic(dir / cell.status(), to_json(cell).dump(2) + "\n");
  fmt::print(stderr, "ecocompute: cell {}: {}{}\n", cell.config.id, state_name(cell.state),
             cell.error.empty() ? "" : " (" + cell.error + ")");
  return cell.state == CellState::done ? 0 : 1;
}

}  // namespace ec::sweep
