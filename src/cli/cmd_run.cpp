// `ecocompute run`: measure a precision and its FP16 baseline in one process, write energy.json.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_statistics.h"
#include "analysis/run_summary.h"
#include "analysis/table.h"
#include "bench/preflight.h"
#include "bench/protocol.h"
#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/meter_commands.h"
#include "core/error.h"
#include "core/file_io.h"
#include "meter/meter.h"
#include "meter/rapl_meter.h"
#include "report/energy_json.h"
#include "sweep/value_list.h"

namespace ec::cli {
namespace {

struct RunFlags {
  EngineFlags engine;
  std::string precision = "INT8";
  std::string out = "energy.json";
  std::string format = "md";
  bench::RunOptions run;
  std::string tokenizer;
  std::string quality_text;
  bool no_quality = false;
  int gpu = -1;
  double hz = 10.0;
  std::string counter_edges = "aligned";
  bool no_meter = false;
  std::optional<double> grid_gco2_per_kwh;
  std::optional<double> pue;
};

std::unique_ptr<meter::Meter> choose_meter(const RunFlags& flags, engine::Backend backend) {
  if (flags.no_meter) {
    return meter::make_unavailable_meter(
        "--no-meter: the run was made without any energy meter (throughput only)");
  }
  if (backend == engine::Backend::cpu) {
    // A GPU's counter does not see CPU work; the CPU package's RAPL counters do, where they read.
    // EC_POWERCAP_ROOT names another powercap tree (a container's bind mount, a test's fake one).
    const char* root = std::getenv("EC_POWERCAP_ROOT");
    return meter::make_rapl_meter(root && *root ? root : "/sys/class/powercap");
  }
  meter::MeterOptions options;
  if (flags.gpu >= 0) options.gpu = static_cast<unsigned>(flags.gpu);
  options.hz = flags.hz;
  options.align_counter_edges = flags.counter_edges == "aligned";
  return meter::make_best_meter(options);
}

// Where each precision's report goes: --out itself for one precision; for several, --out with the
// precision before its extension (energy.json → energy-int8.json, energy-nf4.json).
std::vector<std::string> report_paths(const std::string& out,
                                      const std::vector<engine::Precision>& precisions) {
  if (precisions.size() == 1) return {out};
  std::vector<std::string> paths;
  const std::filesystem::path path(out);
  for (engine::Precision p : precisions) {
    std::string name(engine::precision_name(p));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::filesystem::path one = path;
    one.replace_filename(path.stem().string() + "-" + name + path.extension().string());
    paths.push_back(one.string());
  }
  return paths;
}

// The precisions of --precision, in order, each once; FP16 among others is their baseline only.
std::vector<engine::Precision> requested_precisions(const std::string& text) {
  std::vector<engine::Precision> out;
  for (const auto& name : sweep::parse_name_list(text, "--precision")) {
    const engine::Precision p = engine::parse_precision(name);
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  if (out.size() > 1) std::erase(out, engine::Precision::fp16);
  return out;
}

void print_summary(const std::vector<report::RunRecord>& records,
                   const std::vector<std::string>& paths, analysis::OutputFormat format) {
  // Warnings go to stderr, as hyperfine's, so every format's stdout stays what it says it is.
  if (!records.empty() && records.front().baseline) {
    for (const auto& line : analysis::run_warnings(
             analysis::run_statistics(*records.front().baseline), "FP16 baseline")) {
      fmt::print(stderr, "ecocompute: warning: {}\n", line);
    }
  }
  for (const auto& record : records) {
    for (const auto& line : analysis::run_warnings(analysis::run_statistics(record.run),
                                                   record.run.engine.precision)) {
      fmt::print(stderr, "ecocompute: warning: {}\n", line);
    }
  }
  if (format != analysis::OutputFormat::md) {
    fmt::print("{}", analysis::render(analysis::run_summary_table(records, paths), format));
    return;
  }
  fmt::print("{}", analysis::render(analysis::run_summary_text_table(records), format));
  const auto& r = records.front().run;
  fmt::print("\nenergy basis: {}{}\n", report::basis_name(r.results.basis),
             r.results.note.empty() ? "" : " (" + r.results.note + ")");
  // The baseline's own note (e.g. its iterations too short for the counter), unless it is the same.
  const auto& baseline = records.front().baseline;
  if (baseline && !baseline->results.note.empty() && baseline->results.note != r.results.note) {
    fmt::print("FP16 baseline: {}\n", baseline->results.note);
  }
  for (const auto& path : paths) fmt::print("report: {}\n", path);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand(
      "run", "Measure a precision and its FP16 baseline in one process; write energy.json");
  add_engine_flags(*cmd, flags->engine);
  cmd->add_option("--precision", flags->precision,
                  "FP16, BF16, INT8 (LLM.int8()), INT8-WO, NF4 or NF4-DQ, in any case; a comma "
                  "list (INT8,NF4) measures each against one shared FP16 baseline")
      ->capture_default_str();
  cmd->add_option("-o,--out", flags->out,
                  "Report path (written atomically); with several precisions each gets its own, "
                  "the precision before the extension (energy-int8.json)")
      ->capture_default_str();
  cmd->add_option("--format", flags->format, "Summary on stdout: md, csv, json or jsonl")
      ->capture_default_str();
  cmd->add_option("--tokenizer", flags->tokenizer,
                  "tokenizer.json (default: the checkpoint's, else one token per byte)");
  cmd->add_option("--prompt", flags->run.prompt, "Prompt every iteration decodes from")
      ->capture_default_str();
  cmd->add_option("--new-tokens", flags->run.new_tokens, "Tokens generated per iteration")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", flags->run.warmup, "Unmeasured iterations per precision")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", flags->run.iterations, "Measured iterations per precision")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--min-window-periods", flags->run.min_window_periods,
                  "Window rule: each measured iteration holds generations until it lasts this many "
                  "energy-counter updates (0: off)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--generations-per-window", flags->run.generations_per_window,
                  "Generations per measured iteration (0: as many as the window rule needs); a "
                  "window left short of the rule fails the run")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--idle-seconds", flags->run.idle_seconds,
                  "Idle baseline before measuring (energy meters only)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cool-off", flags->run.cool_off_seconds, "Seconds of rest between precisions")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-quality", flags->no_quality, "Skip the perplexity / KL quality probe");
  cmd->add_option("--quality-text", flags->quality_text,
                  "Corpus for the quality probe (default: the original's eval text)");
  cmd->add_option("--quality-seq-len", flags->run.quality_seq_len,
                  "Perplexity window, capped at the model context")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--gpu", flags->gpu, "GPU index to meter (CUDA_VISIBLE_DEVICES order)");
  cmd->add_option("--hz", flags->hz, "Power sampling rate")->capture_default_str();
  add_counter_edges_flag(*cmd, flags->counter_edges);
  cmd->add_option("--grid-gco2-per-kwh", flags->grid_gco2_per_kwh,
                  "Grid carbon intensity; adds a CO2e block derived from the measured energy")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--pue", flags->pue, "Data-centre PUE for the derived CO2e (default 1)")
      ->check(CLI::Range(1.0, 10.0));
  cmd->add_flag("--no-meter", flags->no_meter,
                "No energy meter at all: throughput only (to measure the meter's own overhead)");
  cmd->callback([flags] {
    // Everything is checked before the meter starts or the model loads: a bad name, path or
    // count fails in well under a second instead of after the measurement.
    const analysis::OutputFormat format = analysis::parse_output_format(flags->format);
    if (format == analysis::OutputFormat::sql) {
      fail_usage("--format for run: md, csv, json or jsonl (got sql)");
    }
    if (flags->pue && !flags->grid_gco2_per_kwh) {
      throw UsageError("--pue needs --grid-gco2-per-kwh: CO2e is derived from both");
    }
    bench::RunOptions options = flags->run;
    options.model = flags->engine.model;
    options.seed = flags->engine.seed;
    options.engine = to_engine_options(flags->engine);
    // The engine runs on the GPU it meters: both count in CUDA_VISIBLE_DEVICES order.
    if (flags->gpu >= 0) options.engine.device = flags->gpu;
    const std::vector<engine::Precision> precisions = requested_precisions(flags->precision);
    options.precision = precisions.front();
    options.quality = !flags->no_quality;
    if (!flags->tokenizer.empty()) options.tokenizer = flags->tokenizer;
    if (!flags->quality_text.empty()) options.quality_text = flags->quality_text;
    const std::vector<std::string> paths = report_paths(flags->out, precisions);
    for (const auto& path : paths) check_writable_file(path, "report");
    bench::check_run_inputs(options);

    auto meter = choose_meter(*flags, options.engine.backend);
    auto log = [](const std::string& line) { fmt::print(stderr, "ecocompute: {}\n", line); };
    std::vector<report::RunRecord> records = bench::run_protocol(options, precisions, *meter, log);
    for (size_t i = 0; i < records.size(); ++i) {
      if (flags->grid_gco2_per_kwh) {
        records[i].co2e = report::Co2eInputs{*flags->grid_gco2_per_kwh, flags->pue.value_or(1.0)};
      }
      report::write_report(paths[i], records[i]);
    }
    print_summary(records, paths, format);
  });
}

}  // namespace ec::cli
