// Loading the site's runs and curves the way `fit` does: measured.csv files are fit points, every
// other path is runs (measured.csv's rows too when nothing else gives runs); --curves replaces
// fitting altogether.
#include "site/site_input.h"

#include <nlohmann/json.hpp>

#include "analysis/csv_table.h"
#include "analysis/import.h"
#include "analysis/run_source.h"
#include "core/error.h"
#include "core/file_io.h"

namespace ec::site {

SiteInput load_site_input(const SiteSources& sources) {
  SiteInput in;
  std::vector<analysis::FitPoint> measured_points;
  std::vector<std::filesystem::path> measured_files;
  analysis::RunSource run_source;
  run_source.db = sources.db;
  for (const auto& p : sources.paths) {
    if (p.extension() == ".csv" && std::filesystem::is_regular_file(p)) {
      try {
        const auto table = analysis::CsvTable::read(p);
        if (analysis::is_measured_csv(table)) {
          auto pts = analysis::read_measured_csv(table, in.problems);
          measured_points.insert(measured_points.end(), pts.begin(), pts.end());
          measured_files.push_back(p);
          continue;
        }
      } catch (const Error& e) {
        in.problems.push_back(e.what());
        continue;
      }
    }
    run_source.paths.push_back(p);
  }
  // Only measured.csv files given: the runs come from --db when one was named, else from the
  // measured.csv rows themselves, read as `aggregate` and `ingest` read them (one session per GPU
  // and month), so the site's run pages are not empty.
  if (run_source.paths.empty() && sources.db.empty()) run_source.paths = measured_files;
  if (!run_source.paths.empty() || measured_points.empty() || !sources.db.empty()) {
    analysis::LoadedRuns loaded = analysis::load_runs(run_source);
    in.runs = std::move(loaded.rows);
    in.problems.insert(in.problems.end(), loaded.problems.begin(), loaded.problems.end());
  }

  if (!sources.curves.empty()) {
    const auto text = read_file(sources.curves);
    in.curves =
        analysis::curves_from_json(nlohmann::json::parse(text, nullptr, false), sources.curves);
    in.curves_source = sources.curves.filename().string();
    return in;
  }
  std::vector<analysis::FitPoint> points = measured_points;
  in.curves_source = "fitted from measured.csv";
  if (points.empty()) {
    in.curves_source = "fitted from the measured runs";
    try {
      points = analysis::fit_points_from_runs(in.runs, sources.force, in.warnings);
    } catch (const Error& e) {
      in.warnings.push_back(fmt::format("no curves: {}", e.what()));
      in.curves_source.clear();
      return in;
    }
  }
  if (points.empty()) {
    in.warnings.push_back("no curves: no measured points to fit");
    in.curves_source.clear();
    return in;
  }
  in.curves = analysis::fit_curves(points);
  return in;
}

}  // namespace ec::site
