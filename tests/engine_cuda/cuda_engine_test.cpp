// The CUDA engine end to end against the CPU reference engine on the tiny presets: FP16 greedy
// decoding token for token, logits within a stated bound (prefill and decode), graph and no-graph
// identical, every quantized format close to its CPU twin, the kernel choice (heuristic, tuning
// table, pinned strings, `tune`), and the engine's error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/cuda/pinned_variants.h"
#include "engine/engine.h"
#include "engine/tuning_table.h"
#include "engine_cuda/cuda_test_util.h"
#include "model/presets.h"
#include "model/synthetic.h"

namespace ec::engine {
namespace {

using test::rel_error;

std::shared_ptr<const model::ModelWeights> weights(const std::string& preset, DType dtype) {
  return model::make_synthetic_weights(model::preset_or_throw(preset), 7, dtype);
}

EngineOptions options(Backend b, Precision p, bool graph = true, int max_context = 512) {
  EngineOptions o;
  o.backend = b;
  o.precision = p;
  o.threads = 2;
  o.max_context = max_context;
  o.cuda_graph = graph;
  return o;
}

std::unique_ptr<Engine> make(std::shared_ptr<const model::ModelWeights> w, Backend b, Precision p,
                             bool graph = true, int max_context = 512) {
  return make_engine(std::move(w), options(b, p, graph, max_context));
}

// The heuristic alone: the same kernels and attention splits in every engine of a test.
std::unique_ptr<Engine> make_heuristic(std::shared_ptr<const model::ModelWeights> w, Precision p,
                                       bool graph = true) {
  EngineOptions o = options(Backend::cuda, p, graph);
  o.use_tuning_table = false;
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
  // No shipped table has the tiny presets' shapes.
  EXPECT_EQ(gpu->info().kernel_variant_choice, "heuristic");
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

// `tune` times the variants at the position it is given, clamped into the cache (at its start, and
// past its end), and returns one entry per GEMV of the model; an engine loaded with a table of
// those entries runs exactly them, says where they came from, and decodes as the CPU does.
TEST(CudaEngine, TunesThenLoadsFromTheTable) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  auto cpu = make(w, Backend::cpu, Precision::fp16);
  const auto p = prompt(9, w->config.vocab_size);
  const auto want = generate_greedy(*cpu, p, 30);
  for (int position : {0, 100, 1 << 20}) {
    TuneSettings settings;
    settings.steps = 2;
    settings.runs = 3;
    settings.position = position;
    auto table = std::make_shared<TuningTable>();
    const TuneOutcome outcome =
        tune_decode_kernels(w, options(Backend::cuda, Precision::fp16), settings, *table);
    // Every variant's decode step gave the starting set's logits bit for bit.
    EXPECT_EQ(outcome.refused, std::vector<std::string>{}) << position;
    const std::vector<TuningEntry>& entries = outcome.entries;
    ASSERT_EQ(entries.size(), kDecodeRoles.size()) << position;
    EXPECT_FALSE(table->gpu_name.empty());
    EXPECT_GE(table->cc_major, 5);
    for (const TuningEntry& e : entries) {
      EXPECT_EQ(e.key.format, quant::Format::fp16);
      EXPECT_EQ(e.model, w->config.name);
      EXPECT_GT(e.step_us, 0.0);
      EXPECT_EQ(e.variant.find('+'), std::string::npos) << e.variant;
    }
    table->merge(entries);
    table->name = "test-table";
    table->sha256 = std::string(64, '0');
    EngineOptions o = options(Backend::cuda, Precision::fp16);
    o.tuning_table = table;
    auto gpu = make_engine(w, o);
    EXPECT_EQ(gpu->info().kernel_variant_choice, "table") << position;
    EXPECT_EQ(gpu->info().tuning_table, "test-table");
    EXPECT_EQ(gpu->info().tuning_table_sha256, std::string(64, '0'));
    const cuda::PinnedVariants ran =
        cuda::parse_pinned_variants(gpu->info().kernel_variant, "the engine's kernel_variant");
    for (const TuningEntry& e : entries) {
      const auto role = std::find(kDecodeRoles.begin(), kDecodeRoles.end(), e.key.role);
      ASSERT_NE(role, kDecodeRoles.end()) << e.key.role;
      cuda::GemvConfig config = ran.roles[static_cast<size_t>(role - kDecodeRoles.begin())];
      config.pdl = false;
      EXPECT_EQ(cuda::gemv_config_name(config), e.variant) << e.key.role;
    }
    EXPECT_EQ(generate_greedy(*gpu, p, 30), want) << "tuned at position " << position;
  }
}

// A table of another GPU is refused by name; one with an entry this build lacks names the entry;
// one without this model's shapes leaves the heuristic in charge; 'none' is the heuristic.
TEST(CudaEngine, TableErrorsAndFallbacks) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  auto heuristic = make_heuristic(w, Precision::fp16);
  EXPECT_EQ(heuristic->info().kernel_variant_choice, "heuristic");
  EXPECT_EQ(heuristic->info().tuning_table, "");
  TuningTable gpu;
  (void)tune_decode_kernels(w, options(Backend::cuda, Precision::fp16),
                            TuneSettings{1, 1, 0.015, 0, false}, gpu);
  auto other = std::make_shared<TuningTable>(gpu);
  other->gpu_name = "Some Other GPU";
  other->name = "other.json";
  EngineOptions o = options(Backend::cuda, Precision::fp16);
  o.tuning_table = other;
  try {
    (void)make_engine(w, o);
    ADD_FAILURE() << "loaded with another GPU's table";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("other.json was measured on Some Other GPU"),
              std::string::npos)
        << e.what();
  }
  auto lacking = std::make_shared<TuningTable>(gpu);
  lacking->name = "lacking.json";
  const auto& c = w->config;
  const int qkv_rows = (c.num_heads + 2 * c.num_kv_heads) * c.head_dim;
  lacking->merge({TuningEntry{TuningKey{quant::Format::fp16, "qkv", qkv_rows, c.hidden_size},
                              "r2p-u2", "x", 1.0}});
  o.tuning_table = lacking;
  try {
    (void)make_engine(w, o);
    ADD_FAILURE() << "loaded a variant fp16 does not have";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lacking.json: the fp16 qkv GEMV"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("variant r2p-u2 is not one"), std::string::npos)
        << e.what();
  }
  auto one = std::make_shared<TuningTable>(gpu);
  one->name = "one.json";
  one->merge({TuningEntry{TuningKey{quant::Format::fp16, "qkv", qkv_rows, c.hidden_size}, "r1g",
                          "x", 1.0}});
  o.tuning_table = one;
  auto partial = make_engine(w, o);
  EXPECT_EQ(partial->info().kernel_variant_choice, "table+heuristic");
  EXPECT_NE(partial->info().kernel_variant.find("qkv:r1g"), std::string::npos);
  const auto p = prompt(5, w->config.vocab_size);
  EXPECT_EQ(generate_greedy(*partial, p, 20), generate_greedy(*heuristic, p, 20));
}

// The variant names an engine's kernel_variant gives its five GEMV roles, without PDL.
std::vector<std::string> role_variants(const Engine& e) {
  const cuda::PinnedVariants ran =
      cuda::parse_pinned_variants(e.info().kernel_variant, "the engine's kernel_variant");
  std::vector<std::string> out;
  for (cuda::GemvConfig config : ran.roles) {
    config.pdl = false;
    out.push_back(cuda::gemv_config_name(config));
  }
  return out;
}

// The index of a tuning entry's role in kDecodeRoles (the order of kernel_variant's roles).
size_t role_index(const TuningEntry& e) {
  return static_cast<size_t>(std::find(kDecodeRoles.begin(), kDecodeRoles.end(), e.key.role) -
                             kDecodeRoles.begin());
}

// `tune` starts from the variants the model runs: its table's. With a margin no timing can beat it
// returns exactly them; with a table this build cannot read (a variant it does not offer), it
// starts from the heuristic's instead of failing.
TEST(CudaEngine, TuneStartsFromTheTablesSet) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  const std::vector<std::string> heuristic = role_variants(*make_heuristic(w, Precision::fp16));
  const TuneSettings unbeatable{1, 1, 3.0, 0, false};
  TuningTable gpu;
  std::vector<TuningEntry> entries =
      tune_decode_kernels(w, options(Backend::cuda, Precision::fp16), unbeatable, gpu).entries;
  ASSERT_EQ(entries.size(), kDecodeRoles.size());
  for (TuningEntry& e : entries) {
    const size_t r = role_index(e);
    ASSERT_LT(r, heuristic.size()) << e.key.role;
    EXPECT_EQ(e.variant, heuristic[r])
        << e.key.role << ": no table of this model, so the heuristic";
    e.variant = e.key.role == "gu" ? "r2g" : "r1g";  // variants the heuristic does not choose
  }
  auto table = std::make_shared<TuningTable>(gpu);
  table->name = "start.json";
  table->merge(entries);
  EngineOptions o = options(Backend::cuda, Precision::fp16);
  o.tuning_table = table;
  TuningTable out;
  const std::vector<TuningEntry> kept = tune_decode_kernels(w, o, unbeatable, out).entries;
  ASSERT_EQ(kept.size(), entries.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(kept[i].key.role, entries[i].key.role);
    EXPECT_EQ(kept[i].variant, entries[i].variant) << kept[i].key.role;
  }
  for (TuningEntry& e : entries) e.variant = "r4p-dbuf";  // parses, but no format offers it
  auto stale = std::make_shared<TuningTable>(gpu);
  stale->name = "stale.json";
  stale->merge(entries);
  o.tuning_table = stale;
  const std::vector<TuningEntry> fresh = tune_decode_kernels(w, o, unbeatable, out).entries;
  ASSERT_EQ(fresh.size(), entries.size());
  for (size_t i = 0; i < fresh.size(); ++i) {
    const size_t r = role_index(fresh[i]);
    ASSERT_LT(r, heuristic.size());
    EXPECT_EQ(fresh[i].variant, heuristic[r]) << fresh[i].key.role;
  }
}

// Every variant a tune tries gives the starting set's logits bit for bit in a whole decode step, in
// every format (tiny-qwen2's rows take the whole-row variant in NF4), so a tune refuses none.
TEST(CudaEngine, NoVariantOfAnyFormatChangesTheLogits) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  for (Precision p : {Precision::fp16, Precision::int8_llm, Precision::int8_wo, Precision::nf4,
                      Precision::nf4_dq}) {
    TuningTable gpu;
    const TuneOutcome outcome =
        tune_decode_kernels(w, options(Backend::cuda, p), TuneSettings{1, 1, 0.015, 0, false}, gpu);
    EXPECT_EQ(outcome.refused, std::vector<std::string>{}) << precision_name(p);
    EXPECT_EQ(outcome.entries.size(), kDecodeRoles.size()) << precision_name(p);
  }
}

TEST(CudaEngine, GraphAndDirectLaunchesAgreeBitForBit) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  auto a = make_heuristic(w, Precision::fp16, true);
  auto b = make_heuristic(w, Precision::fp16, false);
  EXPECT_FALSE(b->info().cuda_graph);
  const auto p = prompt(5, w->config.vocab_size);
  EXPECT_EQ(generate_greedy(*a, p, 20), generate_greedy(*b, p, 20));
  const int32_t one[1] = {42};
  EXPECT_EQ(copy(a->forward(one, false)), copy(b->forward(one, false)));
}

// Pinned variants replay a report's kernels: the engine runs exactly those (its kernel_variant
// says so) and decodes bit for bit as the heuristic's engine does (the GEMV variants give identical
// results, and the splits are the same); variants of another format, or ones this format lacks,
// are refused by name.
TEST(CudaEngine, PinnedVariantsRunAsGivenAndDecodeTheSame) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  auto untuned = make_heuristic(w, Precision::fp16);
  const std::string defaults = untuned->info().kernel_variant;
  const std::string prefix = defaults.substr(0, defaults.find('['));
  const std::string splits = defaults.substr(defaults.rfind(','));  // ",attn-fused-splits:N]"
  const std::string pdl = defaults.find("+pdl") != std::string::npos ? "+pdl" : "";
  const std::string pinned = prefix + "[qkv:r1g" + pdl + ",o:r4p" + pdl + ",gu:r2p-dbuf" + pdl +
                             ",down:r1p-u16" + pdl + ",head:r1p-l2pf" + pdl + splits;
  EngineOptions o = options(Backend::cuda, Precision::fp16);
  o.kernel_variants = pinned;
  auto replayed = make_engine(w, o);
  EXPECT_EQ(replayed->info().kernel_variant, pinned);
  EXPECT_EQ(replayed->info().kernel_variant_choice, "pinned");
  EXPECT_EQ(untuned->info().kernel_variant_choice, "heuristic");
  const auto p = prompt(5, w->config.vocab_size);
  EXPECT_EQ(generate_greedy(*replayed, p, 20), generate_greedy(*untuned, p, 20));
  const int32_t one[1] = {42};
  EXPECT_EQ(copy(replayed->forward(one, false)), copy(untuned->forward(one, false)));

  const auto refused = [&](const std::string& text, const std::string& names) {
    o.kernel_variants = text;
    try {
      (void)make_engine(w, o);
      ADD_FAILURE() << "loaded with " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--kernel-variants"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  };
  refused("cuda-f32acc-nf4-gemv-v2" + pinned.substr(pinned.find('[')), prefix);
  std::string lacking = pinned;  // two-chunk steps are not an f16 variant
  lacking.replace(lacking.find("o:r4p"), 5, "o:r2p-u2");
  refused(lacking, "role o: r2p-u2");
}

// The heuristic sizes the decode attention's KV slices for the job's decode length when one is
// given (run: prompt + new tokens), else for the cache: 100 positions take 2 slices where the
// 512-position cache takes 8 (or 1 each on a GPU without clusters).
TEST(CudaEngine, AttentionSlicesFollowTheJobsDecodeLength) {
  EC_REQUIRE_CUDA();
  auto w = weights("tiny-qwen2", DType::f16);
  EngineOptions o = options(Backend::cuda, Precision::fp16);
  o.use_tuning_table = false;
  const auto splits_of = [&](int decode_length) {
    o.decode_length = decode_length;
    const std::string v = make_engine(w, o)->info().kernel_variant;
    const size_t at = v.rfind(':');
    EXPECT_NE(v.find("attn-fused-splits"), std::string::npos) << v;
    return std::stoi(v.substr(at + 1));
  };
  const int whole = splits_of(0);
  EXPECT_TRUE(whole == 8 || whole == 1) << whole;
  EXPECT_EQ(splits_of(100), std::min(whole, 2));
  EXPECT_EQ(splits_of(100000), whole);  // past the cache: sized for the cache
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
  auto stepwise = make_heuristic(w, Precision::fp16);
  auto chained = make_heuristic(w, Precision::fp16);
  auto direct = make_heuristic(w, Precision::fp16, false);
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
