// Flags shared by every command that loads a model and builds an engine (run, generate).
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
};

void add_engine_flags(CLI::App& cmd, EngineFlags& flags);
// Resolves the backend ("auto" → cuda when a device is visible); precision is set by the caller.
engine::EngineOptions to_engine_options(const EngineFlags& flags);

}  // namespace ec::cli
