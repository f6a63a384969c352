// tune_decode(): the descent and the joint trials, judged by the caller's timings.
#include "engine/decode_tuner.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/error.h"

namespace ec::engine {
namespace {

std::string describe(const std::vector<TunerRole>& roles, const TunerChoice& c) {
  std::string s;
  for (size_t r = 0; r < roles.size(); ++r) {
    s += fmt::format("{}{}:{}", r == 0 ? "" : ",", roles[r].name,
                     roles[r].candidates[static_cast<size_t>(c[r])]);
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class Descent {
 public:
  Descent(const TunerSettings& settings, const TunerCallbacks& callbacks)
      : settings_(settings), cb_(callbacks) {}

  double time(const TunerChoice& c, int steps) {
    ++timings_;
    return cb_.time_steps(c, steps);
  }
  void log(const std::string& line) const {
    if (cb_.log) cb_.log(line);
  }

  // The incumbent is timed again right before each candidate: clocks and temperature drift while
  // tuning, and comparing against a stale time made whatever was tried first look faster.
  double try_candidate(TunerChoice& incumbent, const TunerChoice& next, std::string_view what) {
    const double before = time(incumbent, settings_.steps);
    const double ratio = time(next, settings_.steps) / before;
    const bool kept = ratio < 1.0 - settings_.margin;
    if (kept) incumbent = next;
    log(fmt::format("{}: {:.4f} of the incumbent's time{}", what, ratio, kept ? ", kept" : ""));
    return ratio;
  }

  // A chain of small wins can add up to a slower whole (seen on the H200: qwen2-7b FP16 tuned to
  // 229.9 tok/s where other choices reached 247), so a changed set is timed against `base` in
  // alternating turns and kept only when its median is faster by `margin`.
  TunerChoice keep_if_faster(const TunerChoice& base, const TunerChoice& candidate, int steps,
                             double margin, int rounds, std::string_view what) {
    if (candidate == base) {
      log(fmt::format("{}: no change", what));
      return base;
    }
    std::vector<double> t_base, t_cand;
    for (int i = 0; i < rounds; ++i) {
      t_base.push_back(time(base, steps));
      t_cand.push_back(time(candidate, steps));
    }
    const double before = median(t_base), after = median(t_cand);
    const bool kept = after < before * (1.0 - margin);
    log(fmt::format("{}: {:.1f} against {:.1f} us per step (median of {}), {}", what, after * 1e6,
                    before * 1e6, rounds, kept ? "kept" : "not kept"));
    return kept ? candidate : base;
  }

  int timings() const { return timings_; }

 private:
  const TunerSettings& settings_;
  const TunerCallbacks& cb_;
  int timings_ = 0;
};

// Sets every role that has a choice in `picks`; the result equals `base` when none changed.
TunerChoice with_picks(TunerChoice base, const std::vector<std::optional<int>>& picks) {
  for (size_t r = 0; r < base.size(); ++r) {
    if (picks[r]) base[r] = *picks[r];
  }
  return base;
}

}  // namespace

std::string logits_difference(std::span<const float> want, std::span<const float> got) {
  if (want.size() != got.size()) {
    return fmt::format("{} logits where the starting set gives {}", got.size(), want.size());
  }
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::bit_cast<uint32_t>(want[i]) != std::bit_cast<uint32_t>(got[i])) {
      if (differ++ == 0) first = i;
    }
  }
  if (differ == 0) return "";
  return fmt::format(
      "{} of {} logits differ, the first at {}: {:.9g} where the starting set gives "
      "{:.9g}",
      differ, want.size(), first, got[first], want[first]);
}

TunerResult tune_decode(const std::vector<TunerRole>& roles, const TunerSettings& settings,
                        const TunerCallbacks& callbacks) {
  EC_CHECK(callbacks.time_steps != nullptr, "decode tuner: no timing function");
  EC_CHECK(settings.steps > 0 && settings.rounds > 0 && settings.margin >= 0,
           "decode tuner: steps and rounds must be positive and the margin >= 0");
  for (const TunerRole& r : roles) {
    EC_CHECK(!r.candidates.empty(), "decode tuner: role {} has no candidates", r.name);
    EC_CHECK(r.chain_only.size() == r.candidates.size(),
             "decode tuner: role {} has {} candidates but {} chain_only flags", r.name,
             r.candidates.size(), r.chain_only.size());
  }
  Descent d(settings, callbacks);
  const size_t n = roles.size();
  TunerChoice choice(n, 0);
  (void)d.time(choice, settings.steps);  // discarded: the GPU is still ramping up after the load
  const TunerChoice start = choice;
  // Per role, the fastest candidate that beat its incumbent by less than the margin: a gain of
  // 0.5-1 % in each of three roles is 2-3 % together, and the descent, judging one role at a time,
  // would keep none of them (Qwen2-7B FP16 on the H200: +1.6 % for three such variants together).
  std::vector<std::optional<int>> near_miss(n), best_chain(n);
  std::vector<std::string> refused;
  for (size_t r = 0; r < n; ++r) {
    double near_ratio = 1.0;
    double chain_ratio = 1.0 + settings.margin;  // not clearly slower alone
    for (int c = 0; c < static_cast<int>(roles[r].candidates.size()); ++c) {
      if (c == choice[r]) continue;
      TunerChoice next = choice;
      next[r] = c;
      const std::string what =
          fmt::format("{} {}", roles[r].name, roles[r].candidates[static_cast<size_t>(c)]);
      if (callbacks.differs) {
        // Checked once, in the descent: the later trials take only candidates it timed.
        const std::string how = callbacks.differs(next);
        if (!how.empty()) {
          refused.push_back(fmt::format("{}: {}", what, how));
          d.log(fmt::format("{}: refused, its outputs differ from the starting set's ({})", what,
                            how));
          continue;
        }
      }
      const double ratio = d.try_candidate(choice, next, what);
      if (ratio <
          1.0 - settings.margin) {  // a new incumbent: earlier near misses were against the old
        near_miss[r].reset();
        near_ratio = 1.0;
      } else if (ratio < near_ratio) {
        near_miss[r] = c;
        near_ratio = ratio;
      }
      if (roles[r].chain_only[static_cast<size_t>(c)] && ratio < chain_ratio) {
        best_chain[r] = c;
        chain_ratio = ratio;
      }
    }
  }
  choice = d.keep_if_faster(start, choice, settings.steps, settings.margin, settings.rounds,
                            "descent's set against the starting set");
  choice = d.keep_if_faster(choice, with_picks(choice, near_miss), settings.steps, settings.margin,
                            settings.rounds, "near misses together");
  // The chain-only variants together, in more and longer turns and by a third of the margin:
  // Qwen2-7B FP16 with o, down and lm_head on bulk copies decoded 1.25 % faster, in two processes
  // each, than the set the descent kept.
  choice = d.keep_if_faster(choice, with_picks(choice, best_chain), 2 * settings.steps,
                            settings.margin / 3, settings.rounds + 2, "chain variants together");
  // The chosen set as a whole too: its variants were each checked beside other roles' variants,
  // and a kernel that races its neighbours (PDL) can agree in one chain and not in another.
  if (callbacks.differs && choice != start) {
    const std::string how = callbacks.differs(choice);
    if (!how.empty()) {
      refused.push_back(fmt::format("the set {}: {}", describe(roles, choice), how));
      d.log(
          fmt::format("the set {}: refused, its outputs differ from the starting set's ({}); "
                      "keeping the starting set",
                      describe(roles, choice), how));
      choice = start;
    }
  }
  TunerResult result;
  result.step_seconds = d.time(choice, settings.steps);
  result.choice = choice;
  result.timings = d.timings();
  result.refused = std::move(refused);
  d.log(fmt::format("chosen: {} ({:.1f} us per step)", describe(roles, choice),
                    result.step_seconds * 1e6));
  return result;
}

}  // namespace ec::engine
