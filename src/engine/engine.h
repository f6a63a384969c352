// The engine interface every backend implements: a model plus its KV cache, fed tokens, giving
// logits.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tuning_table.h"
#include "model/config.h"
#include "model/weights.h"
#include "quant/format.h"

namespace ec::engine {

// What the user asks for on the command line: the weight format the engine runs. INT8 means
// LLM.int8() (the seed's meaning).
using Precision = quant::Format;

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
  // The longest context a decode step of this engine's job attends to (prompt + new tokens); 0:
  // the KV cache's length. It sizes the CUDA decode attention's KV slices (one per 64 positions),
  // a choice of speed only: a longer context still decodes, in slices sized for this one.
  int decode_length = 0;
  bool cuda_graph = true;  // CUDA: capture the decode step as a graph
  int device = 0;          // CUDA device ordinal

  // CUDA decode kernels (docs/gpu-machine.md, "Kernel choice"). Each GEMV runs the tuning table's
  // variant for its shape where the table has one, else the heuristic's; nothing is timed at load.
  // The table: this one (its GPU must be this device's), or null for the one shipped for this GPU.
  std::shared_ptr<const TuningTable> tuning_table;
  bool use_tuning_table = true;  // false: the heuristic alone (what `tune` starts from)
  // A report's kernel_variant strings (';'-separated, one per engine prefix): run exactly those
  // variants and KV splits instead (pinned_variants.h). Empty: the table or the heuristic.
  std::string kernel_variants;
  bool pdl =
      true;  // programmatic dependent launch between the decode kernels, where the GPU has it
  // Decode attention: the fused kernel (RoPE, KV store and attention in one) where the head size
  // allows, or with split_attention the RoPE kernel and prefill's split attention (for A/B runs).
  bool split_attention = false;
  bool profile_decode = false;  // after the load, print each kernel class's time per step (stderr)
};

// What `ecocompute tune` measures: how long each timing is, and where in the KV cache.
struct TuneSettings {
  int steps = 5;  // decode steps per timing; each timing is the median of `runs`
  int runs = 5;
  double margin = 0.015;  // a variant replaces the incumbent only when this much faster
  int position = -1;      // KV-cache position the steps decode at; -1: the middle of the cache
  bool log = false;       // print every trial to stderr
};

// Facts a report records about the engine that produced it.
struct EngineInfo {
  std::string backend;         // "cpu" | "cuda"
  std::string precision;       // "FP16", "INT8", ...
  std::string weight_format;   // "fp16", "int8-llm", ...
  std::string kernel_variant;  // e.g. "cpu-f32acc-f16w", "cuda-f32acc-nf4-gemv-v2[qkv:r2p,...]"
  // How kernel_variant was chosen: "table" (every GEMV from the tuning table), "table+heuristic"
  // (some from it, the others by the heuristic), "heuristic" (no table entry), "pinned" (given by
  // EngineOptions::kernel_variants), "fixed" (one kernel per format).
  std::string kernel_variant_choice;
  // The tuning table the choice read (its name and SHA-256); empty when none was read.
  std::string tuning_table;
  std::string tuning_table_sha256;
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

// What a tune chose, and the candidates it refused.
struct TuneOutcome {
  std::vector<TuningEntry> entries;  // one per GEMV shape of the model
  // "role variant: how its outputs differ": candidates whose decode step gave other logits than
  // the starting set's, bit for bit (every variant of a format computes the same sums in the same
  // order, so each is a kernel bug); never timed, never chosen.
  std::vector<std::string> refused;
};

// Times the decode GEMV variants of `options.precision` on this GPU and returns the tuning table
// entries they choose, one per GEMV shape of the model (`ecocompute tune`). CUDA only: ec::Error
// for the CPU backend, whose kernels have no variants. `table_gpu` receives the GPU's name and
// compute capability (the table's key).
TuneOutcome tune_decode_kernels(std::shared_ptr<const model::ModelWeights> weights,
                                const EngineOptions& options, const TuneSettings& settings,
                                TuningTable& table_gpu);

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
