// The CUDA engine: a Llama/Qwen2 forward pass over FP32 activations, an fp16 KV cache and
// CudaLinear weights. Where the parts live: the upload in device_model, the buffers in
// decode_workspace, the decode step and its graph in decode_step, the kernel choice (tuning
// table, heuristic, pinned strings) in kernel_choice, the tuner in ../decode_tuner. Here: the
// Engine interface over them (prefill chunk by chunk through cuBLAS, decode steps chained on the
// device), and what the engine reports about itself.
#include "engine/cuda/cuda_engine.h"

#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "engine/cuda/attention.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/cuda_handles.cuh"
#include "engine/cuda/decode_profile.cuh"
#include "engine/cuda/decode_step.cuh"
#include "engine/cuda/decode_workspace.cuh"
#include "engine/cuda/device_model.cuh"
#include "engine/cuda/embedding.cuh"
#include "engine/cuda/kernel_choice.cuh"
#include "engine/cuda/rmsnorm.cuh"
#include "engine/cuda/rope.cuh"
#include "engine/decode_tuner.h"
#include "engine/device_arch.h"
#include "engine/tuning_model.h"

namespace ec::engine::cuda {
namespace {

size_t sz(int64_t n) {
  return static_cast<size_t>(n);
}

// checked_engine_config, and what the CUDA attention can hold.
const model::ModelConfig& checked_config(const std::shared_ptr<const model::ModelWeights>& w) {
  const auto& c = checked_engine_config(w);
  EC_CHECK(c.num_heads / c.num_kv_heads <= kAttentionMaxGroup,
           "model {}: {} query heads over {} KV heads; the CUDA attention needs at most {} query "
           "heads per KV head",
           c.name, c.num_heads, c.num_kv_heads, kAttentionMaxGroup);
  EC_CHECK(c.head_dim % 2 == 0 && c.head_dim <= kAttentionMaxHeadDim,
           "model {}: head_dim {} must be even and at most {}", c.name, c.head_dim,
           kAttentionMaxHeadDim);
  return c;
}

cudaDeviceProp device_properties(int device) {
  EC_CHECK(cuda_device_available(), "--backend cuda: no CUDA device is available");
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop;
}

class CudaEngine final : public Engine {
 public:
  CudaEngine(std::shared_ptr<const model::ModelWeights> weights, const EngineOptions& options);

  const EngineInfo& info() const override { return info_; }
  const model::ModelConfig& config() const override { return config_; }
  void reset() override {
    position_ = 0;
    step_->set_position(0);
  }
  int position() const override { return position_; }
  std::span<const float> forward(std::span<const int32_t> tokens, bool all_logits) override;
  int32_t decode_greedy(int32_t token) override;
  void decode_greedy_many(int32_t token, std::span<int32_t> out) override;
  void synchronize() override { CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }

  // Times every role's variants (decode_tuner) and returns the table entries they choose; the
  // engine then runs the chosen set.
  TuneOutcome tune(const TuneSettings& settings, TuningTable& table_gpu);

 private:
  KernelContext kernel_context() const;
  DecodeKernels choose_kernels();
  void check_tokens(std::span<const int32_t> tokens) const;
  // ec::Error, naming `caller` and "n `what`", when n more positions do not fit the KV cache.
  void check_room(int n, std::string_view caller, std::string_view what) const;
  void run_decode_step(int32_t token);
  // Makes `token` the next decode step's input. The device holds the previous step's argmax
  // there already, so only a token the host chose (a prompt's, a forced one) is copied.
  void feed_token(int32_t token);
  void prefill_chunk(std::span<const int32_t> tokens, bool all_logits, bool last_chunk,
                     float* logits_host);
  void describe();

  std::shared_ptr<const model::ModelWeights> weights_;
  model::ModelConfig config_;
  EngineOptions options_;
  cudaDeviceProp prop_{};
  EngineInfo info_;
  int capacity_ = 0;
  // Declared in the order they are made: destroyed in reverse, the stream last.
  CudaStream stream_;
  CublasHandle cublas_;
  DeviceModel model_;
  std::unique_ptr<DecodeWorkspace> ws_;
  std::unique_ptr<DecodeStep> step_;
  int position_ = 0;
  // What ws_->tokens[0] holds, as far as the host knows (-1: not known, e.g. after timed steps).
  int32_t device_token_ = -1;
  std::vector<float> logits_host_;
};

CudaEngine::CudaEngine(std::shared_ptr<const model::ModelWeights> weights,
                       const EngineOptions& options)
    : weights_(std::move(weights)),
      config_(checked_config(weights_)),
      options_(options),
      prop_(device_properties(options.device)),
      capacity_(kv_cache_length(config_, options)),
      stream_(make_stream()),
      cublas_(make_cublas(stream_.get())) {
  model_ = upload_model(*weights_, config_, options.precision, stream_.get());
  ws_ = std::make_unique<DecodeWorkspace>(config_, capacity_, options.precision,
                                          model_.max_segment_weights);
  CUDA_CHECK(cudaDeviceSynchronize());
  step_ = std::make_unique<DecodeStep>(model_, *ws_, config_, stream_.get(), options.cuda_graph);
  step_->set_kernels(choose_kernels());
  if (options.profile_decode) {
    std::fprintf(stderr, "[cuda profile] %s %s: %s\n", config_.name.c_str(),
                 std::string(quant::format_name(model_.format)).c_str(),
                 profile_decode(*step_, 10).c_str());
  }
  describe();
  reset();
}

KernelContext CudaEngine::kernel_context() const {
  KernelContext ctx;
  ctx.model = &model_;
  ctx.config = &config_;
  ctx.decode_length =
      options_.decode_length > 0 ? std::min(options_.decode_length, capacity_) : capacity_;
  ctx.compute_major = prop_.major;
  ctx.device = current_gemv_device();
  ctx.pdl = options_.pdl && prop_.major >= 9;
  ctx.split_attention = options_.split_attention;
  return ctx;
}

DecodeKernels CudaEngine::choose_kernels() {
  const KernelContext ctx = kernel_context();
  if (!options_.kernel_variants.empty()) {
    return pinned_kernels(ctx, options_.kernel_variants, "--kernel-variants");
  }
  if (!options_.use_tuning_table) return heuristic_kernels(ctx);
  const TuningTable* table = options_.tuning_table.get();
  if (table != nullptr) {
    EC_CHECK(table->for_gpu(prop_.name, prop_.major, prop_.minor),
             "tuning table {} was measured on {} (compute capability {}.{}); this GPU is {} "
             "({}.{}): measure one here with `ecocompute tune`, or load without it "
             "(--tuning-table none)",
             table->name, table->gpu_name, table->cc_major, table->cc_minor, prop_.name,
             prop_.major, prop_.minor);
  } else {
    table = find_table_for_gpu(shipped_tuning_tables(), prop_.name, prop_.major, prop_.minor);
  }
  if (table == nullptr) return heuristic_kernels(ctx);
  info_.tuning_table = table->name;
  info_.tuning_table_sha256 = table->sha256;
  return kernels_from_table(ctx, *table);
}

void CudaEngine::describe() {
  info_.backend = std::string(backend_name(Backend::cuda));
  info_.precision = std::string(precision_name(options_.precision));
  info_.weight_format = std::string(weight_format(options_.precision));
  info_.kernel_variant = variant_name(model_.format, step_->kernels());
  info_.kernel_variant_choice = step_->kernels().source;
  info_.compute_dtype = "fp32";
  info_.cuda_graph = options_.cuda_graph;
  info_.weight_bytes = model_.decode_weight_bytes();
  info_.max_context = capacity_;
  info_.threads = 0;
  info_.device_name = prop_.name;
  info_.device_arch = std::string(architecture_of_compute_capability(prop_.major, prop_.minor));
}

TuneOutcome CudaEngine::tune(const TuneSettings& settings, TuningTable& table_gpu) {
  const KernelContext ctx = kernel_context();
  const DecodeKernels heuristic = heuristic_kernels(ctx);
  // What the engine runs now (the tuning table's variants, else the heuristic's, or pinned ones):
  // the descent starts from it, so a tune keeps a table's set unless its own timings find a faster
  // one. Started from the heuristic, a tune of TinyLlama FP16 settled on a set 3.8 % slower in
  // decode than the table's, which it never timed.
  const DecodeKernels current = step_->kernels();
  std::vector<TunerRole> roles;
  std::vector<std::vector<GemvConfig>> configs;
  for (int r = 0; r < kDecodeRoleCount; ++r) {
    std::vector<GemvConfig> c = role_candidates(ctx, static_cast<DecodeRole>(r));
    std::stable_partition(c.begin(), c.end(),
                          [&](const GemvConfig& g) { return same_kernel(g, current.gemv[sz(r)]); });
    TunerRole role{std::string(kDecodeRoles[sz(r)]), {}, {}};
    for (GemvConfig g : c) {
      role.chain_only.push_back(g.pipeline == GemvPipeline::bulk);
      g.pdl = false;
      role.candidates.push_back(gemv_config_name(g));
    }
    roles.push_back(std::move(role));
    configs.push_back(std::move(c));
  }
  const int position = settings.position >= 0 ? settings.position : capacity_ / 2;
  const auto apply = [&](const TunerChoice& choice) {
    DecodeKernels k = heuristic;
    for (size_t r = 0; r < configs.size(); ++r) k.gemv[r] = configs[r][sz(choice[r])];
    k.source = "tuned";
    step_->set_kernels(k);
  };
  TunerCallbacks callbacks;
  callbacks.time_steps = [&](const TunerChoice& choice, int steps) {
    apply(choice);
    return step_->time_steps(steps, settings.runs, position);
  };
  // The starting set's logits of one step (token 0 at position 0: attention reads only the key and
  // value that step writes, so nothing left in the cache by timings enters them), against which
  // every candidate's are compared bit for bit before it is timed.
  apply(TunerChoice(roles.size(), 0));
  const std::vector<float> reference = step_->logits_after(0, 0);
  callbacks.differs = [&](const TunerChoice& choice) {
    apply(choice);
    return logits_difference(reference, step_->logits_after(0, 0));
  };
  const std::string label = fmt::format("{} {}", config_.name, quant::format_name(model_.format));
  if (settings.log) {
    callbacks.log = [&](std::string_view line) {
      std::fprintf(stderr, "[tune] %s: %.*s\n", label.c_str(), static_cast<int>(line.size()),
                   line.data());
    };
  }
  TunerSettings tuner;
  tuner.steps = settings.steps;
  tuner.margin = settings.margin;
  const TunerResult result = tune_decode(roles, tuner, callbacks);
  apply(result.choice);
  device_token_ = -1;  // the timed steps left their own argmax in tokens[0]
  describe();
  reset();

  table_gpu.gpu_name = prop_.name;
  table_gpu.cc_major = prop_.major;
  table_gpu.cc_minor = prop_.minor;
  TuneOutcome outcome;
  outcome.refused = result.refused;
  std::vector<TuningEntry>& entries = outcome.entries;
  for (int r = 0; r < kDecodeRoleCount; ++r) {
    TuningEntry e;
    e.key = tuning_key(ctx, static_cast<DecodeRole>(r));
    e.variant = roles[sz(r)].candidates[sz(result.choice[sz(r)])];
    e.model = tuning_model_name(config_);
    e.step_us = result.step_seconds * 1e6;
    entries.push_back(std::move(e));
  }
  return outcome;
}

void CudaEngine::check_tokens(std::span<const int32_t> tokens) const {
  const int n = static_cast<int>(tokens.size());
  EC_CHECK(n > 0, "forward: no tokens");
  check_room(n, "forward", "new tokens");
  for (int i = 0; i < n; ++i) {
    EC_CHECK(tokens[sz(i)] >= 0 && tokens[sz(i)] < config_.vocab_size,
             "forward: token id {} at index {} is outside the vocabulary [0, {})", tokens[sz(i)], i,
             config_.vocab_size);
  }
}

void CudaEngine::check_room(int n, std::string_view caller, std::string_view what) const {
  if (static_cast<int64_t>(position_) + n > capacity_) {
    fail(
        "{}: {} {} at position {} exceed the KV cache of max_context {} tokens (reset() the engine "
        "or raise max_context)",
        caller, n, what, position_, capacity_);
  }
}

void CudaEngine::feed_token(int32_t token) {
  if (token == device_token_) return;
  // Every decode path synchronises before it returns, so no copy still reads host_io[0].
  step_->set_token(token);
  device_token_ = token;
}

void CudaEngine::run_decode_step(int32_t token) {
  const int32_t one[1] = {token};
  check_tokens(one);
  feed_token(token);
  step_->launch();
  CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  device_token_ = ws_->host_log.host()[position_];
  ++position_;
}

int32_t CudaEngine::decode_greedy(int32_t token) {
  run_decode_step(token);
  return device_token_;
}

void CudaEngine::decode_greedy_many(int32_t token, std::span<int32_t> out) {
  const int n = static_cast<int>(out.size());
  if (n == 0) return;
  const int32_t one[1] = {token};
  check_tokens(one);
  check_room(n, "decode", "steps");
  feed_token(token);
  for (int i = 0; i < n; ++i) step_->launch();
  CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  std::copy_n(ws_->host_log.host() + position_, n, out.begin());
  position_ += n;
  device_token_ = out.back();
}

std::span<const float> CudaEngine::forward(std::span<const int32_t> tokens, bool all_logits) {
  check_tokens(tokens);
  const int n = static_cast<int>(tokens.size());
  const int64_t vocab = config_.vocab_size;
  if (n == 1) {
    // The decode path (graph), so forward and decode_greedy give the same logits.
    run_decode_step(tokens[0]);
    logits_host_.resize(sz(vocab));
    CUDA_CHECK(cudaMemcpy(logits_host_.data(), ws_->logits.get(), sz(vocab) * sizeof(float),
                          cudaMemcpyDeviceToHost));
    return logits_host_;
  }
  logits_host_.resize(sz(all_logits ? n * vocab : vocab));
  for (int c0 = 0; c0 < n; c0 += kPrefillChunk) {
    const int len = std::min(kPrefillChunk, n - c0);
    float* out = all_logits ? logits_host_.data() + sz(c0 * vocab) : logits_host_.data();
    prefill_chunk(tokens.subspan(sz(c0), sz(len)), all_logits, c0 + len == n, out);
  }
  return logits_host_;
}

void CudaEngine::prefill_chunk(std::span<const int32_t> tokens, bool all_logits, bool last_chunk,
                               float* logits_host) {
  const auto& c = config_;
  DecodeWorkspace& ws = *ws_;
  cudaStream_t stream = stream_.get();
  cublasHandle_t cublas = cublas_.get();
  // The decode step's variants: for int8-llm, the prefill's outlier kernel takes its config.
  const auto& gemv = step_->kernels().gemv;
  const int m = static_cast<int>(tokens.size());
  const int hidden = c.hidden_size;
  step_->set_position(position_);
  CUDA_CHECK(cudaMemcpyAsync(ws.tokens.get(), tokens.data(), tokens.size_bytes(),
                             cudaMemcpyHostToDevice, stream));
  device_token_ = tokens[0];
  embedding(model_.embed.get(), model_.dense == quant::Format::bf16, c.vocab_size, hidden,
            ws.tokens.get(), m, ws.x.get(), stream);
  const int splits = attention_splits(m, c.num_kv_heads, position_ + m);
  EC_CHECK(m * splits <= kPartialSlots, "prefill: attention scratch too small");
  for (int l = 0; l < c.num_layers; ++l) {
    const DeviceLayer& L = model_.layers[sz(l)];
    rmsnorm(ws.x.get(), L.attn_norm.get(), m, hidden, c.rms_norm_eps, ws.h.get(), stream);
    L.qkv.prefill(ws.h.get(), m, ws.qkv.get(), false, ws.scratch, cublas, gemv[kQkv], stream);
    rope_store(ws.rope_store_args(l, m), stream);
    attention(ws.attention_args(l, m, splits), stream);
    L.o.prefill(ws.attn.get(), m, ws.x.get(), true, ws.scratch, cublas, gemv[kO], stream);
    rmsnorm(ws.x.get(), L.ffn_norm.get(), m, hidden, c.rms_norm_eps, ws.h.get(), stream);
    L.gate_up.prefill(ws.h.get(), m, ws.act.get(), false, ws.scratch, cublas, gemv[kGateUp],
                      stream);
    L.down.prefill(ws.act.get(), m, ws.x.get(), true, ws.scratch, cublas, gemv[kDown], stream);
  }
  const int64_t vocab = c.vocab_size;
  if (all_logits || last_chunk) {
    // All positions' logits, or the last position's only.
    const int rows = all_logits ? m : 1;
    const float* from = all_logits ? ws.x.get() : ws.x.get() + sz(int64_t{m - 1} * hidden);
    rmsnorm(from, model_.final_norm.get(), rows, hidden, c.rms_norm_eps, ws.h.get(), stream);
    model_.lm_head.prefill(ws.h.get(), rows, ws.logits.get(), false, ws.scratch, cublas,
                           gemv[kHead], stream);
    CUDA_CHECK(cudaMemcpyAsync(logits_host, ws.logits.get(), sz(rows * vocab) * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  position_ += m;
  step_->set_position(position_);
}

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(std::shared_ptr<const model::ModelWeights> weights,
                                         const EngineOptions& options) {
  return std::make_unique<CudaEngine>(std::move(weights), options);
}

TuneOutcome tune_cuda_engine(std::shared_ptr<const model::ModelWeights> weights,
                             const EngineOptions& options, const TuneSettings& settings,
                             TuningTable& table_gpu) {
  // Start from what a load of this model runs (the tuning table's variants, else the heuristic's;
  // CudaEngine::tune says why), not from variants pinned for a run.
  EngineOptions start = options;
  start.kernel_variants.clear();
  std::unique_ptr<CudaEngine> engine;
  try {
    engine = std::make_unique<CudaEngine>(weights, start);
  } catch (const Error& e) {
    // A table this build no longer reads (a variant it does not offer) is what a tune replaces.
    if (!start.use_tuning_table) throw;
    std::fprintf(stderr, "tune: starting from the heuristic: %s\n", e.what());
    start.use_tuning_table = false;
    engine = std::make_unique<CudaEngine>(std::move(weights), start);
  }
  return engine->tune(settings, table_gpu);
}

}  // namespace ec::engine::cuda
