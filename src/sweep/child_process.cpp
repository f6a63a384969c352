// fork/execve with the log as stdout/stderr, a death signal tied to the parent and a new process
// group.
#include "sweep/child_process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include "core/error.h"

extern char** environ;

namespace ec::sweep {
namespace {

// Written with write(2) only: the code between fork and exec must be async-signal-safe.
void child_fail(int fd, const char* what, int err) {
  const char* reason = std::strerror(err);
  [[maybe_unused]] ssize_t n = ::write(fd, "ecocompute sweep: ", 18);
  n = ::write(fd, what, std::strlen(what));
  n = ::write(fd, ": ", 2);
  n = ::write(fd, reason, std::strlen(reason));
  n = ::write(fd, "\n", 1);
  ::_exit(127);
}

}  // namespace

pid_t spawn_child(const ChildSpec& spec) {
  // Everything that allocates happens before fork.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [key, value] : spec.env) replaced = replaced || key == name;
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [key, value] : spec.env) {
    if (value) env_strings.push_back(key + "=" + *value);
  }
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string program = spec.program;
  argv.push_back(program.data());
  std::vector<std::string> args = spec.args;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int log_fd = ::open(spec.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0)
    fail("{}: cannot create the cell's log: {}", spec.log.string(), std::strerror(errno));
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(log_fd);
    fail("cannot start a child process for {}: fork: {}", spec.log.string(), std::strerror(err));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(log_fd, "prctl", errno);
    if (::getppid() != parent) ::_exit(128 + SIGKILL);  // the sweep died before prctl took hold
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0) child_fail(log_fd, "/dev/null", errno);
    if (::dup2(log_fd, STDOUT_FILENO) < 0 || ::dup2(log_fd, STDERR_FILENO) < 0) {
      child_fail(log_fd, "dup2", errno);
    }
    ::execve(argv[0], argv.data(), envp.data());
    child_fail(STDERR_FILENO, argv[0], errno);
  }
  ::close(log_fd);
  return pid;
}

ExitInfo decode_wait_status(int status) {
  ExitInfo e;
  if (WIFEXITED(status)) e.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

std::string describe(const ExitInfo& e) {
  if (e.exit_status) return fmt::format("exit status {}", *e.exit_status);
  if (e.signal) {
    const char* abbrev = sigabbrev_np(*e.signal);
    return fmt::format("killed by signal {} (SIG{})", *e.signal, abbrev ? abbrev : "?");
  }
  return "ended in an unknown way";
}

std::string self_executable() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) fail("/proc/self/exe: cannot find this program's path: {}", ec.message());
  return exe.string();
}

std::string last_log_line(const std::filesystem::path& log, size_t max_chars) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return {};
  // The tail is enough: logs of long runs hold one line per stage.
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff start = size > 8192 ? size - 8192 : 0;
  in.seekg(start);
  std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string last;
  size_t pos = 0;
  while (pos < tail.size()) {
    size_t nl = tail.find('\n', pos);
    std::string line = tail.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    // A progress line redraws with \r; keep the last drawing.
    if (auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
    if (line.find_first_not_of(" \t") != std::string::npos) last = line;
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  if (last.size() > max_chars) last = last.substr(0, max_chars) + "…";
  return last;
}

}  // namespace ec::sweep
