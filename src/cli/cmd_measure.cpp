// `ecocompute measure [--gpu N] [--hz R] [--out FILE] -- CMD ARGS...`: meter any command.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/meter_commands.h"
#include "core/file_io.h"
#include "meter/meter.h"
#include "meter/metered_run.h"

namespace ec::cli {
namespace {

struct MeasureArgs {
  std::optional<unsigned> gpu;
  double hz = 10.0;
  std::string counter_edges = "aligned";
  std::string out = "meter_report.json";
  double idle_s = 3.0;
  std::optional<double> grid;
  std::optional<double> pue;
  std::vector<std::string> command;
};

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
  meter::MeasureOptions measure;
  measure.idle_seconds = a.idle_s;
  measure.grid_gco2_per_kwh = a.grid;
  measure.pue = a.pue;
  auto result = meter::measure_command(*meter, a.command, measure);
  write_file_atomic(a.out, result.report.dump(2) + "\n");
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
               run["avg_power_w"].get<double>(), above, a.out);
  } else {
    fmt::print(stderr, "ecocompute measure: energy unavailable ({}); report: {}\n",
               result.report["note"].get<std::string>(), a.out);
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
  cmd->add_option("--out", args->out, "Meter report (JSON, written atomically)")
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
  cmd->callback([args] { run_measure(*args); });
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
