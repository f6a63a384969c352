// `ecocompute run`: measure a precision and its FP16 baseline in one process, write energy.json.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "analysis/iteration_spread.h"
#include "bench/protocol.h"
#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/meter_commands.h"
#include "core/error.h"
#include "meter/meter.h"
#include "report/energy_json.h"

namespace ec::cli {
namespace {

struct RunFlags {
  EngineFlags engine;
  std::string precision = "INT8";
  std::string out = "energy.json";
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
    // A GPU's counter does not see CPU work, and a CPU package meter is not wired in yet.
    return meter::make_unavailable_meter(
        "the CPU backend ran the model: a GPU energy counter would not measure it, and ecocompute "
        "has no CPU package meter in the run path yet");
  }
  meter::MeterOptions options;
  if (flags.gpu >= 0) options.gpu = static_cast<unsigned>(flags.gpu);
  options.hz = flags.hz;
  options.align_counter_edges = flags.counter_edges == "aligned";
  return meter::make_best_meter(options);
}

// The iterations' spread for the summary table (docs/method.md: each is a measurement).
std::string iteration_cv(const report::DecodeRun& run) {
  auto cv = analysis::iteration_energy_cv_pct(run);
  return cv ? fmt::format("{:.2f} %", *cv) : std::string("n/a");
}

void print_summary(const report::RunRecord& record, const std::string& out) {
  auto energy = [](const report::Results& r) {
    return r.energy_per_token_mj ? fmt::format("{:.2f}", *r.energy_per_token_mj)
                                 : std::string("n/a");
  };
  fmt::print(
      "| precision | format | tok/s | J/1k tok | iteration CV | vs FP16 | perplexity "
      "| KL vs FP16 | top-1 |\n");
  fmt::print("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  const auto& q = record.quality;
  if (record.baseline) {
    const auto& b = *record.baseline;
    fmt::print("| {} | {} | {:.1f} | {} | {} | — | {} | — | — |\n", b.engine.precision,
               b.engine.weight_format, b.results.throughput_tok_s.value_or(0.0), energy(b.results),
               iteration_cv(b),
               q && q->fp16_perplexity ? fmt::format("{:.4f}", *q->fp16_perplexity) : "n/a");
  }
  const auto& r = record.run;
  fmt::print(
      "| {} | {} | {:.1f} | {} | {} | {} | {} | {} | {} |\n", r.engine.precision,
      r.engine.weight_format, r.results.throughput_tok_s.value_or(0.0), energy(r.results),
      iteration_cv(r),
      r.results.vs_fp16_energy_pct ? fmt::format("{:+.1f} %", *r.results.vs_fp16_energy_pct)
                                   : "n/a",
      q && q->perplexity ? fmt::format("{:.4f}", *q->perplexity) : "n/a",
      q && q->mean_kl_vs_fp16 ? fmt::format("{:.5f}", *q->mean_kl_vs_fp16) : "n/a",
      q && q->top1_agreement_vs_fp16 ? fmt::format("{:.3f}", *q->top1_agreement_vs_fp16) : "n/a");
  fmt::print("\nenergy basis: {}{}\n", report::basis_name(r.results.basis),
             r.results.note.empty() ? "" : " (" + r.results.note + ")");
  // The baseline's own note (e.g. its iterations too short for the counter), unless it is the same.
  if (record.baseline && !record.baseline->results.note.empty() &&
      record.baseline->results.note != r.results.note) {
    fmt::print("FP16 baseline: {}\n", record.baseline->results.note);
  }
  fmt::print("report: {}\n", out);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand(
      "run", "Measure a precision and its FP16 baseline in one process; write energy.json");
  add_engine_flags(*cmd, flags->engine);
  cmd->add_option("--precision", flags->precision,
                  "FP16, BF16, INT8 (LLM.int8()), INT8-WO, NF4 or NF4-DQ")
      ->capture_default_str();
  cmd->add_option("-o,--out", flags->out, "Report path (written atomically)")
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
    bench::RunOptions options = flags->run;
    options.model = flags->engine.model;
    options.seed = flags->engine.seed;
    options.engine = to_engine_options(flags->engine);
    // The engine runs on the GPU it meters: both count in CUDA_VISIBLE_DEVICES order.
    if (flags->gpu >= 0) options.engine.device = flags->gpu;
    options.precision = engine::parse_precision(flags->precision);
    options.quality = !flags->no_quality;
    if (!flags->tokenizer.empty()) options.tokenizer = flags->tokenizer;
    if (!flags->quality_text.empty()) options.quality_text = flags->quality_text;
    auto meter = choose_meter(*flags, options.engine.backend);
    auto log = [](const std::string& line) { fmt::print(stderr, "ecocompute: {}\n", line); };
    if (flags->pue && !flags->grid_gco2_per_kwh) {
      throw UsageError("--pue needs --grid-gco2-per-kwh: CO2e is derived from both");
    }
    report::RunRecord record = bench::run_protocol(options, *meter, log);
    if (flags->grid_gco2_per_kwh) {
      record.co2e = report::Co2eInputs{*flags->grid_gco2_per_kwh, flags->pue.value_or(1.0)};
    }
    report::write_report(flags->out, record);
    print_summary(record, flags->out);
  });
}

}  // namespace ec::cli
