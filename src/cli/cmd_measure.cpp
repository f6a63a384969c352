// `ecocompute measure [--gpu N] [--hz R] [--out FILE] -- CMD ARGS...`: meter any command, as one
// window, or through the marker protocol (--marks: its iterations and phases, a report like run's).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/marked_command.h"
#include "cli/commands.h"
#include "cli/meter_commands.h"
#include "core/error.h"
#include "core/file_io.h"
#include "meter/meter.h"
#include "meter/metered_run.h"
#include "report/energy_json.h"

namespace ec::cli {
namespace {

struct MeasureArgs {
  std::optional<unsigned> gpu;
  double hz = 10.0;
  std::string counter_edges = "aligned";
  std::string out;  // default: meter_report.json, or energy.json with --marks
  double idle_s = 3.0;
  std::optional<double> grid;
  std::optional<double> pue;
  std::vector<std::string> command;
  bool marks = false;
  bench::MarkedOptions marked;
  std::optional<int> warmup, iterations;
};

std::string energy_text(const report::Results& r) {
  return r.energy_per_token_mj ? fmt::format("{:.2f} J/1k tok", *r.energy_per_token_mj)
                               : std::string("energy n/a");
}

// The marker protocol: the command's iterations become a report in run's format.
void run_marked(const MeasureArgs& a, meter::Meter& meter) {
  bench::MarkedOptions options = a.marked;
  options.command = a.command;
  options.warmup = a.warmup;
  options.iterations = a.iterations;
  auto log = [](const std::string& line) { fmt::print(stderr, "ecocompute measure: {}\n", line); };
  report::RunRecord record = bench::run_marked_command(meter, options, a.idle_s, log);
  const std::string out = a.out.empty() ? "energy.json" : a.out;
  report::write_report(out, record);
  auto line = [](const report::DecodeRun& side) {
    const auto& r = side.results;
    fmt::print("{} ({}): {:.1f} tok/s, {}{}\n", side.engine.precision,
               side.engine.external ? side.engine.external->label : std::string(),
               r.throughput_tok_s.value_or(0.0), energy_text(r),
               r.vs_fp16_energy_pct ? fmt::format(", {:+.1f} % vs FP16", *r.vs_fp16_energy_pct)
                                    : std::string());
  };
  if (record.baseline) line(*record.baseline);
  line(record.run);
  fmt::print("energy basis: {}{}\nreport: {}\n", report::basis_name(record.run.results.basis),
             record.run.results.note.empty() ? "" : " (" + record.run.results.note + ")", out);
}

void run_measure(const MeasureArgs& a) {
  check_writable_file(a.out, "meter report");  // before the command runs, not after
  meter::MeterOptions options;
  options.gpu = a.gpu;
  options.hz = a.hz;
  options.align_counter_edges = a.counter_edges == "aligned";
  auto meter = meter::make_best_meter(options);
  if (!meter->measures_energy()) {
    fmt::print(stderr, "ecocompute measure: no energy meter: {}\n", meter->unavailable_reason());
  }
  if (a.marks) {
    run_marked(a, *meter);
    return;
  }
  meter::MeasureOptions measure;
  measure.idle_seconds = a.idle_s;
  measure.grid_gco2_per_kwh = a.grid;
  measure.pue = a.pue;
  auto result = meter::measure_command(*meter, a.command, measure);
  const std::string out = a.out.empty() ? "meter_report.json" : a.out;
  write_file_atomic(out, result.report.dump(2) + "\n");
  const auto& run = result.report["run"];
  if (run.contains("energy_j")) {
    std::string above;
    if (result.report.contains("energy_above_idle_j")) {
      above = fmt::format(", {:.1f} J above idle ({:.1f} W)",
                          result.report["energy_above_idle_j"].get<double>(),
                          result.report["idle"]["power_w"].get<double>());
    }
    fmt::print(stderr, "ecocompute measure: {:.1f} J over {:.2f} s (avg {:.1f} W){}; report: {}\n",
               run["energy_j"].get<double>(), run["seconds"].get<double>(),
               run["avg_power_w"].get<double>(), above, out);
  } else {
    fmt::print(stderr, "ecocompute measure: energy unavailable ({}); report: {}\n",
               result.report["note"].get<std::string>(), out);
  }
  if (result.exit_status != 0) throw ExitStatus{result.exit_status};
}

}  // namespace

void add_measure_command(CLI::App& app) {
  auto args = std::make_shared<MeasureArgs>();
  auto* cmd = app.add_subcommand(
      "measure",
      "Run a command and meter its GPU energy (idle baseline first); exit with its status");
  cmd->add_option("--gpu", args->gpu,
                  "GPU index among the visible ones (CUDA_VISIBLE_DEVICES order)");
  cmd->add_option("--hz", args->hz, "Sampling rate of instant power and telemetry")
      ->check(CLI::Range(0.1, 1000.0))
      ->capture_default_str();
  add_counter_edges_flag(*cmd, args->counter_edges);
  cmd->add_option(
      "--out", args->out,
      "Report, written atomically (default meter_report.json; energy.json with --marks)");
  cmd->add_flag("--marks", args->marks,
                "Give the command the marker channel ($ECOCOMPUTE_MARKS_FD, docs/marks.md): its "
                "marked iterations become a report in run's format");
  cmd->add_option("--precision", args->marked.precision,
                  "--marks: the report's precision (FP16, INT8, NF4, ...)")
      ->capture_default_str();
  cmd->add_option("--label", args->marked.label,
                  "--marks: the command's name for that side (default: the precision)");
  cmd->add_option("--fp16-label", args->marked.fp16_label,
                  "--marks: the command's name for its FP16 baseline side (needed unless FP16)");
  cmd->add_option("--model", args->marked.model,
                  "--marks: the model's name in the report (default: the command's 'info model')");
  cmd->add_option("--warmup", args->warmup,
                  "--marks: warmup iterations each side must mark (default: as marked)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", args->iterations,
                  "--marks: measured iterations each side must mark (default: as marked)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--min-window-periods", args->marked.min_window_periods,
                  "--marks: the window rule, the least length of a measured iteration in energy "
                  "counter updates (0: off)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--idle-s", args->idle_s, "Idle baseline length before the command (0: none)")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  cmd->add_option("--grid-gco2-per-kwh", args->grid,
                  "Grid carbon intensity for a derived CO2e figure (never labelled measured)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--pue", args->pue, "Data-centre PUE multiplier for the derived CO2e (default 1)")
      ->check(CLI::Range(1.0, 10.0));
  cmd->add_option("command", args->command, "The command to run, after --")
      ->required()
      ->expected(-1);
  cmd->callback([args, cmd] {
    if (!args->marks) {
      for (const char* flag : {"--precision", "--label", "--fp16-label", "--model", "--warmup",
                               "--iterations", "--min-window-periods"}) {
        if (cmd->count(flag) > 0) fail_usage("measure: {} needs --marks", flag);
      }
    }
    run_measure(*args);
  });
}

void add_counter_edges_flag(CLI::App& cmd, std::string& value) {
  cmd.add_option("--counter-edges", value,
                 "Window edges on the energy counter: at its updates, less the energy outside "
                 "the work by instant power (aligned), or where the work starts and ends (plain: "
                 "up to one update step off at each edge)")
      ->check(CLI::IsMember({"aligned", "plain"}))
      ->capture_default_str();
}

}  // namespace ec::cli
