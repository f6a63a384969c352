// `ecocompute info`: what this build is and what this machine can run and measure.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/build_info.h"
#include "meter/meter.h"
#include "model/presets.h"

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
  auto* cmd =
      app.add_subcommand("info", "Show this build and what this machine can run and measure");
  auto json_output = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_output, "Print JSON instead of text");
  cmd->callback([json_output] {
    nlohmann::json info;
    info["build"] = build_info();
    info["cpu"] = {{"model", cpu_model_name()}, {"threads", std::thread::hardware_concurrency()}};
    info["gpus"] = meter::describe_gpus();
    info["presets"] = nlohmann::json::array();
    for (const auto& preset : model::all_presets()) {
      info["presets"].push_back({{"name", preset.config.name},
                                 {"params_b", preset.config.params_b()},
                                 {"source", preset.source},
                                 {"description", preset.description}});
    }
    if (*json_output) {
      fmt::print("{}\n", info.dump(2));
      return;
    }
    const auto& b = info["build"];
    fmt::print("ecocompute {} (commit {}, {} {})\n", b["version"].get<std::string>(),
               b["commit"].get<std::string>(), b["compiler"].get<std::string>(),
               b["build_type"].get<std::string>());
    fmt::print("CUDA backend: {}\n", b["cuda"].is_null()
                                         ? "not built"
                                         : "built with CUDA " + b["cuda"].get<std::string>());
    fmt::print("CPU: {} ({} threads)\n", info["cpu"]["model"].get<std::string>(),
               info["cpu"]["threads"].get<unsigned>());
    const auto& gpus = info["gpus"];
    if (gpus.value("available", false) && gpus.contains("gpus")) {
      for (const auto& gpu : gpus["gpus"]) {
        fmt::print("GPU {}: {} — energy meter: {}{}\n", gpu.value("index", 0),
                   gpu.value("name", "?"), gpu.value("energy_meter", "?"),
                   gpu.contains("reason") ? " (" + gpu["reason"].get<std::string>() + ")" : "");
      }
    } else {
      fmt::print("GPUs: none usable ({})\n", gpus.value("reason", "no reason given"));
    }
    fmt::print("Presets (--model NAME, synthetic weights):\n");
    for (const auto& preset : info["presets"]) {
      fmt::print("  {:<16} {:>7.3f} B  {}\n", preset["name"].get<std::string>(),
                 preset["params_b"].get<double>(), preset["description"].get<std::string>());
    }
  });
}

}  // namespace ec::cli
