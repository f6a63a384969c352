// `ecocompute fit [PATH…] --out curves.json`: size curves per (arch, precision).
#include <nlohmann/json.hpp>

#include "analysis/fit.h"
#include "analysis/import.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "core/error.h"

namespace ec::cli {
namespace {

analysis::Table curves_table(const analysis::CurveSet& set) {
  analysis::Table t;
  t.name = "curves";
  t.columns = {"arch",  "precision",   "points",     "A",       "S",
               "Nstar", "nstar_fixed", "resid_std",  "loo_mae", "loo_coverage95",
               "n_min", "n_max",       "crossover_b"};
  auto opt = [](const std::optional<double>& v) { return v ? store::Value{*v} : store::Value{}; };
  for (const auto& c : set.curves) {
    t.rows.push_back({c.arch, c.precision, static_cast<int64_t>(c.anchors.size()), c.fit.params.a,
                      c.fit.params.s, c.fit.params.n_star,
                      std::string(c.fit.n_star_fixed ? "yes" : "no"), c.fit.resid_std,
                      opt(c.loo_mae), opt(c.loo_coverage95), c.n_min, c.n_max, opt(c.crossover_b)});
  }
  return t;
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "fit",
      "Fit dE%(N) = A - S*x/(1+x), x = N/N*, per (arch, precision) with the published bounds");
  struct Options {
    std::vector<std::string> paths;
    analysis_cli::CommonOptions common;
    std::string out;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("paths", o->paths, "measured.csv, reports, CSVs or directories (default: store)");
  analysis_cli::add_common_options(cmd, o->common);
  cmd->add_option("--out", o->out, "Write the curves (the original's curves.json layout)");
  cmd->add_flag("--force", o->force, "Pool sessions whose version stacks differ (not recommended)");
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(o->common);
    std::vector<analysis::FitPoint> points;
    std::vector<std::string> run_paths;
    std::vector<std::string> problems;
    // measured.csv files are fit points already; everything else is runs.
    for (const auto& p : o->paths) {
      if (std::filesystem::path(p).extension() == ".csv" && std::filesystem::is_regular_file(p)) {
        const auto table = analysis::CsvTable::read(p);
        if (analysis::is_measured_csv(table)) {
          auto pts = analysis::read_measured_csv(table, problems);
          points.insert(points.end(), pts.begin(), pts.end());
          continue;
        }
      }
      run_paths.push_back(p);
    }
    analysis_cli::report_problems(problems);
    if (!run_paths.empty() || o->paths.empty()) {
      const auto runs = analysis_cli::load(run_paths, o->common);
      std::vector<std::string> warnings;
      auto pts = analysis::fit_points_from_runs(runs.rows, o->force, warnings);
      for (const auto& w : warnings) fmt::print(stderr, "ecocompute: warning: {}\n", w);
      points.insert(points.end(), pts.begin(), pts.end());
    }
    if (points.empty()) fail("nothing to fit: no measured points");
    const analysis::CurveSet set = analysis::fit_curves(points);
    if (!o->out.empty()) write_file_atomic(o->out, analysis::curves_to_json(set).dump(2) + "\n");
    analysis_cli::print(curves_table(set), format);
  });
}

}  // namespace ec::cli
