// `ecocompute info`: what this build is and what this machine can run and measure.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/build_info.h"

namespace ec::cli {
namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show this build and what this machine can run and measure");
  auto json_output = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_output, "Print JSON instead of text");
  cmd->callback([json_output] {
    nlohmann::json info;
    info["build"] = build_info();
    info["cpu"] = {{"model", cpu_model_name()}, {"threads", std::thread::hardware_concurrency()}};
    if (*json_output) {
      fmt::print("{}\n", info.dump(2));
      return;
    }
    const auto& b = info["build"];
    fmt::print("ecocompute {} (commit {}, {} {})\n", b["version"].get<std::string>(),
               b["commit"].get<std::string>(), b["compiler"].get<std::string>(),
               b["build_type"].get<std::string>());
    fmt::print("CUDA backend: {}\n",
               b["cuda"].is_null() ? "not built" : "built with CUDA " + b["cuda"].get<std::string>());
    fmt::print("CPU: {} ({} threads)\n", info["cpu"]["model"].get<std::string>(),
               info["cpu"]["threads"].get<unsigned>());
  });
}

}  // namespace ec::cli
