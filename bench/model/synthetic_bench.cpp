// Benchmark (not a test): generate a preset's synthetic weights (default qwen2-0.5b, FP16) and
// report the rate in GB/s next to a plain memory fill of the same size measured in the same run.
// Usage: bench_synthetic [preset] [repeats]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "model/presets.h"
#include "model/synthetic.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string preset = argc > 1 ? argv[1] : "qwen2-0.5b";
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  try {
    const auto config = ec::model::preset_or_throw(preset);
    double best_gen = 1e30, best_fill = 1e30;
    double bytes = 0.0;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = Clock::now();
      const auto w = ec::model::make_synthetic_weights(config, static_cast<uint64_t>(r + 1));
      best_gen = std::min(best_gen, seconds_since(t0));
      bytes = static_cast<double>(config.parameter_count()) * 2.0;  // FP16
      // The ceiling: writing the same number of bytes once (first touch included, as above).
      const auto t1 = Clock::now();
      std::vector<unsigned char> fill(static_cast<size_t>(bytes));
      std::memset(fill.data(), r + 1, fill.size());
      best_fill = std::min(best_fill, seconds_since(t1));
      if (fill[fill.size() / 2] != static_cast<unsigned char>(r + 1)) return 1;
    }
    fmt::print("{} synthetic FP16 weights, {:.3f} GB, best of {}\n", preset, bytes / 1e9, repeats);
    fmt::print("| what | s | GB/s | ratio to fill |\n|---|---|---|---|\n");
    fmt::print("| generate | {:.2f} | {:.2f} | {:.2f} |\n", best_gen, bytes / best_gen / 1e9,
               best_fill / best_gen);
    fmt::print("| memset fill | {:.2f} | {:.2f} | 1.00 |\n", best_fill, bytes / best_fill / 1e9);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_synthetic: {}\n", e.what());
    return 1;
  }
  return 0;
}
