// The quality probe: teacher-forced perplexity over non-overlapping windows of a tokenized corpus,
// and, against a reference engine (the run's FP16 baseline), next-token KL divergence and top-1
// agreement.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/engine.h"

namespace ec::engine {

struct PerplexityResult {
  double perplexity = 0.0;       // exp(nll_sum / predicted_tokens)
  double nll_sum = 0.0;          // natural-log NLL summed over every predicted token
  int64_t predicted_tokens = 0;  // Σ (window length − 1)
  int64_t windows = 0;
  int seq_len = 0;  // the window length used (after capping at the model context)
  // Only with a reference engine:
  bool has_reference = false;
  double mean_kl = 0.0;         // mean over scored positions of KL(P_ref ‖ P_model), nats
  double top1_agreement = 0.0;  // fraction of scored positions where both argmaxes agree
  // The reference's own perplexity on the same windows (computed anyway for the KL).
  double reference_nll_sum = 0.0;
  double reference_perplexity = 0.0;
};

struct Window {
  int64_t begin = 0;
  int64_t length = 0;
};

// Splits [0, n_tokens) into consecutive non-overlapping windows of seq_len; the last may be
// shorter. A window of one token predicts nothing and is left out.
std::vector<Window> perplexity_windows(int64_t n_tokens, int seq_len);

// The window length: `requested` capped at the engine's context (max_position_embeddings and the
// KV cache length).
int perplexity_seq_len(const Engine& engine, int requested);

// Scores `tokens` (the corpus tokenized once) with `model`, each window teacher-forced from an
// empty cache. With `reference`, both engines run window by window on the same tokens. Engines are
// reset before and left holding the last window. ec::Error when fewer than two tokens, when a
// token is outside the vocabulary or when the two engines' vocabularies differ.
PerplexityResult evaluate_perplexity(Engine& model, std::span<const int32_t> tokens,
                                     int seq_len = 1024, Engine* reference = nullptr);

}  // namespace ec::engine
