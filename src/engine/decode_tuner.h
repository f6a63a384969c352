// The decode tuner: which GEMV variant each role of a decode step (qkv, o, gate_up, down, lm_head)
// runs, chosen by timing whole decode steps. Coordinate descent over the roles, then the roles'
// near misses together, then the variants that pay only in the chain of kernels together. Host
// code with no GPU in it: `ecocompute tune` hands it a function that times decode steps on the
// device, and its tests a model of one.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ec::engine {

struct TunerRole {
  std::string name;  // "qkv", "o", "gu", "down", "head"
  // Variant names; [0] is where the descent starts (`tune`: the variant the engine runs now, the
  // tuning table's, else the heuristic's), and the set the trials end with must beat it.
  std::vector<std::string> candidates;
  // Per candidate: it pays through the chain of kernels rather than alone (the bulk-copy rings:
  // their first requests go out before the predecessor ends), so it is also judged together with
  // the other roles' such candidates, with a finer test.
  std::vector<bool> chain_only;
};

struct TunerSettings {
  int steps = 5;          // decode steps per timing (each timing is a median: the caller's)
  double margin = 0.015;  // a candidate replaces the incumbent only when this much faster
  int rounds = 3;         // alternating turns of a joint trial (set against set)
};

// One candidate index per role, in the roles' order.
using TunerChoice = std::vector<int>;

struct TunerCallbacks {
  // Seconds per decode step with `choice`, over `steps` steps.
  std::function<double(const TunerChoice& choice, int steps)> time_steps;
  std::function<void(std::string_view line)> log;  // one line per trial; may be empty
  // How a decode step's outputs with `choice` differ from the starting set's; empty when they are
  // the same bit for bit. Every variant of a format computes the same sums in the same order, so
  // a difference is a kernel bug: the candidate is refused before it is timed, and a fast wrong
  // kernel can never enter a table. May be empty (no check).
  std::function<std::string(const TunerChoice& choice)> differs;
};

struct TunerResult {
  TunerChoice choice;
  double step_seconds = 0;  // one more timing of the chosen set
  int timings = 0;          // calls of time_steps, the tuning's cost
  // "role variant: how its outputs differ", one per candidate `differs` refused, in trial order;
  // last, "the set ...: how" when the chosen set as a whole differed (the starting set is kept).
  std::vector<std::string> refused;
};

// How `got` differs from `want` bit for bit ("3 of 151936 logits differ, the first at 17: 1.25
// where the starting set gives 1.2500001"); empty when every value has the same bits (NaNs too).
std::string logits_difference(std::span<const float> want, std::span<const float> got);

// Throws ec::Error when a role has no candidates or chain_only does not match them.
TunerResult tune_decode(const std::vector<TunerRole>& roles, const TunerSettings& settings,
                        const TunerCallbacks& callbacks);

}  // namespace ec::engine
