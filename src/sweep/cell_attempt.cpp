// Starting and judging one attempt at a cell.
#include "sweep/cell_attempt.h"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "analysis/import.h"
#include "core/error.h"
#include "core/file_io.h"
#include "report/run_record.h"

namespace ec::sweep {

std::string visible_device_for(int gpu, const std::optional<std::string>& sweep_visible) {
  if (!sweep_visible) return std::to_string(gpu);
  std::vector<std::string> entries;
  size_t pos = 0;
  while (true) {
    size_t comma = sweep_visible->find(',', pos);
    entries.push_back(sweep_visible->substr(pos, comma == std::string::npos ? comma : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (gpu < 0 || static_cast<size_t>(gpu) >= entries.size() || entries[gpu].empty()) {
    fail_usage(
        "--gpus {}: CUDA_VISIBLE_DEVICES='{}' shows this sweep only {} GPU(s), numbered "
        "from 0",
        gpu, *sweep_visible, entries.size());
  }
  return entries[gpu];
}

ChildSpec cell_child(const Manifest& m, const Cell& cell, const std::filesystem::path& dir,
                     const std::string& program, std::optional<int> gpu,
                     const std::optional<std::string>& sweep_visible) {
  ChildSpec spec;
  spec.program = program;
  spec.args = run_arguments(m.spec, cell.config, dir / cell.report(), gpu.has_value());
  // A wrapper (numactl, a profiler, a test's fault injector) runs as WRAPPER ECOCOMPUTE run ….
  if (const char* wrapper = std::getenv("EC_SWEEP_CHILD_WRAPPER"); wrapper && *wrapper) {
    spec.args.insert(spec.args.begin(), program);
    spec.program = wrapper;
  }
  spec.log = dir / cell.log();
  if (gpu) spec.env.emplace_back("CUDA_VISIBLE_DEVICES", visible_device_for(*gpu, sweep_visible));
  // The child's own progress line would only fill the log with redraws.
  spec.env.emplace_back("EC_NO_PROGRESS", "1");
  return spec;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

void begin_attempt(Cell& cell, std::optional<int> gpu) {
  cell.state = CellState::running;
  cell.attempts += 1;
  cell.gpu = gpu;
  cell.host = host_name();
  cell.started_utc = report::utc_timestamp_now();
  cell.finished_utc.clear();
  cell.seconds.reset();
  cell.exit_status.reset();
  cell.signal.reset();
  cell.error.clear();
  cell.run_id.clear();
}

std::optional<store::RunRow> finish_attempt(Cell& cell, const Manifest& m,
                                            const std::filesystem::path& dir, const ExitInfo& how,
                                            double seconds) {
  cell.finished_utc = report::utc_timestamp_now();
  cell.seconds = seconds;
  cell.exit_status = how.exit_status;
  cell.signal = how.signal;
  const auto report = dir / cell.report();
  auto failed = [&](std::string why) -> std::optional<store::RunRow> {
    cell.state = CellState::failed;
    std::string last = last_log_line(dir / cell.log());
    cell.error = last.empty() ? why : fmt::format("{}: {}", why, last);
    return std::nullopt;
  };
  if (!how.success()) return failed(describe(how));
  std::error_code ec;
  if (!std::filesystem::exists(report, ec)) return failed("exit status 0 but no report written");
  try {
    store::RunRow row = analysis::import_report(read_file(report), report);
    row.session = m.session;
    cell.state = CellState::done;
    cell.run_id = row.run_id;
    return row;
  } catch (const Error& e) {
    return failed(fmt::format("the report does not read back ({})", e.what()));
  }
}

}  // namespace ec::sweep
