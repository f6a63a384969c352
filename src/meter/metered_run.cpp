// fork/exec of the metered command, exit-status forwarding and the meter report.
#include "meter/metered_run.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <string_view>

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

}  // namespace

pid_t spawn_command(const std::vector<std::string>& argv, const SpawnOptions& options) {
  EC_CHECK(!argv.empty(), "measure: no command given");
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : options.env) {
      if (entry.size() > name.size() && entry.substr(0, name.size()) == name &&
          entry[name.size()] == '=') {
        replaced = true;
      }
    }
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : options.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // A close-on-exec pipe carries exec's errno back to the parent.
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
    int err = 0;
    if (options.inherit_fd >= 0 && fcntl(options.inherit_fd, F_SETFD, 0) != 0) {
      err = errno;
    } else {
      execvpe(args[0], args.data(), envp.data());
      err = errno;
    }
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

int wait_command(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail("measure: waitpid failed: {}", std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

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
    pid = spawn_command(argv);
  } catch (...) {
    meter.end();
    throw;
  }
  result.exit_status = wait_command(pid);
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
