// `ecocompute check-regression energy.json --curves curves.json`: grade a measured report.
#include <nlohmann/json.hpp>

#include "analysis/estimate.h"
#include "analysis/import.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "cli/curves_source.h"
#include "core/error.h"

namespace ec::cli {

void add_check_regression_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "check-regression",
      "Grade a measured energy.json against same-size anchors, else the curve (band k*resid_std); "
      "exit 1 on a regression");
  struct Options {
    std::string report, curves;
    double k = 2.0;
    analysis_cli::CommonOptions common;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("report", o->report, "energy.json (ours or the original's)")->required();
  cmd->add_option(
      "--curves", o->curves,
      "curves.json written by `ecocompute fit` (default: the published curves, built in)");
  cmd->add_option("--k", o->k, "Band half-width in units of the curve's resid_std (default 2)");
  cmd->add_option("--format", o->common.format, "Output: md, csv, json, jsonl or sql");
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(o->common);
    const auto curves = load_curves(o->curves);
    const store::RunRow row = analysis::import_report(read_file(o->report), o->report);
    const analysis::RegressionCheck r = analysis::check_regression(curves, row, o->k);
    analysis_cli::print(analysis::regression_table(r, row), format);
    if (r.verdict == "regression") throw ExitStatus{1};
  });
}

}  // namespace ec::cli
