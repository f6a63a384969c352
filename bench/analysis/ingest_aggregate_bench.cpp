// Benchmark (not a test): N synthetic energy.json reports (default 100,000) → import (walk + parse)
// → SQLite ingest (one transaction, WAL) → read back → aggregate. Prints seconds per stage.
// Usage: ingest_aggregate_bench [N] [scratch-dir] [reuse]
//   reuse: keep the reports of an earlier `reuse` run in scratch-dir (and leave them there), so
//   repeated timings and profiles skip the untimed writing.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string_view>

#include <sys/resource.h>

#include "analysis/aggregate.h"
#include "analysis/import.h"
#include "store/store.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A report shaped like ours: the original's 1.1 fields plus engine/build/meter blocks.
std::string synthetic_report(int i, std::mt19937& rng) {
  static const char* models[] = {"Qwen/Qwen2-0.5B", "TinyLlama/TinyLlama-1.1B-Chat-v1.0",
                                 "Qwen/Qwen2-1.5B", "Qwen/Qwen2.5-3B", "Qwen/Qwen2-7B"};
  static const double sizes[] = {0.5, 1.1, 1.5, 3.0, 7.0};
  static const char* formats[] = {"int8-llm", "int8-wo", "nf4", "nf4-dq"};
  std::normal_distribution<double> noise(1.0, 0.02);
  const int m = i % 5;
  const int f = (i / 5) % 4;
  const double fp16 = 1500.0 * sizes[m] * noise(rng);
  const double quant = fp16 * (f < 2 ? 1.8 : 0.8) * noise(rng);
  // Consistent as every stored report must be: power / throughput = energy per token.
  const double throughput = 400.0 * noise(rng);
  nlohmann::json j = {
      {"schema_version", "ecocompute-energy/1.1"},
      {"benchmark", "ecocompute-energy-methodology"},
      {"scenario", "SingleStream"},
      {"run_id", fmt::format("bench-{:06d}", i)},
      {"session", fmt::format("session-{}", i % 20)},
      {"replicate", i / 400 + 1},  // replicates count from 1 (row_checks.cpp)
      {"timestamp_utc", "2026-09-01T10:00:00Z"},
      {"system_under_test",
       {{"gpu", "NVIDIA H200"}, {"gpu_arch", "hopper"}, {"accelerator_count", 1}}},
      {"workload",
       {{"model_name", models[m]},
        {"params_b", sizes[m]},
        {"precision", f < 2 ? "INT8" : "NF4"},
        {"batch_size", 1},
        {"context_length", 2048}}},
      {"measurement",
       {{"method", "nvml energy counter"},
        {"sample_rate_hz", 50},
        {"tokens_per_run", 256},
        {"iterations", 10},
        {"warmup", 2}}},
      {"engine",
       {{"weight_format", formats[f]},
        {"backend", "cuda"},
        {"kernels", {{"gemv", "v3"}, {"attention", "v2"}}}}},
      {"build", {{"version", "0.1.0"}, {"commit", "174c438abcde"}, {"cuda", "12.4"}}},
      {"meter", {{"method", "energy-counter"}, {"samples", 800 + i % 50}}},
      {"software", {{"nvidia_driver", "550.54.15"}}},
      {"measurement_source", "nvml_total_energy_counter"},
      {"results",
       {{"total_energy_joules", quant * 2.56},
        {"tokens_generated", 2560},
        {"energy_per_token_mj", quant},
        {"fp16_energy_per_token_mj", fp16},
        {"vs_fp16_energy_pct", (quant / fp16 - 1) * 100},
        {"avg_power_watts", quant / 1000.0 * throughput},
        {"throughput_tokens_per_s", throughput},
        {"basis", "measured"}}},
      {"quality",
       {{"metric", "perplexity"},
        {"basis", "measured"},
        {"value", 10.1},
        {"fp16_value", 9.62},
        {"delta_vs_fp16_pct", 4.99}}}};
  return j.dump(2);
}

// CPU seconds of this process (user + system): a figure that a loaded machine does not inflate.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::stoi(argv[1]) : 100000;
  const fs::path dir =
      argc > 2 ? fs::path(argv[2]) : fs::temp_directory_path() / "ec-bench-analysis";
  const bool reuse = argc > 3 && std::string_view(argv[3]) == "reuse";
  const bool have = reuse &&
                    fs::exists(dir / "reports" / fmt::format("{:04d}", (n - 1) / 100) /
                               fmt::format("r{:06d}.energy.json", n - 1)) &&
                    !fs::exists(dir / "reports" / fmt::format("{:04d}", n / 100) /
                                fmt::format("r{:06d}.energy.json", n));
  if (!have) fs::remove_all(dir);
  fs::remove(dir / "results.sqlite");
  fs::remove(dir / "results.sqlite-wal");
  fs::remove(dir / "results.sqlite-shm");
  fs::create_directories(dir / "reports");
  std::mt19937 rng(42);
  size_t bytes = 0;
  for (int i = 0; i < n && !have; ++i) {
    // 100 reports per directory, like a sweep's output tree.
    const fs::path sub = dir / "reports" / fmt::format("{:04d}", i / 100);
    if (i % 100 == 0) fs::create_directories(sub);
    const std::string text = synthetic_report(i, rng);
    bytes += text.size();
    std::ofstream(sub / fmt::format("r{:06d}.energy.json", i)) << text;
  }
  if (have) {
    fmt::print("reusing {} reports in {} (not timed)\n", n, (dir / "reports").string());
  } else {
    fmt::print("wrote {} reports, {:.1f} MB (not timed)\n", n, static_cast<double>(bytes) / 1e6);
  }

  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  const std::vector<fs::path> paths{dir / "reports"};
  const auto imported = ec::analysis::import_paths(paths);
  const double t_import = seconds_since(t0);
  const double cpu_import = cpu_seconds() - cpu0;

  const auto t1 = Clock::now();
  auto store = ec::store::Store::open(dir / "results.sqlite");
  const auto stats = store.ingest(imported.rows);
  const double t_ingest = seconds_since(t1);
  const double cpu_ingest = cpu_seconds() - cpu0 - cpu_import;

  const auto t2 = Clock::now();
  const auto rows = store.runs();
  const double t_read = seconds_since(t2);

  const auto t3 = Clock::now();
  const auto result = ec::analysis::aggregate(rows);
  const double t_aggregate = seconds_since(t3);

  fmt::print(
      "import (walk + parse) {:.2f} s ({:.2f} s CPU); SQLite ingest {:.2f} s ({:.2f} s CPU, "
      "{} new); read back {:.2f} s; aggregate {:.2f} s ({} configurations)\n",
      t_import, cpu_import, t_ingest, cpu_ingest, stats.inserted, t_read, t_aggregate,
      result.configs.size());
  fmt::print("total ingest + aggregate: {:.2f} s wall, {:.2f} s CPU for {} reports ({} problems)\n",
             t_import + t_ingest + t_read + t_aggregate, cpu_seconds() - cpu0, n,
             imported.problems.size());
  if (!reuse) fs::remove_all(dir);
  return imported.problems.empty() && stats.inserted == static_cast<size_t>(n) ? 0 : 1;
}
