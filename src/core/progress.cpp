// Terminal progress line with rate and ETA, redrawn at most 10 times a second.
#include "core/progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace ec {

bool Progress::enabled() {
  return ::isatty(STDERR_FILENO) == 1 && std::getenv("EC_NO_PROGRESS") == nullptr;
}

Progress::Progress(std::string label, int64_t total)
    : label_(std::move(label)),
      total_(total),
      active_(enabled()),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
  finish();
}

void Progress::update(int64_t done) {
  if (!active_) return;
  auto now = std::chrono::steady_clock::now();
  if (done < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
  fmt::print(stderr, "\r\033[K{} {}/{} ({:.0f}%) {:.1f}/s, ETA {:.0f}s", label_, done, total_,
             total_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0,
             rate, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!active_ || finished_) return;
  finished_ = true;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace ec
