// `ecocompute mcp`: the estimator as an MCP server on stdin/stdout (docs/api.md shows the client
// configuration). Diagnostics go to stderr: stdout is the protocol channel.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "cli/curves_source.h"
#include "cli/site_commands.h"
#include "core/error.h"
#include "mcp/mcp_server.h"

namespace ec::cli {

void add_mcp_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "mcp", "Serve should_i_quantize and list_architectures as MCP tools over stdio");
  struct Options {
    std::string curves, compat;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--curves", o->curves,
                  "curves.json written by `ecocompute fit` (default: the published curves)");
  cmd->add_option("--compat", o->compat, "'original': answer as the original does (docs/api.md)")
      ->check(CLI::IsMember({"original", "none"}));
  cmd->callback([o] {
    api::ApiOptions options;
    options.compat_original = o->compat == "original";
    const mcp::McpServer server(load_curves(o->curves), options);
    fmt::print(stderr, "ecocompute MCP server on stdio\n");
    std::ios::sync_with_stdio(false);
    server.serve(std::cin, std::cout);
  });
}

}  // namespace ec::cli
