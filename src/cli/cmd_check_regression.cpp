// `ecocompute check-regression energy.json --curves curves.json`: grade a measured report.
// Exit 0 within/improvement, 1 regression, 3 not graded (invalid, not a measurement, no curve), 2
// usage.
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
      "Grade a measured energy.json against same-size anchors, else the curve (band k*resid_std). "
      "Exit 0: within or improvement; 1: regression; 3: not graded (the report fails the checks "
      "of `validate`, is not a measurement, or has no curve for its class); 2: usage");
  struct Options {
    std::string report, curves;
    double k = 2.0;
    analysis_cli::CommonOptions common;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("report", o->report,
                  "energy.json (ours or the original's; - reads standard input)")
      ->required();
  cmd->add_option(
      "--curves", o->curves,
      "curves.json written by `ecocompute fit` (default: the published curves, built in)");
  cmd->add_option("--k", o->k, "Band half-width in units of the curve's resid_std (default 2)");
  cmd->add_option("--format", o->common.format, "Output: md, csv, json, jsonl or sql");
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(o->common);
    const auto curves = load_curves(o->curves);
    // Only a valid hardware measurement is graded; anything else exits 3, apart from a regression.
    store::RunRow row;
    try {
      row = analysis::import_report(read_file(input_path(o->report)), o->report);
    } catch (const Error& e) {
      print_error(fmt::format("{} (not graded)", e.what()));
      throw ExitStatus{3};
    }
    if (!row.is_measured()) {
      print_error(
          fmt::format("{}: not a measurement ({}): only a measurement can be graded (not "
                      "graded)",
                      o->report, row.why_not_measured()));
      throw ExitStatus{3};
    }
    // A report the curves cannot grade (no curve for its class, no delta to grade) is "not
    // graded" too: exit 1 stays the verdict "regression" alone.
    analysis::RegressionCheck r;
    try {
      r = analysis::check_regression(curves, row, o->k);
    } catch (const Error& e) {
      print_error(fmt::format("{} (not graded)", e.what()));
      throw ExitStatus{3};
    }
    analysis_cli::print(analysis::regression_table(r, row), format);
    if (r.verdict == "regression") throw ExitStatus{1};
  });
}

}  // namespace ec::cli
