// The marker channel: a socket pair whose one end the command inherits; lines in, replies out.
#include "bench/marked_command.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "bench/marks.h"
#include "core/error.h"
#include "meter/metered_run.h"

namespace ec::bench {
namespace {

// Closes a descriptor once.
struct Fd {
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

report::RunRecord run_marked_command(meter::Meter& meter, const MarkedOptions& options,
                                     double idle_seconds,
                                     const std::function<void(const std::string&)>& log) {
  EC_CHECK(!options.command.empty(), "measure: no command given (measure --marks -- CMD ARGS...)");
  MarkSession session(meter, options);

  std::vector<meter::WindowResult> idle;
  if (meter.measures_energy() && idle_seconds > 0.0) {
    if (log) log(fmt::format("idle baseline: {:.1f} s", idle_seconds));
    meter.begin("idle");
    std::this_thread::sleep_for(std::chrono::duration<double>(idle_seconds));
    idle.push_back(meter.end());
  }

  int pair[2];
  EC_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0,
           "measure: socketpair failed: {}", std::strerror(errno));
  Fd ours{pair[0]};
  Fd theirs{pair[1]};
  meter::SpawnOptions spawn;
  spawn.env.emplace_back(std::string(kMarksFdEnv), std::to_string(theirs.fd));
  spawn.inherit_fd = theirs.fd;
  if (log)
    log(fmt::format("running {} with the marker channel on fd {}", options.command.front(),
                    theirs.fd));
  pid_t pid = meter::spawn_command(options.command, spawn);
  theirs.reset();  // only the command holds that end now: its exit ends the stream

  std::string buffer;
  char chunk[4096];
  bool peer_gone = false;
  while (!peer_gone) {
    ssize_t n = read(ours.fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
    size_t newline;
    while ((newline = buffer.find('\n')) != std::string::npos) {
      std::string line = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      std::string reply = session.handle(line);
      if (log && reply.rfind("error", 0) == 0) log(reply);
      if (!write_all(ours.fd, reply + "\n")) {
        peer_gone = true;
        break;
      }
    }
    if (buffer.size() > kMaxMarkLineBytes) {
      std::string reply = session.handle(buffer);  // refused as too long, and remembered
      write_all(ours.fd, reply + "\n");
      buffer.clear();
    }
  }
  if (!buffer.empty()) session.handle(buffer);  // a last line without its newline
  ours.reset();
  int status = meter::wait_command(pid);
  return session.finish(status, std::move(idle));
}

}  // namespace ec::bench
