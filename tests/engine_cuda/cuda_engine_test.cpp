// The CUDA engine end to end against the CPU reference engine on the tiny presets: FP16 greedy
// decoding token for token, logits within a stated bound (prefill and decode), graph and no-graph
// identical, every quantized format close to its CPU twin, and the engine's error paths.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/engine.h"
#include "engine_cuda/cuda_test_util.h"
#include "model/presets.h"
#include "model/synthetic.h"

namespace ec::engine {
namespace {

using test::rel_error;

std::shared_ptr<const model::ModelWeights> weights(const std::string& preset, DType dtype) {
  return model::make_synthetic_weights(model::preset_or_throw(preset), 7, dtype);
}

std::unique_ptr<Engine> make(std::shared_ptr<const model::ModelWeights> w, Backend b, Precision p,
                             bool graph = true, int max_context = 512) {
  EngineOptions o;
  o.backend = b;
  o.precision = p;
  o.threads = 2;
  o.max_context = max_context;
  o.cuda_graph = graph;
  return make_engine(std::move(w), o);
}

std::vector<int32_t> prompt(int n, int vocab) {
  std::vector<int32_t> p(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) p[static_cast<size_t>(i)] = (i * 37 + 11) % vocab;
  return p;
}

std::vector<float> copy(std::span<const float> s) {
  return {s.begin(), s.end()};
}

class CudaEngineFp16 : public ::testing::TestWithParam<std::string> {};

// FP32 activations with an fp16 KV cache in decode; fp16 activations into cuBLAS in prefill.
constexpr double kDecodeBound = 3e-3;
constexpr double kPrefillBound = 1e-2;

TEST_P(CudaEngineFp16, GreedyDecodeMatchesCpuTokenForToken) {
  EC_REQUIRE_CUDA();
  auto w = weights(GetParam(), DType::f16);
  auto cpu = make(w, Backend::cpu, Precision::fp16);
  auto gpu = make(w, Backend::cuda, Precision::fp16);
  EXPECT_EQ(gpu->info().backend, "cuda");
  EXPECT_TRUE(gpu->info().cuda_graph);
  EXPECT_GT(gpu->info().weight_bytes, 0);
  EXPECT_FALSE(gpu->info().device_name.empty());
  if (std::getenv("EC_CUDA_TUNE") == nullptr && std::getenv("EC_CUDA_VARIANTS") == nullptr) {
    EXPECT_EQ(gpu->info().kernel_variant_choice, "tuned");
  }
  const auto p = prompt(9, w->config.vocab_size);
  const auto want = generate_greedy(*cpu, p, 40);
  const auto got = generate_greedy(*gpu, p, 40);
  EXPECT_EQ(got, want);
  EXPECT_EQ(gpu->position(), cpu->position());
}

TEST_P(CudaEngineFp16, LogitsMatchCpuInPrefillAndDecode) {
  EC_REQUIRE_CUDA();
  auto w = weights(GetParam(), DType::f16);
  auto cpu = make(w, Backend::cpu, Precision::fp16);
  auto gpu = make(w, Backend::cuda, Precision::fp16);
  const auto p = prompt(300, w->config.vocab_size);  // two prefill chunks
  EXPECT_LT(rel_error(copy(gpu->forward(p, true)), copy(cpu->forward(p, true))), kPrefillBound);
  for (int32_t t : {5, 17, 250}) {
    const int32_t one[1] = {t};
    EXPECT_LT(rel_error(copy(gpu->forward(one, false)), copy(cpu->forward(one, false))),
              kDecodeBound);
  }
  // From an empty cache, decode steps only (the graph path for every token).
  gpu->reset();
  cpu->reset();
  for (int32_t t : {3, 99, 4, 1}) {
    const int32_t one[1] = {t};
    EXPECT_LT(rel_error(copy(gpu->forward(one, false)), copy(cpu->forward(one, false))),
              kDecodeBound);
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, CudaEngineFp16,
                         ::testing::Values("tiny-llama", "tiny-qwen2", "default"),
                         [](const auto& p) {
                           std::string n = p.param;
                           for (char& c : n) c = (c == '-') ? '_' : c;
                           return n;
                         });

// The tuner times at the position it is given, clamped into the cache (at its start, and past its
// end): the engine loads and still decodes as the CPU does.
TEST(CudaEngine, TunesAtTheGivenPositionClampedToTheCache) {
  EC_REQUIRE_CUDA();
  if (std::getenv("EC_CUDA_TUNE") != nullptr || std::getenv("EC_CUDA_VARIANTS") != nullptr) {
    GTEST_SKIP() << "the tuner is switched off or pinned by the environment";
  }
  auto w = weights("tiny-qwen2", DType::f16);
  auto cpu = make(w, Backend::cpu, Precision::fp16);
  const auto p = prompt(9, w->config.vocab_size);
  const auto want = generate_greedy(*cpu, p, 30);
  for (int position : {0, 100, 1 << 20}) {
    EngineOptions o;
    o.backend = Backend::cuda;
    o.max_context = 512;
    o.tune_position = position;
    auto gpu = make_engine(w, o);
    EXPECT_EQ(gpu->info().kernel_variant_choice, "tuned") << position;
    EXPECT_EQ(generate_greedy(*gpu, p, 30), want) << "tuned at position " << position;
  }
}

TEST(CudaEngine, GraphAndDirectLaunchesAgreeBitForBit) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  // Untuned, so both use the same attention splits (the one tuned choice that changes rounding).
  setenv("EC_CUDA_TUNE", "0", 1);
  auto a = make(w, Backend::cuda, Precision::fp16, true);
  auto b = make(w, Backend::cuda, Precision::fp16, false);
  unsetenv("EC_CUDA_TUNE");
  EXPECT_FALSE(b->info().cuda_graph);
  const auto p = prompt(5, w->config.vocab_size);
  EXPECT_EQ(generate_greedy(*a, p, 20), generate_greedy(*b, p, 20));
  const int32_t one[1] = {42};
  EXPECT_EQ(copy(a->forward(one, false)), copy(b->forward(one, false)));
}

// EC_CUDA_VARIANTS replays a report's variants: the engine runs exactly those (its kernel_variant
// says so) and decodes bit for bit as the untuned engine does (the GEMV variants give identical
// results, and the splits are the same); variants of another format, or ones this format lacks,
// are refused by name.
TEST(CudaEngine, PinnedVariantsRunAsGivenAndDecodeTheSame) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  setenv("EC_CUDA_TUNE", "0", 1);
  auto untuned = make(w, Backend::cuda, Precision::fp16);
  unsetenv("EC_CUDA_TUNE");
  const std::string defaults = untuned->info().kernel_variant;
  const std::string prefix = defaults.substr(0, defaults.find('['));
  const std::string splits = defaults.substr(defaults.rfind(','));  // ",attn-fused-splits:N]"
  const std::string pdl = defaults.find("+pdl") != std::string::npos ? "+pdl" : "";
  const std::string pinned = prefix + "[qkv:r1g" + pdl + ",o:r4p" + pdl + ",gu:r2p-dbuf" + pdl +
                             ",down:r1p-u16" + pdl + ",head:r1p-l2pf" + pdl + splits;
  setenv("EC_CUDA_VARIANTS", pinned.c_str(), 1);
  auto replayed = make(w, Backend::cuda, Precision::fp16);
  EXPECT_EQ(replayed->info().kernel_variant, pinned);
  EXPECT_EQ(replayed->info().kernel_variant_choice, "pinned");
  EXPECT_EQ(untuned->info().kernel_variant_choice, "untuned");
  const auto p = prompt(5, w->config.vocab_size);
  EXPECT_EQ(generate_greedy(*replayed, p, 20), generate_greedy(*untuned, p, 20));
  const int32_t one[1] = {42};
  EXPECT_EQ(copy(replayed->forward(one, false)), copy(untuned->forward(one, false)));

  const auto refused = [&](const std::string& text, const std::string& names) {
    setenv("EC_CUDA_VARIANTS", text.c_str(), 1);
    try {
      (void)make(w, Backend::cuda, Precision::fp16);
      ADD_FAILURE() << "loaded with " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("EC_CUDA_VARIANTS"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  };
  refused("cuda-f32acc-nf4-gemv-v2" + pinned.substr(pinned.find('[')), prefix);
  std::string lacking = pinned;  // two-chunk steps are not an f16 variant
  lacking.replace(lacking.find("o:r4p"), 5, "o:r2p-u2");
  refused(lacking, "role o: r2p-u2");
  unsetenv("EC_CUDA_VARIANTS");
}

TEST(CudaEngine, DecodeGreedyIsArgmaxOfForwardAndResetRepeats) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-llama", DType::f16);
  auto gpu = make(w, Backend::cuda, Precision::fp16);
  const auto p = prompt(4, w->config.vocab_size);
  const auto first = generate_greedy(*gpu, p, 12);
  gpu->reset();
  EXPECT_EQ(gpu->position(), 0);
  EXPECT_EQ(generate_greedy(*gpu, p, 12), first);
  gpu->reset();
  (void)gpu->forward(p, false);
  const int32_t one[1] = {first[0]};
  const int32_t via_forward = argmax(gpu->forward(one, false));
  gpu->reset();
  (void)gpu->forward(p, false);
  EXPECT_EQ(gpu->decode_greedy(first[0]), via_forward);
}

// Steps chained on the device give the tokens and the state the host-driven loop gives, with the
// graph and without; a token the host chooses itself (not the last argmax) is fed as asked.
TEST(CudaEngine, DecodeGreedyManyMatchesStepByStep) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  setenv("EC_CUDA_TUNE", "0", 1);  // the same attention splits in every engine
  auto stepwise = make(w, Backend::cuda, Precision::fp16);
  auto chained = make(w, Backend::cuda, Precision::fp16);
  auto direct = make(w, Backend::cuda, Precision::fp16, false);
  unsetenv("EC_CUDA_TUNE");
  const auto p = prompt(6, w->config.vocab_size);
  const int32_t first = argmax(stepwise->forward(p, false));
  std::vector<int32_t> expected;
  int32_t next = first;
  for (int i = 0; i < 24; ++i) expected.push_back(next = stepwise->decode_greedy(next));
  for (Engine* e : {chained.get(), direct.get()}) {
    EXPECT_EQ(argmax(e->forward(p, false)), first);
    std::vector<int32_t> out(24, -1);
    e->decode_greedy_many(first, std::span(out).first(10));
    e->decode_greedy_many(out[9], std::span(out).subspan(10));
    EXPECT_EQ(out, expected) << (e == direct.get() ? "without graph" : "graph");
    EXPECT_EQ(e->position(), stepwise->position());
  }
  // A forced token, then chained steps from it, against the same one step at a time.
  const int32_t forced = (expected.back() + 5) % w->config.vocab_size;
  std::vector<int32_t> from_forced(3);
  chained->decode_greedy_many(forced, from_forced);
  EXPECT_EQ(from_forced[0], stepwise->decode_greedy(forced));
  EXPECT_EQ(from_forced[1], stepwise->decode_greedy(from_forced[0]));
  EXPECT_EQ(from_forced[2], stepwise->decode_greedy(from_forced[1]));
  // Past the cache: refused before any step runs.
  std::vector<int32_t> too_many(static_cast<size_t>(512 - chained->position() + 1));
  const int at = chained->position();
  EXPECT_THROW(chained->decode_greedy_many(forced, too_many), Error);
  EXPECT_EQ(chained->position(), at);
  const int32_t again = stepwise->decode_greedy(from_forced[2]);
  EXPECT_EQ(chained->decode_greedy(from_forced[2]), again);
}

TEST(CudaEngine, RejectsTokensPastTheCacheAndOutsideTheVocabulary) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-llama", DType::f16);
  auto gpu = make(w, Backend::cuda, Precision::fp16, true, 16);
  EXPECT_THROW(gpu->forward(prompt(17, w->config.vocab_size), false), Error);
  const int32_t bad[1] = {w->config.vocab_size};
  EXPECT_THROW(gpu->forward(bad, false), Error);
  EXPECT_EQ(gpu->position(), 0);
}

TEST(CudaEngine, Bf16MatchesCpuBf16) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::bf16);
  auto cpu = make(w, Backend::cpu, Precision::bf16);
  auto gpu = make(w, Backend::cuda, Precision::bf16);
  const auto p = prompt(7, w->config.vocab_size);
  EXPECT_LT(rel_error(copy(gpu->forward(p, true)), copy(cpu->forward(p, true))), kPrefillBound);
  // The decode step reads K/V written by the prefill, whose cuBLAS GEMMs ran on bf16 activations
  // (8-bit mantissa): the prefill bound applies.
  const int32_t one[1] = {9};
  EXPECT_LT(rel_error(copy(gpu->forward(one, false)), copy(cpu->forward(one, false))),
            kPrefillBound);
}

// Quantized formats: the same quantized weights on both backends, so only arithmetic differs
// (NF4 codes as fp16 on the GPU, fp16 activations in the dense prefill GEMMs).
class CudaEngineQuant : public ::testing::TestWithParam<Precision> {};

TEST_P(CudaEngineQuant, CloseToCpuTwin) {
  EC_REQUIRE_CUDA();
  auto w = weights("default", DType::f16);
  std::unique_ptr<Engine> cpu;
  try {
    cpu = make(w, Backend::cpu, GetParam());
  } catch (const Error& e) {
    GTEST_SKIP() << "the CPU engine has no " << precision_name(GetParam()) << " yet: " << e.what();
  }
  auto gpu = make(w, Backend::cuda, GetParam());
  EXPECT_EQ(gpu->info().weight_format, weight_format(GetParam()));
  const auto p = prompt(12, w->config.vocab_size);
  EXPECT_LT(rel_error(copy(gpu->forward(p, false)), copy(cpu->forward(p, false))), 2e-2);
  // LLM.int8() rounds activations to int8 codes and outputs to fp16: the small differences of the
  // fp16 KV cache move some codes by one step, so its bound is looser than the weight-only ones'.
  const double decode_bound = GetParam() == Precision::int8_llm ? 4e-2 : 1e-2;
  const int32_t one[1] = {77};
  EXPECT_LT(rel_error(copy(gpu->forward(one, false)), copy(cpu->forward(one, false))),
            decode_bound);
  // Greedy continuations agree for the first tokens (later ones may drift on near-ties).
  gpu->reset();
  cpu->reset();
  const auto a = generate_greedy(*gpu, p, 8);
  const auto b = generate_greedy(*cpu, p, 8);
  EXPECT_EQ(std::vector<int32_t>(a.begin(), a.begin() + 3),
            std::vector<int32_t>(b.begin(), b.begin() + 3));
}

INSTANTIATE_TEST_SUITE_P(Formats, CudaEngineQuant,
                         ::testing::Values(Precision::int8_wo, Precision::int8_llm, Precision::nf4,
                                           Precision::nf4_dq),
                         [](const auto& p) {
                           std::string n(weight_format(p.param));
                           for (char& c : n) c = (c == '-') ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace ec::engine
