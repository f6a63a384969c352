// DecodeStep: the step's kernel sequence, its graph, and its timing.
#include "engine/cuda/decode_step.cuh"

#include <algorithm>
#include <utility>

#include "engine/cuda/argmax.cuh"
#include "engine/cuda/attention.cuh"
#include "engine/cuda/attention_decode.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/embedding.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/rope.cuh"

namespace ec::engine::cuda {

DecodeStep::DecodeStep(const DeviceModel& model, DecodeWorkspace& ws,
                       const model::ModelConfig& config, cudaStream_t stream, bool use_graph)
    : model_(model), ws_(ws), config_(config), stream_(stream), use_graph_(use_graph) {}

void DecodeStep::set_kernels(const DecodeKernels& kernels) {
  kernels_ = kernels;
  graph_ = CudaGraph();
  if (!use_graph_) return;
  set_position(0);  // the direct step writes the KV cache at the position: keep it inside
  enqueue();
  graph_ = CudaGraph::capture(stream_, [this] { enqueue(); });
}

void DecodeStep::launch() {
  if (graph_) {
    graph_.launch(stream_);
  } else {
    enqueue();
  }
}

void DecodeStep::set_position(int pos) {
  CUDA_CHECK(cudaStreamSynchronize(stream_));  // no earlier copy still reads host_io
  ws_.host_io.host()[1] = pos;
  CUDA_CHECK(cudaMemcpyAsync(ws_.pos.get(), ws_.host_io.host() + 1, sizeof(int),
                             cudaMemcpyHostToDevice, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DecodeStep::enqueue(std::vector<StageMark>* marks) {
  const auto mark = [&](int stage) {
    if (marks == nullptr) return;
    StageMark m{stage, make_event()};
    CUDA_CHECK(cudaEventRecord(m.event.get(), stream_));
    marks->push_back(std::move(m));
  };
  const auto& gemv_of = [&](DecodeRole role) -> const GemvConfig& {
    return kernels_.gemv[static_cast<size_t>(role)];
  };
  const double eps = config_.rms_norm_eps;
  mark(-1);
  embedding(model_.embed.get(), model_.dense == quant::Format::bf16, config_.vocab_size,
            config_.hidden_size, ws_.tokens.get(), 1, ws_.x.get(), stream_);
  mark(kStageEmbed);
  for (int l = 0; l < config_.num_layers; ++l) {
    GemvArgs qkv = model_.role_args(kQkv, l, eps);
    qkv.x = ws_.x.get();
    qkv.y = ws_.qkv.get();
    gemv(qkv, gemv_of(kQkv), stream_);
    mark(kStageQkv);

    if (kernels_.fused_attention) {
      // PDL as the GEMVs have it.
      decode_attention(ws_.decode_attention_args(l, kernels_.splits), gemv_of(kQkv).pdl, stream_);
      mark(kStageAttention);
    } else {
      rope_store(ws_.rope_store_args(l, 1), stream_);
      mark(kStageRope);
      attention(ws_.attention_args(l, 1, kernels_.splits), stream_);
      mark(kStageAttention);
    }

    GemvArgs o = model_.role_args(kO, l, eps);
    o.x = ws_.attn.get();
    o.residual = ws_.x.get();
    o.y = ws_.x.get();
    gemv(o, gemv_of(kO), stream_);
    mark(kStageO);

    GemvArgs gu = model_.role_args(kGateUp, l, eps);
    GemvArgs down = model_.role_args(kDown, l, eps);
    // Where down_proj takes x in fp16 (INT8-WO), gate_up hands it the activation in fp16: the
    // values down_proj would round itself, half the bytes each of its blocks reads.
    const bool act_in_fp16 = gemv_takes_x_half(down.format);
    gu.x = ws_.x.get();
    if (act_in_fp16) {
      gu.y_half = ws_.act_half.get();
    } else {
      gu.y = ws_.act.get();
    }
    gemv(gu, gemv_of(kGateUp), stream_);
    mark(kStageGateUp);

    if (act_in_fp16) {
      down.x_half = ws_.act_half.get();
    } else {
      down.x = ws_.act.get();
    }
    down.residual = ws_.x.get();
    down.y = ws_.x.get();
    gemv(down, gemv_of(kDown), stream_);
    mark(kStageDown);
  }
  GemvArgs head = model_.role_args(kHead, 0, eps);
  head.x = ws_.x.get();
  head.y = ws_.logits.get();
  gemv(head, gemv_of(kHead), stream_);
  mark(kStageHead);

  ArgmaxArgs am;
  am.logits = ws_.logits.get();
  am.n = config_.vocab_size;
  am.part_value = ws_.arg_value.get();
  am.part_index = ws_.arg_index.get();
  am.counter = ws_.arg_counter.get();
  am.out = ws_.tokens.get();  // the next step's input
  am.bump = ws_.pos.get();
  am.log = ws_.host_log.device();
  am.log_len = static_cast<int>(ws_.host_log.size());
  argmax(am, stream_);
  mark(kStageArgmax);
}

void DecodeStep::set_token(int32_t token) {
  ws_.host_io.host()[0] = token;
  CUDA_CHECK(cudaMemcpyAsync(ws_.tokens.get(), ws_.host_io.host(), sizeof(int32_t),
                             cudaMemcpyHostToDevice, stream_));
}

std::vector<float> DecodeStep::logits_after(int32_t token, int position) {
  set_position(position);  // synchronised: no earlier copy still reads host_io
  set_token(token);
  launch();
  std::vector<float> logits(static_cast<size_t>(config_.vocab_size));
  CUDA_CHECK(cudaMemcpyAsync(logits.data(), ws_.logits.get(), logits.size() * sizeof(float),
                             cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  return logits;
}

double DecodeStep::time_steps(int steps, int runs, int position) {
  const int at = std::max(0, std::min(position, ws_.capacity - steps - 2));
  CudaEvent start = make_event(), stop = make_event();
  std::vector<double> per_step;
  for (int rep = 0; rep < runs; ++rep) {
    set_position(at);
    launch();  // warm-up
    CUDA_CHECK(cudaEventRecord(start.get(), stream_));
    for (int i = 0; i < steps; ++i) launch();
    CUDA_CHECK(cudaEventRecord(stop.get(), stream_));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    per_step.push_back(static_cast<double>(elapsed_ms(start, stop)) * 1e-3 / steps);
  }
  // The median: the minimum of a few runs let one lucky run decide.
  std::sort(per_step.begin(), per_step.end());
  return per_step[per_step.size() / 2];
}

}  // namespace ec::engine::cuda
