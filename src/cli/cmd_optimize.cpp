// `ecocompute optimize`: the best (precision, batch, context) for a size and class under latency,
// VRAM and throughput budgets; the same fields and answer as GET /v1/optimize (JSON).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/api.h"
#include "cli/analysis_commands.h"
#include "cli/commands.h"
#include "cli/curves_source.h"
#include "core/error.h"

namespace ec::cli {

void add_optimize_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "optimize",
      "Best precision x batch x context under latency/VRAM/throughput budgets (JSON, as "
      "/v1/optimize)");
  auto fields = std::make_shared<std::map<std::string, std::string>>();
  auto curves_path = std::make_shared<std::string>();
  struct Field {
    const char* flag;
    const char* name;
    const char* help;
  };
  static const Field kFields[] = {
      {"--params-b", "params_b", "Model size in billions of parameters (required)"},
      {"--arch", "arch", "GPU architecture class (required)"},
      {"--objective", "objective", "min_energy (default), min_latency, max_throughput, min_vram"},
      {"--max-latency-ms", "max_latency_ms", "Latency budget, ms per token"},
      {"--max-vram-gb", "max_vram_gb", "VRAM budget, GB"},
      {"--min-throughput", "min_throughput", "Throughput floor, tokens/s"},
      {"--precisions", "precisions", "Precisions to search, e.g. FP16,NF4,INT8 (the default)"},
      {"--batches", "batches", "Batch sizes to search (default 1,2,4,8,16,32)"},
      {"--contexts", "contexts", "Context lengths to search (default 512,...,8192)"},
      {"--batch", "batch", "Pin the batch size"},
      {"--context", "context", "Pin the context length"},
      {"--compat", "compat", "'original': the original optimizer's linear FP16 baseline"},
  };
  for (const auto& f : kFields) {
    cmd->add_option_function<std::string>(
        f.flag, [fields, name = f.name](const std::string& v) { (*fields)[name] = v; }, f.help);
  }
  cmd->add_option("--curves", *curves_path,
                  "curves.json written by `ecocompute fit` (default: the published curves)");
  cmd->callback([fields, curves_path] {
    const auto curves = load_curves(*curves_path);
    nlohmann::json body = nlohmann::json::object();
    for (const auto& [k, v] : *fields) body[k] = v;
    const api::ApiResponse r = api::optimize_fields(curves, body, {});
    if (r.status != 200) fail("{}", r.body["error"].get<std::string>());
    fmt::print("{}\n", r.body.dump(2));
  });
}

}  // namespace ec::cli
