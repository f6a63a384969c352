// fork/exec of the metered command, exit-status forwarding and the meter report.
#include "meter/metered_run.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "core/error.h"
#include "meter/idle_baseline.h"
#include "meter/window_json.h"

namespace ec::meter {
namespace {

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Starts argv; returns the pid. A close-on-exec pipe carries exec's errno back to the parent.
pid_t spawn(const std::vector<std::string>& argv) {
  int fds[2];
  EC_CHECK(pipe2(fds, O_CLOEXEC) == 0, "measure: pipe failed: {}", std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    fail("measure: fork failed: {}", std::strerror(err));
  }
  if (pid == 0) {
    close(fds[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    int err = errno;
    ssize_t ignored = write(fds[1], &err, sizeof(err));
    (void)ignored;
    _exit(127);
  }
  close(fds[1]);
  int err = 0;
  ssize_t n;
  do {
    n = read(fds[0], &err, sizeof(err));
  } while (n < 0 && errno == EINTR);
  close(fds[0]);
  if (n == static_cast<ssize_t>(sizeof(err))) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    fail("measure: cannot run '{}': {}", argv[0], std::strerror(err));
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail("measure: waitpid failed: {}", std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

nlohmann::json co2e_json(double energy_j, double grid_gco2_per_kwh, double pue) {
  double kwh = energy_j / 3.6e6;
  return {{"co2e_g", kwh * pue * grid_gco2_per_kwh},
          {"energy_kwh", kwh},
          {"grid_gco2_per_kwh", grid_gco2_per_kwh},
          {"pue", pue},
          {"basis", "derived"},
          {"note",
           "derived from measured energy and user-supplied grid intensity and PUE; not measured"}};
}

MeasureResult measure_command(Meter& meter, const std::vector<std::string>& argv,
                              const MeasureOptions& options) {
  EC_CHECK(!argv.empty(), "measure: no command given (usage: ecocompute measure -- CMD ARGS...)");
  MeasureResult result;
  auto& report = result.report;
  report["schema"] = "ecocompute/meter-report/1";
  report["command"] = argv;
  report["started_at"] = utc_now();

  std::optional<IdleBaseline> idle;
  // An idle baseline without energy is only a wait.
  if (options.idle_seconds > 0.0 && meter.measures_energy()) {
    idle = measure_idle(meter, options.idle_seconds);
  }

  meter.begin("run");
  pid_t pid;
  try {
    pid = spawn(argv);
  } catch (...) {
    meter.end();
    throw;
  }
  result.exit_status = wait_for(pid);
  WindowResult run = meter.end();

  report["exit_status"] = result.exit_status;
  report["meter"] = meter.describe();
  report["idle"] = idle ? to_json(*idle) : nlohmann::json(nullptr);
  report["run"] = to_json(run);
  if (run.energy_j) {
    report["basis"] = "measured";
  } else {
    report["basis"] = "unavailable";
    std::string why = run.telemetry.value("energy_unavailable_reason", std::string());
    if (why.empty()) why = meter.unavailable_reason();
    if (why.empty()) why = "the meter produced no energy figure";
    report["note"] = why;
  }
  if (idle) {
    if (auto above = energy_above_idle_j(run, *idle)) report["energy_above_idle_j"] = *above;
  }
  if (options.grid_gco2_per_kwh && run.energy_j) {
    report["co2e"] =
        co2e_json(*run.energy_j, *options.grid_gco2_per_kwh, options.pue.value_or(1.0));
  }
  return result;
}

}  // namespace ec::meter
