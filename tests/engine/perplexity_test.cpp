// The quality probe: hand-checked perplexity and KL on engines with known logits, window splitting
// as the published reports count it, and a real engine scored against itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/error.h"
#include "engine/engine.h"
#include "engine/perplexity.h"
#include "engine/tiny_model.h"

namespace ec::engine {
namespace {

// Every position gives the same next-token logits; records how it is driven.
class FixedEngine final : public Engine {
 public:
  FixedEngine(std::vector<float> row, int context) : row_(std::move(row)) {
    config_.vocab_size = static_cast<int>(row_.size());
    config_.max_position_embeddings = context;
    info_.max_context = context;
  }
  const EngineInfo& info() const override { return info_; }
  const model::ModelConfig& config() const override { return config_; }
  void reset() override {
    position_ = 0;
    ++resets;
  }
  int position() const override { return position_; }
  std::span<const float> forward(std::span<const int32_t> tokens, bool all_logits) override {
    EXPECT_TRUE(all_logits);
    EXPECT_EQ(position_, 0) << "every window must start from an empty cache";
    position_ += static_cast<int>(tokens.size());
    window_lengths.push_back(static_cast<int>(tokens.size()));
    logits_.clear();
    for (size_t t = 0; t < tokens.size(); ++t)
      logits_.insert(logits_.end(), row_.begin(), row_.end());
    return logits_;
  }
  int resets = 0;
  std::vector<int> window_lengths;

 private:
  std::vector<float> row_;
  std::vector<float> logits_;
  int position_ = 0;
  model::ModelConfig config_;
  EngineInfo info_;
};

TEST(PerplexityWindows, SplitsLikeThePublishedReports) {
  // The Qwen2-tokenized eval text: 14,137 tokens → 14 windows of ≤ 1024, 14,123 predicted.
  const auto w = perplexity_windows(14137, 1024);
  ASSERT_EQ(w.size(), 14u);
  int64_t predicted = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(w[i].begin, static_cast<int64_t>(i) * 1024);
    predicted += w[i].length - 1;
  }
  EXPECT_EQ(w.back().length, 14137 - 13 * 1024);
  EXPECT_EQ(predicted, 14123);
  // A trailing single token predicts nothing and is dropped.
  EXPECT_EQ(perplexity_windows(2049, 1024).size(), 2u);
  EXPECT_EQ(perplexity_windows(2050, 1024).size(), 3u);
  EXPECT_EQ(perplexity_windows(5, 8).size(), 1u);
  EXPECT_THROW(perplexity_windows(10, 1), Error);
}

TEST(Perplexity, HandCheckedOnKnownDistribution) {
  // p = [1/6, 2/6, 3/6] at every position.
  FixedEngine engine({0.0f, std::log(2.0f), std::log(3.0f)}, 64);
  const std::vector<int32_t> tokens = {0, 1, 2, 2};
  const auto one = evaluate_perplexity(engine, tokens, 4);
  // Predicted: 1, 2, 2 → NLL = ln 3 + 2 ln 2 = ln 12.
  EXPECT_EQ(one.windows, 1);
  EXPECT_EQ(one.predicted_tokens, 3);
  EXPECT_EQ(one.seq_len, 4);
  EXPECT_NEAR(one.nll_sum, std::log(12.0), 1e-6);
  EXPECT_NEAR(one.perplexity, std::cbrt(12.0), 1e-6);
  EXPECT_FALSE(one.has_reference);

  // Windows of 2: [0 1] [2 2] → predicted 1 and 2: NLL = ln 3 + ln 2, ppl = sqrt(6).
  engine.resets = 0;
  engine.window_lengths.clear();
  const auto two = evaluate_perplexity(engine, tokens, 2);
  EXPECT_EQ(two.windows, 2);
  EXPECT_EQ(two.predicted_tokens, 2);
  EXPECT_NEAR(two.perplexity, std::sqrt(6.0), 1e-6);
  EXPECT_EQ(engine.resets, 2);
  EXPECT_EQ(engine.window_lengths, (std::vector<int>{2, 2}));
}

TEST(Perplexity, SeqLenIsCappedAtTheModelContext) {
  FixedEngine engine({1.0f, 2.0f}, 8);
  const std::vector<int32_t> tokens(20, 1);
  const auto r = evaluate_perplexity(engine, tokens, 1024);
  EXPECT_EQ(r.seq_len, 8);
  EXPECT_EQ(r.windows, 3);  // 8 + 8 + 4
  EXPECT_EQ(r.predicted_tokens, 7 + 7 + 3);
  EXPECT_EQ(engine.window_lengths, (std::vector<int>{8, 8, 4}));
}

TEST(Perplexity, KlAndTopOneAgainstAReferenceAreHandChecked) {
  // P_ref = [1/2, 1/2] (argmax 0 on the tie), P_model = [1/4, 3/4] (argmax 1).
  FixedEngine reference({0.0f, 0.0f}, 16);
  FixedEngine model({0.0f, std::log(3.0f)}, 16);
  const std::vector<int32_t> tokens = {0, 1, 1, 0, 1};
  const auto r = evaluate_perplexity(model, tokens, 16, &reference);
  ASSERT_TRUE(r.has_reference);
  const double kl = 0.5 * std::log(0.5 / 0.25) + 0.5 * std::log(0.5 / 0.75);
  EXPECT_NEAR(r.mean_kl, kl, 1e-7);
  EXPECT_EQ(r.top1_agreement, 0.0);
  // Model NLL over targets 1, 1, 0, 1: 3·ln(4/3) + ln 4.
  EXPECT_NEAR(r.nll_sum, 3 * std::log(4.0 / 3.0) + std::log(4.0), 1e-6);
  EXPECT_EQ(reference.resets, 1);
}

TEST(Perplexity, RejectsBadInput) {
  FixedEngine engine({0.0f, 1.0f, 2.0f}, 16);
  EXPECT_THROW(evaluate_perplexity(engine, std::vector<int32_t>{1}, 8), Error);
  EXPECT_THROW(evaluate_perplexity(engine, std::vector<int32_t>{1, 3}, 8), Error);
  FixedEngine other({0.0f, 1.0f}, 16);
  EXPECT_THROW(evaluate_perplexity(engine, std::vector<int32_t>{1, 0}, 8, &other), Error);
}

TEST(Perplexity, RealEngineAgainstItselfHasZeroKlAndFullAgreement) {
  const auto w = test::make_tiny_model({});
  auto model = make_engine(w, {});
  auto reference = make_engine(w, {});
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int32_t> d(0, 96);
  std::vector<int32_t> tokens(300);
  for (auto& t : tokens) t = d(rng);
  const auto r = evaluate_perplexity(*model, tokens, 64, reference.get());
  EXPECT_EQ(r.windows, 5);
  EXPECT_EQ(r.predicted_tokens, 300 - 5);
  EXPECT_NEAR(r.mean_kl, 0.0, 1e-12);
  EXPECT_EQ(r.top1_agreement, 1.0);
  EXPECT_GT(r.perplexity, 1.0);
  // Same figure without the reference.
  const auto alone = evaluate_perplexity(*model, tokens, 64);
  EXPECT_EQ(alone.nll_sum, r.nll_sum);

  // Against a BF16 engine on the same weights: a small, positive divergence.
  EngineOptions bf;
  bf.precision = Precision::bf16;
  auto bf16 = make_engine(w, bf);
  const auto q = evaluate_perplexity(*bf16, tokens, 64, reference.get());
  EXPECT_GT(q.mean_kl, 0.0);
  EXPECT_LT(q.mean_kl, 0.05);
  EXPECT_GT(q.top1_agreement, 0.8);
  // The reference's own perplexity comes with the KL, equal to scoring it alone.
  EXPECT_EQ(q.reference_nll_sum, alone.nll_sum);
  EXPECT_DOUBLE_EQ(q.reference_perplexity, alone.perplexity);
}

}  // namespace
}  // namespace ec::engine
