// End-to-end decode benchmark of the CUDA engine: for every preset × format, synthetic weights
// (the project's generator), the engine built once, a short prompt prefilled, then N greedy tokens
// decoded one at a time exactly as `ecocompute run` does (decode_greedy: one graph replay and one
// host round trip per token). Prints tok/s, weight GB/s and % of the device-to-device copy ceiling
// measured in the same run, and energy from the NVML counter when the meter has it. Then the same
// tokens again with the steps chained on the device (decode_greedy_many: no host round trip
// between steps): "chained tok/s" and its ratio to tok/s say what the host's round trip per token
// costs. "× FP16" is a row's tok/s over the same model's FP16 tok/s in this process (FP16 runs
// first whenever it is listed), and in brackets the ratio of their bytes per token: what the row
// would reach at FP16's % of copy, the bound a faster kernel alone approaches. Every run of a
// format must decode the same tokens (greedy decoding is deterministic here); a row that did not
// says MISMATCH, and the exit status is 1. Kernels as `run` chooses them: the tuning table shipped
// for this GPU, another (--tuning-table FILE, or none for the heuristic), or a report's strings
// (--kernel-variants). The decode attention's KV slices are sized, as `run` sizes them, for the
// prompt and the new tokens, or for --decode-length positions (one slice per 64, at most 8; the
// cache then holds that many).
//   bench_decode [--models a,b] [--formats fp16,int8-wo,...] [--tokens 256] [--prompt 16]
//                [--iters 2] [--json FILE] [--configs-dir DIR] [--tuning-table FILE|none]
//                [--kernel-variants STRINGS] [--decode-length N]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bench_main.h"
#include "common/comma_list.h"
#include "common/copy_ceiling.h"
#include "core/error.h"
#include "engine/cuda/cuda_check.cuh"
#include "engine/engine.h"
#include "engine/tuning_table.h"
#include "meter/meter.h"
#include "model/config.h"
#include "model/presets.h"
#include "model/synthetic.h"

namespace ec::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int run(int argc, char** argv) {
  std::string models = "qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b";
  std::string formats = "fp16,int8-wo,nf4,nf4-dq,int8";
  std::string json_path, configs_dir, tuning_table, kernel_variants;
  int tokens = 256, prompt_len = 16, iters = 2, decode_length = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--models") models = v;
    if (k == "--formats") formats = v;
    if (k == "--tokens") tokens = std::stoi(v);
    if (k == "--prompt") prompt_len = std::stoi(v);
    if (k == "--iters") iters = std::stoi(v);
    if (k == "--json") json_path = v;
    if (k == "--configs-dir") configs_dir = v;
    if (k == "--tuning-table") tuning_table = v;
    if (k == "--kernel-variants") kernel_variants = v;
    if (k == "--decode-length") decode_length = std::stoi(v);
  }
  EC_CHECK(decode_length >= 0, "bench_decode: --decode-length must be >= 0, got {}", decode_length);
  if (decode_length == 0) decode_length = prompt_len + tokens;
  std::shared_ptr<const engine::TuningTable> table;
  if (!tuning_table.empty() && tuning_table != "none") {
    table = std::make_shared<const engine::TuningTable>(engine::read_tuning_table(tuning_table));
  }
  if (!configs_dir.empty()) {
    // The same architectures for bench/hf_peer.py, as config.json files transformers can read.
    std::filesystem::create_directories(configs_dir);
    for (const std::string& m : comma_list(models)) {
      std::ofstream(std::filesystem::path(configs_dir) / (m + ".json"))
          << model::to_hf_config(model::preset_or_throw(m)).dump(2) << "\n";
    }
  }
  if (formats == "none") return 0;  // only the configs were wanted
  // FP16 first (however it is spelled), so every other row of its model has the baseline of this
  // process to divide by; each format once, however often it is named.
  std::vector<engine::Precision> precisions;
  for (const std::string& f : comma_list(formats)) {
    const engine::Precision p = engine::parse_precision(f);
    if (std::find(precisions.begin(), precisions.end(), p) == precisions.end()) {
      precisions.push_back(p);
    }
  }
  std::stable_partition(precisions.begin(), precisions.end(),
                        [](engine::Precision p) { return p == engine::Precision::fp16; });
  EC_CHECK(engine::cuda::cuda_device_available(), "bench_decode: no CUDA device");
  const double ceiling = copy_ceiling();
  // The tool's own meter: the NVML counter with window edges on its updates (docs/method.md), so a
  // 256-token window (0.13 s at 0.5B) is not one or two counter steps.
  meter::MeterOptions meter_options;
  meter_options.gpu = 0;
  auto meter = meter::make_best_meter(meter_options);
  const bool metered = meter->measures_energy();
  std::printf("copy ceiling (read+write) %.0f GB/s; energy: %s\n", ceiling / 1e9,
              metered ? "NVML total-energy counter, aligned window edges"
                      : meter->unavailable_reason().c_str());
  // One metered window around `work`: its seconds (timed inside the window) and its joules.
  auto timed = [&](const std::function<void()>& work) {
    if (metered) meter->begin("decode");
    const auto t0 = Clock::now();
    work();
    const double dt = seconds_since(t0);
    std::optional<double> joules;
    if (metered) joules = meter->end().energy_j;
    return std::make_pair(dt, joules);
  };
  std::ofstream json;
  if (!json_path.empty()) json.open(json_path);
  std::printf(
      "\n| model | format | GB/token | tok/s | GB/s | %% of copy | J/1k tok | avg W "
      "| chained tok/s (× tok/s) | × FP16 (bytes bound) | load s | variant |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool failed = false;  // some format decoded different tokens in two runs (reported in its row)
  for (const std::string& name : comma_list(models)) {
    const model::ModelConfig& config = model::preset_or_throw(name);
    const auto t_gen = Clock::now();
    auto weights = model::make_synthetic_weights(config, 1, DType::f16);
    const double gen_s = seconds_since(t_gen);
    std::fprintf(stderr, "%s: synthetic weights in %.1f s\n", name.c_str(), gen_s);
    std::vector<int32_t> prompt(static_cast<size_t>(prompt_len));
    for (int i = 0; i < prompt_len; ++i) prompt[size_t(i)] = (i * 7919 + 13) % config.vocab_size;
    std::optional<std::pair<double, double>> fp16;  // this model's FP16 tok/s and GB/token
    for (const engine::Precision precision : precisions) {
      engine::EngineOptions o;
      o.backend = engine::Backend::cuda;
      o.precision = precision;
      o.max_context = std::max(prompt_len + tokens + 8, decode_length);
      o.decode_length = decode_length;
      o.tuning_table = table;
      o.use_tuning_table = tuning_table != "none";
      o.kernel_variants = kernel_variants;
      const auto t_load = Clock::now();
      auto eng = engine::make_engine(weights, o);
      const double load_s = seconds_since(t_load);
      const auto& info = eng->info();
      // Warm-up: one short generation.
      (void)engine::generate_greedy(*eng, prompt, 16);
      std::vector<double> times, joules, watts, chained_times, chained_joules;
      std::vector<int32_t> stepwise(static_cast<size_t>(tokens)), chained(stepwise.size());
      std::vector<int32_t> reference;
      std::string mismatch;
      for (int it = 0; it < iters; ++it) {
        eng->reset();
        int32_t next = engine::argmax(eng->forward(prompt, false));
        const int32_t first = next;
        eng->synchronize();
        const auto [dt, e] = timed([&] {
          for (int i = 0; i < tokens; ++i) stepwise[size_t(i)] = next = eng->decode_greedy(next);
          eng->synchronize();
        });
        times.push_back(dt);
        if (e) {
          joules.push_back(*e);
          watts.push_back(*e / dt);
        }
        eng->reset();
        (void)eng->forward(prompt, false);
        eng->synchronize();
        const auto [chained_dt, chained_e] = timed([&] {
          eng->decode_greedy_many(first, chained);
          eng->synchronize();
        });
        chained_times.push_back(chained_dt);
        if (chained_e) chained_joules.push_back(*chained_e);
        // Validation: the chained steps, and every iteration, decode the first iteration's tokens.
        if (it == 0) reference = stepwise;
        for (const auto* got : {&stepwise, &chained}) {
          const auto diff = std::mismatch(got->begin(), got->end(), reference.begin());
          if (diff.first != got->end() && mismatch.empty()) {
            mismatch = fmt::format(" MISMATCH: iteration {} {} differs from token {}", it,
                                   got == &chained ? "chained" : "step by step",
                                   diff.first - got->begin());
          }
        }
      }
      if (!mismatch.empty()) failed = true;
      std::sort(times.begin(), times.end());
      const double dt = times[times.size() / 2];
      const double tps = tokens / dt;
      std::sort(chained_times.begin(), chained_times.end());
      const double chained_tps = tokens / chained_times[chained_times.size() / 2];
      const double gb = double(info.weight_bytes) / 1e9;
      const double gbs = gb * tps;
      double j1k = -1.0, w_avg = -1.0;
      if (!joules.empty()) {
        std::sort(joules.begin(), joules.end());
        j1k = joules[joules.size() / 2] / tokens * 1000.0;
      }
      if (!watts.empty()) w_avg = watts[watts.size() / 2];
      char jtxt[32] = "n/a", wtxt[32] = "n/a";
      if (j1k >= 0) std::snprintf(jtxt, sizeof jtxt, "%.0f", j1k);
      if (w_avg >= 0) std::snprintf(wtxt, sizeof wtxt, "%.0f", w_avg);
      if (precision == engine::Precision::fp16) fp16 = std::make_pair(tps, gb);
      std::optional<double> x_fp16, x_bytes_bound;
      if (fp16) {
        x_fp16 = tps / fp16->first;
        x_bytes_bound = fp16->second / gb;
      }
      const std::string vs_fp16 =
          fp16 ? fmt::format("{:.3f} ({:.3f})", *x_fp16, *x_bytes_bound) : "n/a";
      std::printf(
          "| %s | %s | %.3f | %.1f | %.0f | %.1f | %s | %s | %.1f (%.3f)%s | %s | %.1f | %s |\n",
          name.c_str(), info.precision.c_str(), gb, tps, gbs, 100.0 * gbs * 1e9 / ceiling, jtxt,
          wtxt, chained_tps, chained_tps / tps, mismatch.c_str(), vs_fp16.c_str(), load_s,
          (info.kernel_variant + " (" + info.kernel_variant_choice + ")").c_str());
      std::fflush(stdout);
      if (json.is_open()) {
        nlohmann::json row = {{"model", name},
                              {"format", info.weight_format},
                              {"precision", info.precision},
                              {"device", info.device_name},
                              {"tokens", tokens},
                              {"prompt", prompt_len},
                              {"seconds", times},
                              {"tok_s", tps},
                              {"chained_seconds", chained_times},
                              {"chained_tok_s", chained_tps},
                              {"chained_joules", chained_joules},
                              {"mismatch", mismatch},
                              {"weight_bytes", info.weight_bytes},
                              {"gb_s", gbs},
                              {"copy_ceiling_gb_s", ceiling / 1e9},
                              {"joules", joules},
                              {"avg_power_w", watts},
                              {"load_s", load_s},
                              {"synthetic_gen_s", gen_s},
                              {"kernel_variant", info.kernel_variant},
                              {"kernel_variant_choice", info.kernel_variant_choice},
                              {"cuda_graph", info.cuda_graph}};
        // null where no FP16 of this model ran in this process
        row["x_fp16"] = x_fp16 ? nlohmann::json(*x_fp16) : nlohmann::json();
        row["x_fp16_bytes_bound"] =
            x_bytes_bound ? nlohmann::json(*x_bytes_bound) : nlohmann::json();
        json << row.dump() << "\n";
        json.flush();
      }
    }
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace ec::bench

int main(int argc, char** argv) {
  return ec::bench::bench_main("bench_decode", ec::bench::run, argc, argv);
}
