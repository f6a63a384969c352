// The local scheduler: a slot per GPU (or one), polling children every 100 ms.
#include "sweep/local_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <deque>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"
#include "meter/gpu_select.h"
#include "sweep/cell_attempt.h"
#include "sweep/progress_line.h"
#include "sweep/resume.h"

namespace ec::sweep {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) {
  g_stop_signal = sig;
}

// SIGINT/SIGTERM handlers for the runner's lifetime; the previous ones come back afterwards.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a sleep is cut short
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

struct Slot {
  std::optional<int> gpu;
  pid_t pid = -1;
  size_t cell = 0;
  std::chrono::steady_clock::time_point started;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Stops and reaps every child still alive when the runner leaves, whatever the reason.
class ChildReaper {
 public:
  explicit ChildReaper(std::vector<Slot>& slots) : slots_(slots) {}
  ~ChildReaper() {
    for (auto& s : slots_) {
      if (s.pid <= 0) continue;
      ::kill(-s.pid, SIGKILL);
      int status = 0;
      while (::waitpid(s.pid, &status, 0) < 0 && errno == EINTR) {
      }
      s.pid = -1;
    }
  }

 private:
  std::vector<Slot>& slots_;
};

}  // namespace

LocalRunResult run_local(Manifest& m, const LocalRunOptions& o) {
  LocalRunResult result;
  const auto t0 = std::chrono::steady_clock::now();
  auto log = [&](const std::string& line) {
    if (o.progress) fmt::print(stderr, "\r\033[K");
    if (o.log) o.log(line);
  };
  const std::optional<std::string> sweep_visible = meter::cuda_visible_devices_env();

  std::vector<Slot> slots;
  if (o.gpus.empty()) {
    slots.push_back(Slot{});
  } else {
    for (int g : o.gpus) {
      visible_device_for(g, sweep_visible);  // a bad index is a usage error before anything runs
      Slot slot;
      slot.gpu = g;
      slots.push_back(slot);
    }
  }
  std::deque<size_t> queue;
  for (size_t i = 0; i < m.cells.size(); ++i) {
    if (m.cells[i].state == CellState::pending) queue.push_back(i);
  }
  CoolOff cool_off(o.cool_off);
  for (const auto& s : slots) {
    cool_off.record_idle(s.gpu.value_or(-1));
    if (auto idle = cool_off.idle_c(s.gpu.value_or(-1))) {
      log(fmt::format("GPU {}: idle temperature {:.0f} °C; cool-off waits for {:.0f} °C",
                      s.gpu ? std::to_string(*s.gpu) : "(default)", *idle,
                      *idle + *o.cool_off.within_c));
    }
  }

  StopSignals stop_signals;
  ChildReaper reaper(slots);
  double seconds_here = 0.0;
  size_t finished_here = 0;
  auto last_draw = std::chrono::steady_clock::time_point{};
  auto now_s = [&] { return seconds_since(t0); };

  auto draw = [&](bool force) {
    if (!o.progress) return;
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last_draw < std::chrono::milliseconds(500)) return;
    last_draw = now;
    size_t running = 0;
    for (const auto& s : slots) running += s.pid > 0 ? 1 : 0;
    const auto eta = eta_seconds(queue.size() + running, finished_here, seconds_here, slots.size());
    fmt::print(
        stderr, "\r\033[K{}",
        progress_text({m.cells.size(), m.count(CellState::done), result.failed, running}, eta));
    std::fflush(stderr);
  };

  auto reap = [&](Slot& s, int status) {
    Cell& cell = m.cells[s.cell];
    const double seconds = seconds_since(s.started);
    const ExitInfo how = decode_wait_status(status);
    std::optional<store::RunRow> row = finish_attempt(cell, m, o.dir, how, seconds);
    s.pid = -1;
    seconds_here += seconds;
    finished_here += 1;
    cool_off.cell_finished(s.gpu.value_or(-1), now_s());
    save_manifest(o.dir, m);
    const std::string where = s.gpu ? fmt::format(" on GPU {}", *s.gpu) : "";
    if (row) {
      result.done += 1;
      log(fmt::format("[{}/{}] {} done in {}{}", m.count(CellState::done), m.cells.size(),
                      cell.config.id, format_duration(seconds), where));
      if (o.on_report) o.on_report(*row);
    } else {
      result.failed += 1;
      log(fmt::format("{} FAILED{} after {}: {} (log: {})", cell.config.id, where,
                      format_duration(seconds), cell.error, (o.dir / cell.log()).string()));
    }
  };

  while (true) {
    // Reap whatever finished.
    for (auto& s : slots) {
      if (s.pid <= 0) continue;
      int status = 0;
      pid_t got = ::waitpid(s.pid, &status, WNOHANG);
      if (got == s.pid) reap(s, status);
    }
    if (g_stop_signal != 0) break;
    // Start cells on idle slots that have cooled off.
    for (auto& s : slots) {
      if (s.pid > 0 || queue.empty()) continue;
      std::string note;
      if (!cool_off.ready(s.gpu.value_or(-1), now_s(), note)) continue;
      if (!note.empty()) log(note);
      const size_t index = queue.front();
      queue.pop_front();
      Cell& cell = m.cells[index];
      reset_cell_dir(o.dir, cell);
      begin_attempt(cell, s.gpu);
      save_manifest(o.dir, m);  // running is on disk before the child exists
      try {
        s.pid = spawn_child(cell_child(m, cell, o.dir, o.program, s.gpu, sweep_visible));
      } catch (const Error& e) {
        finish_attempt(cell, m, o.dir, ExitInfo{}, 0.0);
        cell.error = e.what();
        save_manifest(o.dir, m);
        result.failed += 1;
        log(fmt::format("{} FAILED to start: {}", cell.config.id, e.what()));
        continue;
      }
      s.cell = index;
      s.started = std::chrono::steady_clock::now();
      result.started += 1;
    }
    bool busy = false;
    for (const auto& s : slots) busy = busy || s.pid > 0;
    if (!busy && queue.empty()) break;
    draw(false);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  if (g_stop_signal != 0) {
    result.interrupted = true;
    log(fmt::format("stopping on signal {}: running cells go back to pending",
                    static_cast<int>(g_stop_signal)));
    for (auto& s : slots) {
      if (s.pid > 0) ::kill(-s.pid, SIGTERM);
    }
    for (auto& s : slots) {
      if (s.pid <= 0) continue;
      int status = 0;
      // A child that ignores SIGTERM for 10 s gets SIGKILL.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (::waitpid(s.pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          ::kill(-s.pid, SIGKILL);
          ::waitpid(s.pid, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      Cell& cell = m.cells[s.cell];
      cell.state = CellState::pending;
      cell.error = "interrupted";
      s.pid = -1;
      reset_cell_dir(o.dir, cell);
    }
    save_manifest(o.dir, m);
  }
  if (o.progress) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  result.wall_s = seconds_since(t0);
  return result;
}

}  // namespace ec::sweep
