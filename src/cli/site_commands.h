// The report-site subcommands: `site` (static files) and `serve` (the site plus a JSON API).
#pragma once

namespace CLI {
class App;
}

namespace ec::cli {

void add_site_command(CLI::App& app);
void add_serve_command(CLI::App& app);  // only built with cpp-httplib (EC_HAVE_SERVE)

}  // namespace ec::cli
