// The engine interface every backend implements: a model plus its KV cache, fed tokens, giving
// logits.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"
#include "model/weights.h"

namespace ec::engine {

// What the user asks for on the command line. INT8 means LLM.int8() (the seed's meaning).
enum class Precision { fp16, bf16, int8_llm, int8_wo, nf4, nf4_dq };

// Accepts FP16, BF16, INT8, INT8-WO, NF4, NF4-DQ in any case; throws ec::UsageError otherwise.
Precision parse_precision(std::string_view text);
// "FP16", "BF16", "INT8", "INT8-WO", "NF4", "NF4-DQ"
std::string_view precision_name(Precision p);
// "fp16", "bf16", "int8-llm", "int8-wo", "nf4", "nf4-dq"
std::string_view weight_format(Precision p);

enum class Backend { cpu, cuda };
Backend parse_backend(std::string_view text);  // "cpu", "cuda"; ec::UsageError otherwise
std::string_view backend_name(Backend b);
// True when this build has the CUDA backend and the process sees at least one CUDA device.
bool cuda_backend_available();
// "auto" → cuda when cuda_backend_available(), else cpu; otherwise parse_backend.
Backend resolve_backend(std::string_view text);

struct EngineOptions {
  Backend backend = Backend::cpu;
  Precision precision = Precision::fp16;
  int threads = 0;      // CPU threads; 0 = all hardware threads
  int max_context = 0;  // KV cache length; 0 = the model's max_position_embeddings (capped at 4096)
  bool cuda_graph = true;  // CUDA: capture the decode step as a graph
  int device = 0;          // CUDA device ordinal
  // CUDA autotuner: the KV-cache position its decode steps are timed at, so the variants are
  // chosen for the attention work the caller will decode at; -1 = the middle of the cache.
  int tune_position = -1;
};

// Facts a report records about the engine that produced it.
struct EngineInfo {
  std::string backend;         // "cpu" | "cuda"
  std::string precision;       // "FP16", "INT8", ...
  std::string weight_format;   // "fp16", "int8-llm", ...
  std::string kernel_variant;  // e.g. "cpu-fp32-accumulate", "cuda-gemv-fp16-v3"
  // How kernel_variant was chosen: "tuned" (timed on this GPU at load), "pinned" (given by
  // EC_CUDA_VARIANTS), "untuned" (EC_CUDA_TUNE=0: the defaults), "fixed" (one kernel per format).
  std::string kernel_variant_choice;
  std::string compute_dtype;  // "fp32" accumulate on the CPU
  bool cuda_graph = false;
  // Bytes of weights read per decoded token (GEMV operands + embeddings row).
  int64_t weight_bytes = 0;
  int max_context = 0;
  int threads = 0;
  std::string device_name;  // CPU model or GPU name
  std::string device_arch;  // "cpu", or the GPU architecture from its compute capability ("hopper")
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual const EngineInfo& info() const = 0;
  virtual const model::ModelConfig& config() const = 0;

  // Empties the KV cache; the next forward starts at position 0.
  virtual void reset() = 0;
  // Tokens already in the KV cache.
  virtual int position() const = 0;

  // Appends `tokens` at the current position and runs the model over them. With all_logits the
  // result is [tokens.size(), vocab] (every new position), otherwise [vocab] for the last one.
  // The span stays valid until the next call.
  virtual std::span<const float> forward(std::span<const int32_t> tokens, bool all_logits) = 0;

  // Appends one token and returns the argmax of the next-token logits (the greedy decode step).
  // Backends override this to keep logits on the device.
  virtual int32_t decode_greedy(int32_t token);

  // out.size() greedy steps from `token`: out[0] = decode_greedy(token), then out[i] =
  // decode_greedy(out[i - 1]); the last token is not fed back, so position() grows by out.size().
  // The CUDA backend runs the steps back to back, each step's token staying on the device for the
  // next, so no host round trip per token sits between them (the host sees the tokens at the end).
  virtual void decode_greedy_many(int32_t token, std::span<int32_t> out);

  // Waits for queued device work; the meter calls this at every window edge.
  virtual void synchronize() {}
};

// The single dispatch point from (backend, precision) to an engine. The weights are shared, not
// copied, where the backend can read them in place.
std::unique_ptr<Engine> make_engine(std::shared_ptr<const model::ModelWeights> weights,
                                    const EngineOptions& options);

// The weights' config, checked for what every backend needs: weights present, positive sizes,
// query heads a multiple of the KV heads, one weight layer per config layer. ec::Error otherwise.
const model::ModelConfig& checked_engine_config(
    const std::shared_ptr<const model::ModelWeights>& weights);

// The KV cache length every backend allocates: options.max_context, or the model's context capped
// at 4096 when it is 0; ec::Error when it exceeds the model's context.
int kv_cache_length(const model::ModelConfig& config, const EngineOptions& options);

// Index of the largest logit (the first one on ties, as torch.argmax does).
int32_t argmax(std::span<const float> logits);

// Greedy decoding: prefill `prompt`, then generate exactly `max_new_tokens` tokens
// (or stop early at `stop_token` when it is >= 0). Returns the generated ids only.
std::vector<int32_t> generate_greedy(Engine& engine, std::span<const int32_t> prompt,
                                     int max_new_tokens, int32_t stop_token = -1);

}  // namespace ec::engine
