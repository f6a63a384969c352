// --model, --backend, --threads, --seed, --max-context, --no-cuda-graph.
#include "cli/engine_flags.h"

#include <CLI/CLI.hpp>

namespace ec::cli {

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
}

engine::EngineOptions to_engine_options(const EngineFlags& flags) {
  engine::EngineOptions options;
  options.backend = engine::resolve_backend(flags.backend);
  options.threads = flags.threads;
  options.max_context = flags.max_context;
  options.cuda_graph = !flags.no_cuda_graph;
  return options;
}

}  // namespace ec::cli
