// Resume rules: what a killed sweep or a finished Slurm array left behind becomes manifest state.
#include "sweep/resume.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_io.h"

namespace ec::sweep {

void reset_cell_dir(const std::filesystem::path& dir, const Cell& cell) {
  std::error_code ec;
  const auto path = dir / cell.dir();
  std::filesystem::remove_all(path, ec);
  if (ec) fail("{}: cannot remove a previous attempt's output: {}", path.string(), ec.message());
  std::filesystem::create_directories(path, ec);
  if (ec) fail("{}: cannot create the cell directory: {}", path.string(), ec.message());
}

std::vector<std::string> fold_cell_status(Manifest& m, const std::filesystem::path& dir) {
  std::vector<std::string> notes;
  for (auto& c : m.cells) {
    const auto path = dir / c.status();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    Cell from_task = c;
    try {
      cell_result_from_json(nlohmann::json::parse(read_file(path)), from_task, path.string());
    } catch (const std::exception& e) {
      notes.push_back(fmt::format("{}: ignored: {}", path.string(), e.what()));
      continue;
    }
    // A task's record is newer than the manifest unless the manifest saw a later attempt.
    if (from_task.started_utc >= c.started_utc &&
        (from_task.state != c.state || from_task.finished_utc != c.finished_utc)) {
      notes.push_back(fmt::format("{}: {} (from {})", c.config.id, state_name(from_task.state),
                                  c.status().string()));
      c = from_task;
    }
  }
  return notes;
}

std::vector<std::string> prepare_resume(Manifest& m, const std::filesystem::path& dir,
                                        const ResumeOptions& options) {
  std::vector<std::string> notes = fold_cell_status(m, dir);
  for (auto& c : m.cells) {
    std::error_code ec;
    switch (c.state) {
      case CellState::running:
        notes.push_back(
            fmt::format("{}: was running when the sweep stopped; its partial output "
                        "is discarded and it runs again",
                        c.config.id));
        reset_cell_dir(dir, c);
        c.state = CellState::pending;
        break;
      case CellState::done:
        if (!std::filesystem::exists(dir / c.report(), ec)) {
          notes.push_back(fmt::format("{}: marked done but {} is missing; it runs again",
                                      c.config.id, c.report().string()));
          c.state = CellState::pending;
        }
        break;
      case CellState::failed:
        if (options.retry_failed) {
          notes.push_back(fmt::format("{}: failed before ({}); it runs again", c.config.id,
                                      c.error.empty() ? "no reason recorded" : c.error));
          c.state = CellState::pending;
        }
        break;
      case CellState::pending:
        break;
    }
  }
  return notes;
}

}  // namespace ec::sweep
