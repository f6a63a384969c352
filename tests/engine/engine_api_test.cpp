// The backend-independent engine API: precision/backend names, argmax, greedy generation,
// and the make_engine dispatch refusing what this build cannot do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <vector>

#include "core/error.h"
#include "engine/engine.h"
#include "engine/tiny_model.h"

namespace ec::engine {
namespace {

using ::testing::HasSubstr;

TEST(Precision, ParsesEveryNameInAnyCaseAndRoundTrips) {
  for (auto p : {Precision::fp16, Precision::bf16, Precision::int8_llm, Precision::int8_wo,
                 Precision::nf4, Precision::nf4_dq}) {
    EXPECT_EQ(parse_precision(precision_name(p)), p);
  }
  EXPECT_EQ(parse_precision("fp16"), Precision::fp16);
  EXPECT_EQ(parse_precision("int8-wo"), Precision::int8_wo);
  EXPECT_EQ(parse_precision("Nf4-Dq"), Precision::nf4_dq);
  EXPECT_EQ(precision_name(Precision::int8_llm), "INT8");
  EXPECT_EQ(weight_format(Precision::int8_llm), "int8-llm");
  EXPECT_EQ(weight_format(Precision::nf4_dq), "nf4-dq");
  EXPECT_THROW(parse_precision("int4"), UsageError);
  EXPECT_THROW(parse_precision(""), UsageError);
}

TEST(Backend, ParsesAndNames) {
  EXPECT_EQ(parse_backend("CPU"), Backend::cpu);
  EXPECT_EQ(parse_backend("cuda"), Backend::cuda);
  EXPECT_EQ(backend_name(Backend::cuda), "cuda");
  EXPECT_THROW(parse_backend("metal"), UsageError);
}

TEST(Argmax, FirstMaximumWinsOnTies) {
  const std::vector<float> tie = {0.5f, 2.0f, -1.0f, 2.0f, 2.0f};
  EXPECT_EQ(argmax(tie), 1);
  const std::vector<float> last = {-3.0f, -2.0f, -1.0f};
  EXPECT_EQ(argmax(last), 2);
  const std::vector<float> one = {7.0f};
  EXPECT_EQ(argmax(one), 0);
  EXPECT_THROW(argmax(std::span<const float>{}), Error);
}

// Next-token logits peak at (last token + step) mod vocab: greedy output is predictable.
class CountingEngine final : public Engine {
 public:
  explicit CountingEngine(int step) : step_(step) {
    config_.vocab_size = 10;
    config_.max_position_embeddings = 64;
    info_.max_context = 64;
  }
  const EngineInfo& info() const override { return info_; }
  const model::ModelConfig& config() const override { return config_; }
  void reset() override { position_ = 0; }
  int position() const override { return position_; }
  std::span<const float> forward(std::span<const int32_t> tokens, bool all_logits) override {
    position_ += static_cast<int>(tokens.size());
    ++forward_calls;
    logits_.assign(10, 0.0f);
    logits_[(tokens.back() + step_) % 10] = 1.0f;
    EXPECT_FALSE(all_logits);
    return logits_;
  }
  int forward_calls = 0;

 private:
  int step_;
  int position_ = 0;
  model::ModelConfig config_;
  EngineInfo info_;
  std::vector<float> logits_;
};

TEST(GenerateGreedy, GeneratesExactlyTheRequestedCount) {
  CountingEngine engine(3);
  const std::vector<int32_t> prompt = {4, 1};
  const auto out = generate_greedy(engine, prompt, 5);
  EXPECT_EQ(out, (std::vector<int32_t>{4, 7, 0, 3, 6}));
  EXPECT_EQ(engine.position(), 2 + 4);  // the last generated token is never fed back
  EXPECT_EQ(engine.forward_calls, 5);
  EXPECT_TRUE(generate_greedy(engine, prompt, 0).empty());
}

TEST(GenerateGreedy, StopsAtTheStopTokenAndKeepsIt) {
  CountingEngine engine(2);
  const std::vector<int32_t> prompt = {1};
  EXPECT_EQ(generate_greedy(engine, prompt, 10, 7), (std::vector<int32_t>{3, 5, 7}));
}

TEST(DecodeGreedyMany, FeedsEachTokenToTheNextStep) {
  CountingEngine engine(3);
  const std::vector<int32_t> prompt = {4};
  (void)engine.forward(prompt, false);
  std::vector<int32_t> out(4, -1);
  engine.decode_greedy_many(2, out);
  EXPECT_EQ(out, (std::vector<int32_t>{5, 8, 1, 4}));
  EXPECT_EQ(engine.position(), 1 + 4);  // the last token is not fed back
  engine.decode_greedy_many(9, std::span<int32_t>{});
  EXPECT_EQ(engine.position(), 5);
}

TEST(MakeEngine, RefusesCudaWithoutTheBackend) {
  auto weights = test::make_tiny_model({});
  EngineOptions options;
  options.backend = Backend::cuda;
#if !defined(EC_HAVE_CUDA)
  try {
    make_engine(weights, options);
    FAIL() << "expected ec::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("this build has no CUDA backend"));
  }
#endif
  EXPECT_THROW(make_engine(nullptr, EngineOptions{}), Error);
}

TEST(MakeEngine, RefusesANegativeDecodeLength) {
  auto weights = test::make_tiny_model({});
  EngineOptions options;
  options.decode_length = -1;
  try {
    make_engine(weights, options);
    FAIL() << "expected ec::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("decode_length must be >= 0"));
  }
  options.decode_length = 7;  // a hint the CPU engine has no use for, and accepts
  EXPECT_NO_THROW(make_engine(weights, options));
}

// The config check both backends start from names what is wrong with the model.
TEST(CheckedEngineConfig, NamesTheInconsistency) {
  const auto expect_error = [](std::shared_ptr<model::ModelWeights> w, const char* what) {
    try {
      checked_engine_config(w);
      FAIL() << "expected ec::Error containing " << what;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(what));
    }
  };
  EXPECT_EQ(checked_engine_config(test::make_tiny_model({})).num_layers,
            test::make_tiny_model({})->config.num_layers);
  expect_error(nullptr, "no weights");
  auto w = test::make_tiny_model({});
  w->config.num_kv_heads = w->config.num_heads + 1;
  expect_error(w, "is not a multiple of num_key_value_heads");
  w = test::make_tiny_model({});
  w->config.vocab_size = 0;
  expect_error(w, "must all be positive");
  w = test::make_tiny_model({});
  w->layers.pop_back();
  expect_error(w, "layers of weights, config says");
}

// Every precision builds a CPU engine that records its format and decodes to finite logits.
TEST(MakeEngine, EveryPrecisionRunsOnTheCpu) {
  auto weights = test::make_tiny_model({});
  for (auto p : {Precision::fp16, Precision::bf16, Precision::int8_llm, Precision::int8_wo,
                 Precision::nf4, Precision::nf4_dq}) {
    EngineOptions options;
    options.precision = p;
    auto engine = make_engine(weights, options);
    EXPECT_EQ(engine->info().precision, precision_name(p));
    EXPECT_EQ(engine->info().weight_format, weight_format(p));
    std::vector<int32_t> prompt = {1, 2, 3};
    auto logits = engine->forward(prompt, false);
    ASSERT_EQ(static_cast<int>(logits.size()), weights->config.vocab_size);
    for (float v : logits) ASSERT_TRUE(std::isfinite(v)) << precision_name(p);
  }
}

}  // namespace
}  // namespace ec::engine
