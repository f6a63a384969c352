// `ecocompute site [PATH…] [--db F] [--curves F] --out DIR`: the static report site.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <memory>

#include "cli/analysis_commands.h"
#include "cli/site_commands.h"
#include "site/site_builder.h"
#include "site/site_data.h"
#include "site/site_input.h"

namespace ec::cli {

void add_site_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "site",
      "Write the report site (overview, measured, sessions, method, replications, "
      "estimate): static files that work from file://");
  struct Options {
    std::vector<std::string> paths;
    std::string db, curves, out;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("paths", o->paths,
                  "Reports, CSVs, measured.csv or directories (default: the results store)");
  cmd->add_option("--db", o->db,
                  "Results store (default ~/.local/share/ecocompute/results.sqlite)");
  cmd->add_option("--curves", o->curves,
                  "curves.json to chart (default: fit measured.csv or runs)");
  cmd->add_option("--out", o->out, "Output directory")->required();
  cmd->add_flag("--force", o->force, "Fit over sessions whose version stacks differ");
  cmd->callback([o] {
    site::SiteSources sources;
    for (const auto& p : o->paths) sources.paths.emplace_back(p);
    sources.db = o->db;
    sources.curves = o->curves;
    sources.force = o->force;
    const site::SiteInput input = site::load_site_input(sources);
    analysis_cli::report_problems(input.problems);
    for (const auto& w : input.warnings) fmt::print(stderr, "ecocompute: warning: {}\n", w);
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    const auto data = site::site_data(input, fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now));
    const size_t written = site::write_site(site::build_site(data), o->out);
    fmt::print("wrote {} files to {} ({} runs, {} configurations, {})\n", written, o->out,
               input.runs.size(), data["configs"].size(),
               input.curves
                   ? fmt::format("{} curves {}", input.curves->curves.size(), input.curves_source)
                   : std::string("no curves"));
  });
}

}  // namespace ec::cli
