// `ecocompute tune`: measures the CUDA decode kernels' variants for a model on this GPU and writes
// (or updates) the tuning table every later load on this kind of GPU reads.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "core/build_info.h"
#include "core/diagnostic.h"
#include "core/error.h"
#include "engine/engine.h"
#include "engine/tuning_table.h"
#include "model/loader.h"

namespace ec::cli {
namespace {

struct TuneFlags {
  EngineFlags engine;
  std::string precisions = "FP16";
  std::string out;
  engine::TuneSettings settings;
};

std::vector<engine::Precision> parse_precisions(const std::string& list) {
  std::vector<engine::Precision> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) out.push_back(engine::parse_precision(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty()) fail_usage("--precision: no precision given");
  return out;
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto flags = std::make_shared<TuneFlags>();
  auto* cmd = app.add_subcommand(
      "tune",
      "Time the CUDA decode kernels' variants for a model and write the tuning table that every "
      "load on this kind of GPU then reads (docs/gpu-machine.md). Exit 0: written; 3: a variant "
      "gave other logits than the starting set's and was refused, the table written without it; "
      "2: usage; 1: failure");
  add_engine_flags(*cmd, flags->engine);
  cmd->add_option("--precision", flags->precisions,
                  "FP16, BF16, INT8, INT8-WO, NF4 or NF4-DQ; several separated by commas")
      ->capture_default_str();
  cmd->add_option("-o,--out", flags->out,
                  "Table to write; an existing table of this GPU is updated, entries of the same "
                  "shape replaced (default: <gpu>-cc<major>.<minor>.json here)");
  cmd->add_option("--steps", flags->settings.steps, "Decode steps per timing")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--runs", flags->settings.runs, "Timings per measurement (the median is taken)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--position", flags->settings.position,
                  "KV-cache position the timed steps decode at (-1: the middle of the cache)")
      ->capture_default_str();
  cmd->add_flag("--log", flags->settings.log, "Print every trial to stderr");
  cmd->callback([flags] {
    // Where `run`'s iterations decode on average (a short prompt and half of 256 new tokens), in
    // a cache no larger than such runs need, unless asked otherwise.
    if (flags->engine.max_context == 0) flags->engine.max_context = 512;
    if (flags->settings.position < 0) flags->settings.position = 144;
    engine::EngineOptions options = to_engine_options(flags->engine);
    // The timed steps run the attention `run` would run: sized for a job twice as long as the
    // position it decodes at on average.
    options.decode_length = 2 * flags->settings.position + flags->settings.steps;
    const std::vector<engine::Precision> precisions = parse_precisions(flags->precisions);
    EC_CHECK(options.backend == engine::Backend::cuda,
             "tune: the CPU backend has one kernel per format, nothing to tune (tune needs the "
             "CUDA backend and a GPU)");
    auto weights = model::load_model(flags->engine.model, flags->engine.seed);

    engine::TuningTable table;
    std::vector<engine::TuningEntry> entries;
    std::vector<std::string> refused;
    for (const engine::Precision p : precisions) {
      options.precision = p;
      const auto t0 = std::chrono::steady_clock::now();
      engine::TuneOutcome o = engine::tune_decode_kernels(weights, options, flags->settings, table);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print(stderr, "tune: {} {} in {:.1f} s: {:.1f} us per step\n", weights->config.name,
                 engine::precision_name(p), seconds,
                 o.entries.empty() ? 0.0 : o.entries.front().step_us);
      entries.insert(entries.end(), o.entries.begin(), o.entries.end());
      for (const std::string& r : o.refused) {
        refused.push_back(
            fmt::format("{} {} {}", weights->config.name, engine::precision_name(p), r));
      }
    }
    const std::filesystem::path out = !flags->out.empty()
                                          ? std::filesystem::path(flags->out)
                                          : std::filesystem::path(engine::tuning_table_file_name(
                                                table.gpu_name, table.cc_major, table.cc_minor));
    std::error_code ec;
    if (std::filesystem::exists(out, ec)) {
      engine::TuningTable old = engine::read_tuning_table(out);
      EC_CHECK(old.for_gpu(table.gpu_name, table.cc_major, table.cc_minor),
               "{} is the table of {} (compute capability {}.{}); this GPU is {} ({}.{}): write "
               "to another --out",
               out.string(), old.gpu_name, old.cc_major, old.cc_minor, table.gpu_name,
               table.cc_major, table.cc_minor);
      table.entries = std::move(old.entries);
    }
    const nlohmann::json build = build_info();
    table.tool =
        fmt::format("ecocompute {} ({})", build.value("version", "?"), build.value("commit", "?"));
    table.merge(entries);
    const engine::TuningTable written = engine::write_tuning_table(out, std::move(table));
    fmt::print(
        "| model | format | role | rows x cols | variant | step µs |\n|---|---|---|---|---|---|\n");
    for (const engine::TuningEntry& e : entries) {
      fmt::print("| {} | {} | {} | {}x{} | {} | {:.1f} |\n", e.model,
                 quant::format_name(e.key.format), e.key.role, e.key.rows, e.key.cols, e.variant,
                 e.step_us);
    }
    fmt::print("\ntable: {} ({} entries, sha256 {})\n", written.name, written.entries.size(),
               written.sha256);
    // The table holds only variants whose outputs agreed. Each refused one is a kernel bug: an
    // error line and exit 3, as `ingest` does for what it rejected while storing the rest.
    for (const std::string& r : refused) {
      print_error(
          fmt::format("tune: refused {} (its decode step gave other logits than the "
                      "starting set's, bit for bit)",
                      r));
    }
    if (!refused.empty()) {
      print_note(
          fmt::format("{} was written without the refused variants; every variant of a "
                      "format must compute the same sums (test_engine_cuda compares them)",
                      written.name));
      throw ExitStatus{3};
    }
  });
}

}  // namespace ec::cli
