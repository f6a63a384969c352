// The CPU engine end to end on tiny random models: logits against a double-precision forward pass,
// KV-cache behaviour (prefill split, decode, reset, overflow), formats, threads and EngineInfo.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "core/error.h"
#include "engine/engine.h"
#include "engine/tiny_model.h"

namespace ec::engine {
namespace {

using ::testing::HasSubstr;

std::vector<int32_t> random_tokens(int n, int vocab, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> d(0, vocab - 1);
  std::vector<int32_t> t(static_cast<size_t>(n));
  for (auto& x : t) x = d(rng);
  return t;
}

std::vector<float> copy(std::span<const float> s) {
  return {s.begin(), s.end()};
}

void expect_matches_reference(Engine& engine, const model::ModelWeights& w,
                              const std::vector<int32_t>& tokens, DType round_to, double tol) {
  engine.reset();
  const auto logits = copy(engine.forward(tokens, true));
  const auto ref = test::reference_logits(w, tokens, round_to);
  const size_t vocab = static_cast<size_t>(w.config.vocab_size);
  ASSERT_EQ(logits.size(), tokens.size() * vocab);
  for (size_t t = 0; t < tokens.size(); ++t) {
    const std::span<const float> row(logits.data() + t * vocab, vocab);
    const std::span<const double> ref_row(ref.data() + t * vocab, vocab);
    EXPECT_LT(test::relative_error(row, ref_row), tol) << "position " << t;
  }
}

struct ModelCase {
  const char* name;
  test::TinySpec spec;
  Precision precision;
  DType round_to;  // the 16-bit type the engine computes with
};

class EngineVsReference : public ::testing::TestWithParam<ModelCase> {};

TEST_P(EngineVsReference, LogitsMatchDoublePrecisionForward) {
  const auto& c = GetParam();
  const auto w = test::make_tiny_model(c.spec);
  EngineOptions options;
  options.precision = c.precision;
  options.threads = 2;
  auto engine = make_engine(w, options);
  expect_matches_reference(*engine, *w, random_tokens(19, c.spec.vocab, 5), c.round_to, 2e-5);
}

test::TinySpec qwen_spec() {
  test::TinySpec s;
  s.arch = model::Arch::qwen2;
  s.tied = true;
  s.bias = true;
  s.theta = 1000000.0;
  s.seed = 2;
  return s;
}

test::TinySpec bf16_spec() {
  test::TinySpec s;
  s.dtype = DType::bf16;
  s.seed = 3;
  s.heads = 8;
  s.kv_heads = 1;
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Models, EngineVsReference,
    ::testing::Values(
        ModelCase{"llama_gqa_fp16", {}, Precision::fp16, DType::f16},
        ModelCase{"qwen2_tied_bias_fp16", qwen_spec(), Precision::fp16, DType::f16},
        ModelCase{"bf16_checkpoint_as_fp16", bf16_spec(), Precision::fp16, DType::f16},
        ModelCase{"bf16_checkpoint_as_bf16", bf16_spec(), Precision::bf16, DType::bf16},
        ModelCase{"fp16_checkpoint_as_bf16", {}, Precision::bf16, DType::bf16}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(CpuEngine, PrefillInPartsEqualsPrefillAtOnce) {
  test::TinySpec spec = qwen_spec();
  const auto w = test::make_tiny_model(spec);
  auto engine = make_engine(w, {});
  // 150 tokens cross the engine's internal chunk of 128.
  const auto tokens = random_tokens(150, spec.vocab, 9);
  const auto all = copy(engine->forward(tokens, true));
  EXPECT_EQ(engine->position(), 150);
  const size_t vocab = static_cast<size_t>(spec.vocab);

  engine->reset();
  EXPECT_EQ(engine->position(), 0);
  const std::span<const int32_t> span(tokens);
  engine->forward(span.first(100), false);
  const auto rest = copy(engine->forward(span.subspan(100, 30), true));
  ASSERT_EQ(rest.size(), 30 * vocab);
  for (size_t i = 0; i < rest.size(); ++i) ASSERT_EQ(rest[i], all[100 * vocab + i]) << i;
  // One-token decode steps continue the same sequence.
  for (int t = 130; t < 150; ++t) {
    const auto step = copy(engine->forward(span.subspan(static_cast<size_t>(t), 1), false));
    for (size_t i = 0; i < vocab; ++i) ASSERT_EQ(step[i], all[t * vocab + i]) << t;
  }
  // The last-position logits alone equal the last row of all_logits.
  engine->reset();
  const auto last = copy(engine->forward(tokens, false));
  ASSERT_EQ(last.size(), vocab);
  for (size_t i = 0; i < vocab; ++i) EXPECT_EQ(last[i], all[149 * vocab + i]);
}

TEST(CpuEngine, ResetStartsOverAndThreadCountDoesNotChangeResults) {
  const auto w = test::make_tiny_model({});
  EngineOptions one;
  one.threads = 1;
  EngineOptions three;
  three.threads = 3;
  auto a = make_engine(w, one);
  auto b = make_engine(w, three);
  EXPECT_EQ(a->info().threads, 1);
  EXPECT_EQ(b->info().threads, 3);
  const auto tokens = random_tokens(12, 97, 4);
  const auto first = copy(a->forward(tokens, true));
  a->forward(random_tokens(5, 97, 8), false);  // something else in the cache
  a->reset();
  EXPECT_EQ(copy(a->forward(tokens, true)), first);
  EXPECT_EQ(copy(b->forward(tokens, true)), first);
}

TEST(CpuEngine, OverflowingTheContextIsAClearErrorAndChangesNothing) {
  const auto w = test::make_tiny_model({});
  EngineOptions options;
  options.max_context = 16;
  auto engine = make_engine(w, options);
  EXPECT_EQ(engine->info().max_context, 16);
  engine->forward(random_tokens(10, 97, 1), false);
  try {
    engine->forward(random_tokens(7, 97, 2), false);
    FAIL() << "expected ec::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("max_context 16"));
  }
  EXPECT_EQ(engine->position(), 10);
  engine->forward(random_tokens(6, 97, 3), false);  // exactly fills it
  EXPECT_EQ(engine->position(), 16);
  EXPECT_THROW(engine->decode_greedy(1), Error);

  options.max_context = 300;  // beyond max_position_embeddings (256)
  EXPECT_THROW(make_engine(w, options), Error);
  options.max_context = 0;
  EXPECT_EQ(make_engine(w, options)->info().max_context, 256);
}

TEST(CpuEngine, RejectsTokensOutsideTheVocabulary) {
  const auto w = test::make_tiny_model({});
  auto engine = make_engine(w, {});
  const std::vector<int32_t> bad = {1, 97};
  EXPECT_THROW(engine->forward(bad, false), Error);
  const std::vector<int32_t> negative = {-1};
  EXPECT_THROW(engine->forward(negative, false), Error);
  EXPECT_EQ(engine->position(), 0);
}

TEST(CpuEngine, RejectsWeightsThatDoNotMatchTheConfig) {
  auto w = test::make_tiny_model({});
  std::mt19937_64 rng(1);
  w->layers[1].w_up =
      test::random_tensor("model.layers.1.mlp.up_proj.weight", {95, 64}, DType::f16, rng, 0.1f);
  try {
    make_engine(w, {});
    FAIL() << "expected ec::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("model.layers.1.mlp.up_proj.weight"));
    EXPECT_THAT(e.what(), HasSubstr("expected [96, 64]"));
  }
}

TEST(CpuEngine, GreedyDecodeMatchesArgmaxOfTheReference) {
  const auto w = test::make_tiny_model(qwen_spec());
  auto engine = make_engine(w, {});
  const auto prompt = random_tokens(6, 97, 17);
  const auto generated = generate_greedy(*engine, prompt, 8);
  ASSERT_EQ(generated.size(), 8u);
  auto sequence = prompt;
  for (int32_t token : generated) {
    const auto ref = test::reference_logits(*w, sequence, DType::f16);
    const std::span<const double> last(ref.data() + (sequence.size() - 1) * 97, 97);
    const auto best = std::max_element(last.begin(), last.end()) - last.begin();
    EXPECT_EQ(token, best);
    sequence.push_back(token);
  }
  EXPECT_EQ(engine->position(), 6 + 7);
}

TEST(CpuEngine, InfoDescribesTheEngineHonestly) {
  const auto w = test::make_tiny_model(qwen_spec());  // tied, with q/k/v biases
  auto engine = make_engine(w, {});
  const auto& info = engine->info();
  EXPECT_EQ(info.backend, "cpu");
  EXPECT_EQ(info.precision, "FP16");
  EXPECT_EQ(info.weight_format, "fp16");
  EXPECT_EQ(info.kernel_variant, "cpu-f32acc-f16w");
  EXPECT_EQ(info.kernel_variant_choice, "fixed");
  EXPECT_EQ(info.compute_dtype, "fp32");
  EXPECT_FALSE(info.cuda_graph);
  EXPECT_FALSE(info.device_name.empty());
  // Per layer: q (64×64 + bias 64), k, v (32×64 + bias 32 each), o (64×64), gate/up (96×64),
  // down (64×96); fp16 weights, fp32 biases. Plus the (tied) lm_head 97×64 and one embedding row.
  const int64_t layer = (64 * 64 + 2 * 32 * 64 + 64 * 64 + 3 * 96 * 64) * 2 + (64 + 32 + 32) * 4;
  EXPECT_EQ(info.weight_bytes, 2 * layer + 97 * 64 * 2 + 64 * 2);

  EngineOptions bf;
  bf.precision = Precision::bf16;
  EXPECT_EQ(make_engine(w, bf)->info().kernel_variant, "cpu-f32acc-bf16w");
}

}  // namespace
}  // namespace ec::engine
