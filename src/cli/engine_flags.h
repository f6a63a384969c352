// Flags shared by every command that loads a model and builds an engine (run, generate, tune), and
// the environment variables that stand in for the CUDA ones (documented overrides, read here and
// nowhere below the CLI).
#pragma once

#include <cstdint>
#include <string>

#include "engine/engine.h"

namespace CLI {
class App;
}

namespace ec::cli {

struct EngineFlags {
  std::string model = "default";
  std::string backend = "auto";
  int threads = 0;
  uint64_t seed = 0;
  int max_context = 0;
  bool no_cuda_graph = false;
  // CUDA kernel choice (docs/gpu-machine.md). Empty: the environment variable, else the default.
  std::string tuning_table;     // a file, or "none"; EC_TUNING_TABLE
  std::string kernel_variants;  // a report's kernel_variant strings; EC_CUDA_VARIANTS
  std::string pdl;              // "on" or "off"; EC_CUDA_PDL (1/0)
  std::string cuda_attention;   // "fused" or "split"; EC_CUDA_ATTENTION
  bool cuda_profile = false;    // EC_CUDA_PROFILE=1
};

void add_engine_flags(CLI::App& cmd, EngineFlags& flags);

// A getter of environment variables (tests pass their own).
using EnvLookup = const char* (*)(const char* name);

// Resolves the backend ("auto" → cuda when a device is visible), reads the tuning table file, and
// applies each CUDA flag, or where it was not given its environment variable; precision is set by
// the caller. ec::UsageError naming the flag or variable when a value is not one it takes.
engine::EngineOptions to_engine_options(const EngineFlags& flags, EnvLookup env = nullptr);

}  // namespace ec::cli
