// `ecocompute fit [PATH…] --out curves.json`: size curves per (arch, precision).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "analysis/fit.h"
#include "analysis/import.h"
#include "analysis/left_out.h"
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

// Which points each curve used (and which classes were refused), for stderr: stdout keeps one
// table so machine formats stay parseable.
void print_points(const analysis::CurveSet& set) {
  for (const auto& c : set.curves) {
    fmt::print(stderr, "{} {}: {} point(s):\n", c.arch, c.precision, c.anchors.size());
    std::vector<const analysis::FitPoint*> by_size;
    for (const auto& p : c.anchors) by_size.push_back(&p);
    std::stable_sort(by_size.begin(), by_size.end(),
                     [](const auto* a, const auto* b) { return a->params_b < b->params_b; });
    for (const auto* p : by_size) {
      fmt::print(stderr, "  {:g} B {:+.2f} %  {}  n={}  {}\n", p->params_b, p->delta_pct, p->model,
                 p->n, p->source);
    }
  }
  for (const auto& r : set.refused) {
    fmt::print(stderr, "{} {}: refused: {}\n", r.arch, r.precision, r.reason);
  }
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
    bool allow_few_points = false;
    std::vector<std::string> accept;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("paths", o->paths, "measured.csv, reports, CSVs or directories (default: store)");
  analysis_cli::add_common_options(cmd, o->common);
  cmd->add_option("--out", o->out, "Write the curves (the original's curves.json layout)");
  cmd->add_flag("--force", o->force, "Pool sessions whose version stacks differ (not recommended)");
  cmd->add_option("--accept-difference", o->accept,
                  "A version-stack field whose difference you know does not matter (pooling "
                  "proceeds, the difference is printed)")
      ->delimiter(',');
  cmd->add_flag("--allow-few-points", o->allow_few_points,
                "Fit classes with fewer points than the curve's 3 parameters (N* fixed at the "
                "median size for 1-2 points); refused by default");
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
    const size_t fit_input_points = points.size();
    if (!run_paths.empty() || o->paths.empty()) {
      const auto runs = analysis_cli::load(run_paths, o->common);
      problems.insert(problems.end(), runs.problems.begin(), runs.problems.end());
      if (const auto left_out = analysis::left_out(runs.rows); !left_out.empty()) {
        print_note(analysis::left_out_line(left_out));
      }
      std::vector<std::string> warnings;
      auto pts = analysis::fit_points_from_runs(
          runs.rows, o->force, warnings, std::set<std::string>(o->accept.begin(), o->accept.end()));
      for (const auto& w : warnings) fmt::print(stderr, "ecocompute: warning: {}\n", w);
      points.insert(points.end(), pts.begin(), pts.end());
    }
    // measured.csv records no version stack: pooling its points with sessions' cannot be checked.
    std::set<std::pair<std::string, std::string>> from_fit_input, from_runs;
    for (size_t i = 0; i < points.size(); ++i) {
      (i < fit_input_points ? from_fit_input : from_runs)
          .insert({points[i].arch, points[i].precision});
    }
    for (const auto& cls : from_fit_input) {
      if (from_runs.count(cls)) {
        fmt::print(stderr,
                   "ecocompute: warning: {} {}: measured.csv points (no version stack recorded) "
                   "pooled with sessions' points; comparable only as far as recorded\n",
                   cls.first, cls.second);
      }
    }
    if (points.empty()) analysis_cli::nothing_left("fit: nothing to fit", problems);
    const analysis::CurveSet set = analysis::fit_curves(
        points, analysis::default_borrow(), o->allow_few_points ? 1 : analysis::kCurveParameters);
    print_points(set);
    if (set.curves.empty()) fail("nothing fitted: every class has too few points (see above)");
    if (!o->out.empty()) write_file_atomic(o->out, analysis::curves_to_json(set).dump(2) + "\n");
    analysis_cli::print(curves_table(set), format);
  });
}

}  // namespace ec::cli
