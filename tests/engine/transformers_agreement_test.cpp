// The CPU engine against Hugging Face transformers (float32, eager attention) on tiny random
// Llama/Qwen2 checkpoints: prefill logits, greedy continuation and windowed perplexity.
// Fixtures and reference numbers come from tests/fixtures/engine/make_reference.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "engine/engine.h"
#include "engine/perplexity.h"
#include "model/checkpoint.h"
#include "support/paths.h"

namespace ec::engine {
namespace {

struct AgreementCase {
  const char* fixture;
  Precision precision;
};

void PrintTo(const AgreementCase& c, std::ostream* os) {
  *os << c.fixture << "/" << precision_name(c.precision);
}

class TransformersAgreement : public ::testing::TestWithParam<AgreementCase> {
 protected:
  void SetUp() override {
    const auto dir = test::fixture(std::string("engine/") + GetParam().fixture);
    ref_ = nlohmann::json::parse(read_file(dir / "reference.json"));
    weights_ = model::load_checkpoint(dir);
    EngineOptions options;
    options.precision = GetParam().precision;
    options.threads = 2;
    engine_ = make_engine(weights_, options);
  }

  nlohmann::json ref_;
  std::shared_ptr<const model::ModelWeights> weights_;
  std::unique_ptr<Engine> engine_;
};

TEST_P(TransformersAgreement, PrefillLogitsMatch) {
  const auto prompt = ref_["prompt"].get<std::vector<int32_t>>();
  const auto want = ref_["prefill_logits"].get<std::vector<std::vector<double>>>();
  const size_t vocab = static_cast<size_t>(engine_->config().vocab_size);
  ASSERT_EQ(want.size(), prompt.size());
  const auto got = engine_->forward(prompt, true);
  ASSERT_EQ(got.size(), prompt.size() * vocab);
  double worst_rel = 0, worst_abs = 0, max_ref = 0;
  for (size_t t = 0; t < prompt.size(); ++t) {
    ASSERT_EQ(want[t].size(), vocab);
    double num = 0, den = 0;
    for (size_t v = 0; v < vocab; ++v) {
      const double d = got[t * vocab + v] - want[t][v];
      num += d * d;
      den += want[t][v] * want[t][v];
      worst_abs = std::max(worst_abs, std::abs(d));
      max_ref = std::max(max_ref, std::abs(want[t][v]));
    }
    const double rel = std::sqrt(num / den);
    worst_rel = std::max(worst_rel, rel);
    EXPECT_LT(rel, 1e-3) << "position " << t;
  }
  EXPECT_LT(worst_abs, 1e-3 * max_ref);
  RecordProperty("max_rel_err", std::to_string(worst_rel));
  RecordProperty("max_abs_err", std::to_string(worst_abs));
  std::printf("    %s: max relative error %.2e, max abs error %.2e (largest |logit| %.2f)\n",
              ref_["name"].get<std::string>().c_str(), worst_rel, worst_abs, max_ref);
}

TEST_P(TransformersAgreement, GreedyContinuationIsIdentical) {
  const auto prompt = ref_["prompt"].get<std::vector<int32_t>>();
  const auto want = ref_["greedy"].get<std::vector<int32_t>>();
  const auto got = generate_greedy(*engine_, prompt, ref_["greedy_new_tokens"].get<int>());
  EXPECT_EQ(got, want);
}

TEST_P(TransformersAgreement, WindowedPerplexityMatches) {
  const auto tokens = ref_["ppl_tokens"].get<std::vector<int32_t>>();
  const auto r = evaluate_perplexity(*engine_, tokens, ref_["ppl_window"].get<int>());
  EXPECT_EQ(r.windows, ref_["ppl_windows"].get<int64_t>());
  EXPECT_EQ(r.predicted_tokens, ref_["ppl_predicted_tokens"].get<int64_t>());
  const double want = ref_["perplexity"].get<double>();
  EXPECT_NEAR(r.perplexity, want, 1e-4 * want);
  EXPECT_NEAR(r.nll_sum, ref_["ppl_nll_sum"].get<double>(),
              1e-4 * static_cast<double>(r.predicted_tokens));
  std::printf("    %s: perplexity %.6f vs transformers %.6f (relative %.2e)\n",
              ref_["name"].get<std::string>().c_str(), r.perplexity, want,
              std::abs(r.perplexity / want - 1));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, TransformersAgreement,
    ::testing::Values(AgreementCase{"tiny_llama_fp16", Precision::fp16},
                      AgreementCase{"tiny_qwen2_fp16", Precision::fp16},
                      // BF16 weights computed as BF16, and converted to the FP16 format (exact for
                      // every value in FP16's normal range, which these weights are).
                      AgreementCase{"tiny_llama_bf16", Precision::bf16},
                      AgreementCase{"tiny_llama_bf16", Precision::fp16}),
    [](const auto& param_info) {
      return std::string(param_info.param.fixture) + "_" +
             (param_info.param.precision == Precision::bf16 ? "bf16" : "fp16");
    });

}  // namespace
}  // namespace ec::engine
