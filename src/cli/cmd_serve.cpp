// `ecocompute serve [PATH…] [--db F] [--port P] [--host H]`: the report site and the /v1 JSON API.
#ifdef EC_HAVE_SERVE

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <pthread.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/analysis_commands.h"
#include "cli/site_commands.h"
#include "serve/site_server.h"
#include "site/site_builder.h"
#include "site/site_data.h"
#include "site/site_input.h"

namespace ec::cli {

void add_serve_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "serve",
      "Serve the report site and the JSON API (/v1/estimate, /v1/optimize, /v1/architectures, "
      "/openapi.json) on localhost");
  struct Options {
    std::vector<std::string> paths;
    std::string db, curves, compat, host = "127.0.0.1";
    int port = 8080;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("paths", o->paths,
                  "Reports, CSVs, measured.csv or directories (default: the results store)");
  cmd->add_option("--db", o->db,
                  "Results store (default ~/.local/share/ecocompute/results.sqlite)");
  cmd->add_option("--curves", o->curves,
                  "curves.json to serve (default: fit measured.csv or runs)");
  cmd->add_option("--port", o->port, "TCP port (0: any free port; default 8080)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", o->host, "Address to listen on (default 127.0.0.1: this machine only)");
  cmd->add_flag("--force", o->force, "Fit over sessions whose version stacks differ");
  cmd->add_option("--compat", o->compat,
                  "'original': answer every request as the original service does (docs/api.md)")
      ->check(CLI::IsMember({"original", "none"}));
  cmd->callback([o] {
    site::SiteSources sources;
    for (const auto& p : o->paths) sources.paths.emplace_back(p);
    sources.db = o->db;
    sources.curves = o->curves;
    sources.force = o->force;
    site::SiteInput input = site::load_site_input(sources);
    analysis_cli::report_problems(input.problems);
    for (const auto& w : input.warnings) fmt::print(stderr, "ecocompute: warning: {}\n", w);
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    auto files =
        site::build_site(site::site_data(input, fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now)));

    // SIGINT/SIGTERM are taken by a waiting thread (not an async handler) that stops the server.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    serve::ServeOptions options;
    options.host = o->host;
    options.port = o->port;
    options.api.compat_original = o->compat == "original";
    serve::SiteServer server(std::move(files), std::move(input.curves), options);
    const int port = server.bind();
    fmt::print(
        "serving the report site on http://{}:{}/ (API: /v1/estimate, /v1/optimize, "
        "/v1/architectures, /openapi.json)\n",
        o->host, port);
    std::fflush(stdout);
    std::thread waiter([&server, signals] {
      int sig = 0;
      sigwait(&signals, &sig);
      server.stop();
    });
    server.listen();
    // listen() also returns when the socket fails; wake the waiter so it can be joined.
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    fmt::print("stopped\n");
  });
}

}  // namespace ec::cli

#endif  // EC_HAVE_SERVE
