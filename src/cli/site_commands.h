// The serving subcommands: `site` (static files), `serve` (the site plus the JSON API) and `mcp`
// (the estimator as MCP tools).
#pragma once

namespace CLI {
class App;
}

namespace ec::cli {

void add_site_command(CLI::App& app);
void add_serve_command(CLI::App& app);  // only built with cpp-httplib (EC_HAVE_SERVE)
void add_mcp_command(CLI::App& app);    // the estimator as MCP tools over stdio

}  // namespace ec::cli
