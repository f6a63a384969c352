// `ecocompute sessions`: the sessions in the results store, for compare and the site to name.
#include "analysis/sessions.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"

namespace ec::cli {

void add_sessions_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sessions",
      "List the sessions in the results store (runs, measured runs, when, GPUs, models, "
      "precisions); compare accepts any unique prefix of a name");
  auto o = std::make_shared<analysis_cli::CommonOptions>();
  analysis_cli::add_common_options(cmd, *o);
  cmd->callback([o] {
    const auto format = analysis_cli::output_format(*o);
    const auto runs = analysis_cli::load({}, *o);
    analysis_cli::print(analysis::sessions_table(analysis::summarize_sessions(runs.rows)), format);
  });
}

}  // namespace ec::cli
