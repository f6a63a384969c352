// ecocompute entry point: builds the command tree and maps failures to exit codes (0 ok, 1 failure,
// 2 usage).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "cli/meter_commands.h"
#include "cli/original_compat.h"
#include "cli/site_commands.h"
#include "cli/sweep_commands.h"
#include "core/diagnostic.h"
#include "core/error.h"

int main(int argc, char** argv) {
  CLI::App app{"ecocompute: what quantizing an LLM really costs, in joules per token and quality"};
  app.set_version_flag("--version", EC_VERSION);
  app.require_subcommand(1);
  ec::cli::add_run_command(app);
  ec::cli::add_validate_command(app);
  ec::cli::add_info_command(app);
  ec::cli::add_tokenize_command(app);
  ec::cli::add_generate_command(app);
  ec::cli::add_tune_command(app);
  ec::cli::add_measure_command(app);
  ec::cli::add_ingest_command(app);
  ec::cli::add_aggregate_command(app);
  ec::cli::add_compare_command(app);
  ec::cli::add_fit_command(app);
  ec::cli::add_estimate_command(app);
  ec::cli::add_optimize_command(app);
  ec::cli::add_check_regression_command(app);
  ec::cli::add_sessions_command(app);
  ec::cli::add_sweep_command(app);
  ec::cli::add_site_command(app);
  ec::cli::add_mcp_command(app);
#ifdef EC_HAVE_SERVE
  ec::cli::add_serve_command(app);
#endif
  std::vector<std::string> original_args;  // the original EcoCompute's command line, as `run`
  std::vector<char*> original_argv;
  try {
    if (ec::cli::translate_if_original(argc, argv, original_args)) {
      for (std::string& arg : original_args) original_argv.push_back(arg.data());
      argc = static_cast<int>(original_argv.size());
      argv = original_argv.data();
    }
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's own messages name the option ("--repeats: ..."); they take our one error form too.
    ec::print_error(e.what());
    ec::print_note("run with --help for the options");
    return 2;
  } catch (const ec::cli::ExitStatus& e) {
    return e.code;
  } catch (const ec::UsageError& e) {
    ec::print_error(e.what());
    return 2;
  } catch (const ec::Error& e) {
    ec::print_error(e.what());
    return 1;
  } catch (const std::exception& e) {
    ec::print_error(fmt::format("unexpected: {}", e.what()));
    return 1;
  }
  return 0;
}
