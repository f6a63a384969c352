// The quality probe, as the original EcoCompute scores it: non-overlapping windows, each from an
// empty cache, NLL summed over every predicted token then exponentiated once.
#include "engine/perplexity.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/progress.h"

namespace ec::engine {
namespace {

// log Σ exp(row) in double, shifted by the maximum so nothing overflows.
double log_sum_exp(const float* row, int64_t n) {
  float max_value = row[0];
  for (int64_t i = 1; i < n; ++i) max_value = std::max(max_value, row[i]);
  const double m = max_value;
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(row[i]) - m);
  return m + std::log(sum);
}

// KL(P_ref ‖ P_model) = Σ_v p_ref(v) · (log p_ref(v) − log p_model(v)), natural log. This direction
// asks how much the quantized model loses of the baseline's distribution, the usual choice for
// quantization quality (e.g. llama.cpp's perplexity --kl-divergence).
double kl_divergence(const float* ref, double ref_lse, const float* model, double model_lse,
                     int64_t n) {
  double kl = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double log_p = static_cast<double>(ref[i]) - ref_lse;
    const double log_q = static_cast<double>(model[i]) - model_lse;
    kl += std::exp(log_p) * (log_p - log_q);
  }
  return std::max(kl, 0.0);  // rounding can leave a tiny negative for identical rows
}

int32_t first_argmax(const float* row, int64_t n) {
  return argmax(std::span<const float>(row, static_cast<size_t>(n)));
}

// What one predicted position contributes; summed in position order afterwards.
struct PositionScore {
  double nll = 0.0;
  double ref_nll = 0.0;
  double kl = 0.0;
  bool agree = false;
};

// Runs body(i) for i in [0, n) on the machine's hardware threads, in contiguous blocks.
template <typename Body>
void parallel_for(int64_t n, const Body& body) {
  const int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 64);
  const int64_t workers = std::min(threads, std::max<int64_t>(n / 16, 1));
  const int64_t block = (n + workers - 1) / workers;
  auto run = [&](int64_t t) {
    for (int64_t i = t * block; i < std::min(n, (t + 1) * block); ++i) body(i);
  };
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < workers; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto& thread : pool) thread.join();
}

}  // namespace

std::vector<Window> perplexity_windows(int64_t n_tokens, int seq_len) {
  EC_CHECK(seq_len >= 2, "perplexity: seq_len must be at least 2, got {}", seq_len);
  std::vector<Window> windows;
  for (int64_t begin = 0; begin < n_tokens; begin += seq_len) {
    const int64_t length = std::min<int64_t>(seq_len, n_tokens - begin);
    if (length >= 2) windows.push_back({begin, length});
  }
  return windows;
}

int perplexity_seq_len(const Engine& engine, int requested) {
  EC_CHECK(requested >= 2, "perplexity: seq_len must be at least 2, got {}", requested);
  int cap = engine.info().max_context;
  if (engine.config().max_position_embeddings > 0) {
    cap = std::min(cap, engine.config().max_position_embeddings);
  }
  return std::min(requested, cap);
}

PerplexityResult evaluate_perplexity(Engine& model, std::span<const int32_t> tokens, int seq_len,
                                     Engine* reference) {
  EC_CHECK(tokens.size() >= 2, "perplexity: the corpus has {} tokens, at least 2 are needed",
           tokens.size());
  const int64_t vocab = model.config().vocab_size;
  int window_len = perplexity_seq_len(model, seq_len);
  if (reference != nullptr) {
    EC_CHECK(reference->config().vocab_size == vocab,
             "perplexity: the reference engine's vocabulary ({}) differs from the model's ({})",
             reference->config().vocab_size, vocab);
    window_len = std::min(window_len, perplexity_seq_len(*reference, seq_len));
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    EC_CHECK(tokens[i] >= 0 && tokens[i] < vocab,
             "perplexity: token id {} at index {} is outside the vocabulary [0, {})", tokens[i], i,
             vocab);
  }
  EC_CHECK(window_len >= 2, "perplexity: the model context allows windows of {} tokens only",
           window_len);

  const auto windows = perplexity_windows(static_cast<int64_t>(tokens.size()), window_len);
  PerplexityResult result;
  result.seq_len = window_len;
  result.windows = static_cast<int64_t>(windows.size());
  result.has_reference = reference != nullptr;
  double kl_sum = 0.0;
  double reference_nll_sum = 0.0;
  int64_t agree = 0;
  std::vector<float> model_logits;  // one window, copied: the span dies at the reference's forward

  Progress progress(reference != nullptr ? "perplexity + KL" : "perplexity", result.windows);
  for (size_t w = 0; w < windows.size(); ++w) {
    const auto window = tokens.subspan(static_cast<size_t>(windows[w].begin),
                                       static_cast<size_t>(windows[w].length));
    model.reset();
    const auto logits = model.forward(window, true);
    EC_CHECK(static_cast<int64_t>(logits.size()) == windows[w].length * vocab,
             "perplexity: the engine returned {} logits for a window of {} tokens (vocab {})",
             logits.size(), windows[w].length, vocab);
    const float* model_rows = logits.data();
    if (reference != nullptr) {
      model_logits.assign(logits.begin(), logits.end());
      model_rows = model_logits.data();
    }
    const float* ref_rows = nullptr;
    if (reference != nullptr) {
      reference->reset();
      const auto ref = reference->forward(window, true);
      EC_CHECK(ref.size() == model_logits.size(),
               "perplexity: the reference engine returned {} logits, expected {}", ref.size(),
               model_logits.size());
      ref_rows = ref.data();
    }
    // Position i predicts token i + 1: the last position of a window predicts nothing. Positions
    // are scored in parallel (a 150k vocabulary makes this the probe's cost on a GPU) into per-
    // position slots, then summed in order, so the result does not depend on the thread count.
    const int64_t predicted = windows[w].length - 1;
    std::vector<PositionScore> scores(static_cast<size_t>(predicted));
    parallel_for(predicted, [&](int64_t i) {
      const float* row = model_rows + i * vocab;
      const int32_t next = window[static_cast<size_t>(i + 1)];
      PositionScore& score = scores[static_cast<size_t>(i)];
      const double lse = log_sum_exp(row, vocab);
      score.nll = lse - static_cast<double>(row[next]);
      if (ref_rows != nullptr) {
        const float* ref_row = ref_rows + i * vocab;
        const double ref_lse = log_sum_exp(ref_row, vocab);
        score.ref_nll = ref_lse - static_cast<double>(ref_row[next]);
        score.kl = kl_divergence(ref_row, ref_lse, row, lse, vocab);
        score.agree = first_argmax(ref_row, vocab) == first_argmax(row, vocab);
      }
    });
    for (const PositionScore& score : scores) {
      result.nll_sum += score.nll;
      reference_nll_sum += score.ref_nll;
      kl_sum += score.kl;
      agree += score.agree ? 1 : 0;
      ++result.predicted_tokens;
    }
    progress.update(static_cast<int64_t>(w + 1));
  }
  progress.finish();

  result.perplexity = std::exp(result.nll_sum / static_cast<double>(result.predicted_tokens));
  if (reference != nullptr) {
    result.mean_kl = kl_sum / static_cast<double>(result.predicted_tokens);
    result.reference_nll_sum = reference_nll_sum;
    result.reference_perplexity =
        std::exp(reference_nll_sum / static_cast<double>(result.predicted_tokens));
    result.top1_agreement =
        static_cast<double>(agree) / static_cast<double>(result.predicted_tokens);
  }
  return result;
}

}  // namespace ec::engine
