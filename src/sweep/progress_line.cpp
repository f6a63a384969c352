// Progress text and ETA arithmetic.
#include "sweep/progress_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ec::sweep {

std::optional<double> eta_seconds(size_t cells_left, size_t finished_here, double seconds_here,
                                  size_t slots) {
  if (finished_here == 0) return std::nullopt;
  const double per_cell = seconds_here / static_cast<double>(finished_here);
  // Cells run `slots` at a time: the remaining work takes ceil(left / slots) rounds.
  const double rounds =
      std::ceil(static_cast<double>(cells_left) / static_cast<double>(std::max<size_t>(slots, 1)));
  return rounds * per_cell;
}

std::string format_duration(double seconds) {
  if (seconds < 9.95) return fmt::format("{:.1f}s", std::max(seconds, 0.0));
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string progress_text(const ProgressCounts& c, std::optional<double> eta_s) {
  return fmt::format("sweep {}/{} done, {} failed, {} running, ETA {}", c.done, c.total, c.failed,
                     c.running, eta_s ? format_duration(*eta_s) : std::string("?"));
}

}  // namespace ec::sweep
