// One child process of a sweep: this same binary, its output in a log file, its own environment,
// and tied to the sweep's life (a sweep killed with -9 takes its children with it).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ec::sweep {

struct ChildSpec {
  std::string program;            // absolute path of the executable
  std::vector<std::string> args;  // after argv[0]
  std::filesystem::path log;      // stdout and stderr, truncated; stdin is /dev/null
  // Variables to set (value) or remove (nullopt) on top of this process's environment.
  std::vector<std::pair<std::string, std::optional<std::string>>> env;
};

// Starts the child in its own process group (a terminal's Ctrl-C reaches only the sweep, which then
// stops its children in order) with PR_SET_PDEATHSIG = SIGKILL. Throws ec::Error naming the log
// file when it cannot be created, or the reason fork failed. A program that cannot be executed
// exits 127 with the reason in its log.
pid_t spawn_child(const ChildSpec& spec);

// How a child ended: an exit status or a signal.
struct ExitInfo {
  std::optional<int> exit_status;
  std::optional<int> signal;
  bool success() const { return exit_status && *exit_status == 0; }
};
ExitInfo decode_wait_status(int status);
// "exit status 2", "killed by signal 6 (SIGABRT)".
std::string describe(const ExitInfo& e);

// The running executable (/proc/self/exe), so children run exactly this build.
std::string self_executable();

// The last non-empty line of a log (at most `max_chars` of it): the child's own error message.
std::string last_log_line(const std::filesystem::path& log, size_t max_chars = 300);

}  // namespace ec::sweep
