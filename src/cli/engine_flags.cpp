// --model, --backend, --threads, --seed, --max-context, --no-cuda-graph and the CUDA kernel
// choice: --tuning-table, --kernel-variants, --pdl, --cuda-attention, --cuda-profile.
#include "cli/engine_flags.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>

#include "core/error.h"
#include "engine/tuning_table.h"

namespace ec::cli {
namespace {

// The flag's value when given, else the environment variable's (empty when neither).
std::string flag_or_env(const std::string& flag, const char* variable, EnvLookup env) {
  if (!flag.empty()) return flag;
  const char* value = env(variable);
  return value != nullptr ? std::string(value) : std::string();
}

// "on"/"off" (flag) or "1"/"0" (variable), or empty; `what` names where it came from.
std::optional<bool> on_off(const std::string& value, std::string_view what) {
  if (value.empty()) return std::nullopt;
  if (value == "on" || value == "1") return true;
  if (value == "off" || value == "0") return false;
  fail_usage("{}: '{}' is not on or off (1 or 0)", what, value);
}

}  // namespace

void add_engine_flags(CLI::App& cmd, EngineFlags& flags) {
  cmd.add_option("-m,--model", flags.model,
                 "Preset name (synthetic weights) or Hugging Face checkpoint directory")
      ->capture_default_str();
  cmd.add_option("--backend", flags.backend,
                 "auto (cuda when a GPU is visible, else cpu), cpu or cuda")
      ->capture_default_str();
  cmd.add_option("--threads", flags.threads, "CPU threads (0 = all)")->capture_default_str();
  cmd.add_option("--seed", flags.seed, "Seed of synthetic weights")->capture_default_str();
  cmd.add_option("--max-context", flags.max_context,
                 "KV cache length (0 = the model's context, capped at 4096)")
      ->capture_default_str();
  cmd.add_flag("--no-cuda-graph", flags.no_cuda_graph,
               "Do not capture the decode step as a CUDA graph");
  cmd.add_option("--tuning-table", flags.tuning_table,
                 "CUDA: the tuning table to take kernel variants from instead of the one shipped "
                 "for this GPU, or 'none' for the heuristic alone (env EC_TUNING_TABLE)");
  cmd.add_option("--kernel-variants", flags.kernel_variants,
                 "CUDA: run the kernel variants a report recorded (its engine.kernel_variant "
                 "strings, ';'-separated) instead of the table's (env EC_CUDA_VARIANTS)");
  cmd.add_option("--pdl", flags.pdl,
                 "CUDA: programmatic dependent launch between decode kernels, on (where the GPU "
                 "has it) or off (env EC_CUDA_PDL=1/0)")
      ->check(CLI::IsMember({"on", "off"}));
  cmd.add_option("--cuda-attention", flags.cuda_attention,
                 "CUDA: decode attention, fused (default where the head size allows) or split "
                 "(env EC_CUDA_ATTENTION)")
      ->check(CLI::IsMember({"fused", "split"}));
  cmd.add_flag("--cuda-profile", flags.cuda_profile,
               "CUDA: after the load, print each kernel class's time per decode step (env "
               "EC_CUDA_PROFILE=1)");
}

engine::EngineOptions to_engine_options(const EngineFlags& flags, EnvLookup env) {
  if (env == nullptr) env = [](const char* name) -> const char* { return std::getenv(name); };
  engine::EngineOptions options;
  options.backend = engine::resolve_backend(flags.backend);
  options.threads = flags.threads;
  options.max_context = flags.max_context;
  options.cuda_graph = !flags.no_cuda_graph;

  const std::string table = flag_or_env(flags.tuning_table, "EC_TUNING_TABLE", env);
  if (table == "none") {
    options.use_tuning_table = false;
  } else if (!table.empty()) {
    options.tuning_table =
        std::make_shared<const engine::TuningTable>(engine::read_tuning_table(table));
  }
  options.kernel_variants = flag_or_env(flags.kernel_variants, "EC_CUDA_VARIANTS", env);
  const std::string pdl = flag_or_env(flags.pdl, "EC_CUDA_PDL", env);
  options.pdl = on_off(pdl, flags.pdl.empty() ? "EC_CUDA_PDL" : "--pdl").value_or(true);
  const std::string attention = flag_or_env(flags.cuda_attention, "EC_CUDA_ATTENTION", env);
  if (!attention.empty() && attention != "fused" && attention != "split") {
    fail_usage("EC_CUDA_ATTENTION: '{}' is not fused or split", attention);
  }
  options.split_attention = attention == "split";
  const std::string profile = flags.cuda_profile ? "1" : flag_or_env("", "EC_CUDA_PROFILE", env);
  options.profile_decode = on_off(profile, "EC_CUDA_PROFILE").value_or(false);
  return options;
}

}  // namespace ec::cli
