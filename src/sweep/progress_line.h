// The sweep's progress line: cells finished, failed and running, and an ETA from this invocation's
// own cell times.
#pragma once

#include <optional>
#include <string>

namespace ec::sweep {

struct ProgressCounts {
  size_t total = 0;    // cells in the sweep
  size_t done = 0;     // done, this run or before
  size_t failed = 0;   // failed in this run
  size_t running = 0;  // children alive now
};

// Seconds left: the cells not yet finished, at the mean time of the cells finished so far in this
// invocation, spread over `slots` parallel children. nullopt before any cell has finished.
std::optional<double> eta_seconds(size_t cells_left, size_t finished_here, double seconds_here,
                                  size_t slots);

// "sweep 3/12 done, 1 failed, 2 running, ETA 4m10s" (ETA "?" when unknown).
std::string progress_text(const ProgressCounts& c, std::optional<double> eta_s);

// "0.2s", "45s", "4m10s", "2h03m".
std::string format_duration(double seconds);

}  // namespace ec::sweep
