// The decode tuner against a model of a GPU: each candidate adds a known time to the step, so the
// choice it must make is known. It keeps the starting set on near ties, takes clear wins, takes
// small wins of several roles together, the chain-only variants together, and chooses the same set
// every time it is given the same timings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/decode_tuner.h"

namespace ec::engine {
namespace {

// A decode step whose time is 1000 µs plus each role's chosen candidate's cost; when every role
// listed in chain_bonus runs a chain-only candidate, the step is chain_bonus_us faster.
struct StepModel {
  std::vector<std::vector<double>> cost_us;  // [role][candidate]
  std::vector<std::vector<bool>> chain_only;
  double chain_bonus_us = 0;
  double base_us = 1000;
  std::vector<TunerChoice> seen;

  double time(const TunerChoice& c) {
    seen.push_back(c);
    double us = base_us;
    bool all_chain = chain_bonus_us > 0;
    for (size_t r = 0; r < c.size(); ++r) {
      us += cost_us[r][static_cast<size_t>(c[r])];
      all_chain = all_chain && chain_only[r][static_cast<size_t>(c[r])];
    }
    if (all_chain) us -= chain_bonus_us;
    return us * 1e-6;
  }
};

std::vector<TunerRole> roles_of(const StepModel& m) {
  std::vector<TunerRole> roles;
  for (size_t r = 0; r < m.cost_us.size(); ++r) {
    TunerRole role{"role" + std::to_string(r), {}, m.chain_only[r]};
    for (size_t c = 0; c < m.cost_us[r].size(); ++c)
      role.candidates.push_back("v" + std::to_string(c));
    roles.push_back(role);
  }
  return roles;
}

TunerResult tune(StepModel& m, std::vector<std::string>* log = nullptr) {
  TunerCallbacks cb;
  cb.time_steps = [&m](const TunerChoice& c, int steps) {
    EXPECT_GT(steps, 0);
    return m.time(c);
  };
  if (log != nullptr) cb.log = [log](std::string_view line) { log->emplace_back(line); };
  return tune_decode(roles_of(m), TunerSettings{}, cb);
}

TEST(DecodeTuner, TakesClearWinsAndKeepsTheHeuristicOnNearTies) {
  StepModel m;
  // Role 0: candidate 2 saves 5 % of the step. Role 1: candidate 1 saves 0.5 % (a near tie).
  m.cost_us = {{100, 100, 50}, {100, 95}};
  m.chain_only = {{false, false, false}, {false, false}};
  const TunerResult r = tune(m);
  EXPECT_EQ(r.choice, (TunerChoice{2, 0}));
  EXPECT_NEAR(r.step_seconds, 1150e-6, 1e-12);
  EXPECT_EQ(r.timings, static_cast<int>(m.seen.size()));
}

TEST(DecodeTuner, SmallWinsOfSeveralRolesTogether) {
  // Each role's candidate 1 saves 1 % alone (under the 1.5 % margin); together 3 %.
  StepModel m;
  m.cost_us = {{100, 88}, {100, 88}, {100, 88}};
  m.chain_only = {{false, false}, {false, false}, {false, false}};
  std::vector<std::string> log;
  const TunerResult r = tune(m, &log);
  EXPECT_EQ(r.choice, (TunerChoice{1, 1, 1}));
  EXPECT_THAT(log, ::testing::Contains(::testing::HasSubstr("near misses together")));
  EXPECT_THAT(log.back(), ::testing::HasSubstr("chosen: role0:v1,role1:v1,role2:v1"));
}

TEST(DecodeTuner, ChainOnlyVariantsAreJudgedTogether) {
  // Candidate 1 of each role is a chain-only variant, 0.2 % slower alone; with both roles on them
  // the step is 1 % faster: above a third of the margin, below the margin.
  StepModel m;
  m.cost_us = {{100, 102}, {100, 102}};
  m.chain_only = {{false, true}, {false, true}};
  m.chain_bonus_us = 16;  // 1200 → 1188 µs
  const TunerResult r = tune(m);
  EXPECT_EQ(r.choice, (TunerChoice{1, 1}));
  // A chain-only variant clearly slower alone is not tried together.
  StepModel slow = m;
  slow.cost_us = {{100, 130}, {100, 130}};
  slow.chain_bonus_us = 70;
  EXPECT_EQ(tune(slow).choice, (TunerChoice{0, 0}));
}

TEST(DecodeTuner, TheSameTimingsGiveTheSameChoice) {
  StepModel a;
  a.cost_us = {{100, 60, 80, 99}, {100, 101, 70}, {100, 40}};
  a.chain_only = {{false, false, true, false}, {false, true, false}, {false, false}};
  StepModel b = a;
  const TunerResult ra = tune(a), rb = tune(b);
  EXPECT_EQ(ra.choice, rb.choice);
  EXPECT_EQ(a.seen, b.seen);  // and the same trials in the same order
  EXPECT_EQ(ra.choice, (TunerChoice{1, 2, 1}));
}

// A candidate whose decode step gives other outputs than the starting set's (a kernel bug) is
// refused before it is timed, however fast it would be: never timed, never chosen, reported with
// how its outputs differ. Each candidate is checked once; the others are tuned as without a check.
TEST(DecodeTuner, CandidatesWhoseOutputsDifferAreRefusedUntimed) {
  StepModel m;
  // Role 0's candidate 2 would save 8 % but computes something else; its candidate 1 saves 3 %.
  m.cost_us = {{100, 60, 10}, {100, 95, 90}};
  m.chain_only = {{false, false, false}, {false, true, false}};
  const TunerChoice wrong{2, 0};
  std::vector<TunerChoice> checked;
  TunerCallbacks cb;
  cb.time_steps = [&m](const TunerChoice& c, int) { return m.time(c); };
  cb.differs = [&](const TunerChoice& c) -> std::string {
    checked.push_back(c);
    return c[0] == 2 ? "12 of 151936 logits differ, first at 7" : "";
  };
  std::vector<std::string> log;
  cb.log = [&log](std::string_view line) { log.emplace_back(line); };
  const TunerResult r = tune_decode(roles_of(m), TunerSettings{}, cb);

  EXPECT_EQ(r.choice, (TunerChoice{1, 0}));
  for (const TunerChoice& c : m.seen) EXPECT_NE(c[0], 2) << "a refused candidate was timed";
  EXPECT_EQ(r.refused,
            (std::vector<std::string>{"role0 v2: 12 of 151936 logits differ, first at 7"}));
  EXPECT_THAT(log, ::testing::Contains(::testing::HasSubstr("role0 v2: refused")));
  // Once per candidate other than the starting one (two of role 0, two of role 1), then the chosen
  // set as a whole.
  EXPECT_EQ(checked.size(), 5u);
  EXPECT_EQ(checked.back(), r.choice);
  EXPECT_EQ(std::count(checked.begin(), checked.end(), wrong), 1);

  // With every candidate agreeing, the check changes nothing: the same trials, the same choice.
  StepModel checked_model = m, unchecked_model = m;
  checked_model.seen.clear();
  unchecked_model.seen.clear();
  TunerCallbacks all_agree;
  all_agree.time_steps = [&](const TunerChoice& c, int) { return checked_model.time(c); };
  all_agree.differs = [](const TunerChoice&) { return std::string(); };
  const TunerResult with_check = tune_decode(roles_of(m), TunerSettings{}, all_agree);
  const TunerResult without = tune(unchecked_model);
  EXPECT_EQ(with_check.choice, without.choice);
  EXPECT_EQ(checked_model.seen, unchecked_model.seen);
  EXPECT_TRUE(with_check.refused.empty());
}

// A set whose variants each agreed beside other roles' variants but differs as a whole (a kernel
// racing its neighbours) is refused too, and the starting set kept.
TEST(DecodeTuner, AChosenSetWhoseOutputsDifferKeepsTheStartingSet) {
  StepModel m;
  m.cost_us = {{100, 50}, {100, 50}};
  m.chain_only = {{false, false}, {false, false}};
  TunerCallbacks cb;
  cb.time_steps = [&m](const TunerChoice& c, int) { return m.time(c); };
  int seen_both = 0;  // a race: the set agrees when its role 1 is checked, not the second time
  cb.differs = [&seen_both](const TunerChoice& c) -> std::string {
    if (c != TunerChoice{1, 1}) return "";
    return ++seen_both == 2 ? "1 of 9 logits differ" : "";
  };
  const TunerResult r = tune_decode(roles_of(m), TunerSettings{}, cb);
  EXPECT_EQ(r.choice, (TunerChoice{0, 0}));
  EXPECT_EQ(r.refused,
            (std::vector<std::string>{"the set role0:v1,role1:v1: 1 of 9 logits differ"}));
  EXPECT_EQ(seen_both, 2);
}

TEST(DecodeTuner, LogitsDifferenceIsBitForBit) {
  const std::vector<float> want = {1.0f, -0.0f, std::nanf(""), 3.5f, 2.0f};
  EXPECT_EQ(logits_difference(want, want), "");  // NaN included: the same bits
  std::vector<float> got = want;
  got[1] = 0.0f;  // equal as numbers, not as bits
  got[3] = std::nextafter(3.5f, 4.0f);
  EXPECT_EQ(logits_difference(want, got),
            "2 of 5 logits differ, the first at 1: 0 where the starting set gives -0");
  EXPECT_EQ(logits_difference(want, std::vector<float>(4, 1.0f)),
            "4 logits where the starting set gives 5");
}

TEST(DecodeTuner, RefusesRolesWithoutCandidates) {
  TunerCallbacks cb;
  cb.time_steps = [](const TunerChoice&, int) { return 1.0; };
  EXPECT_THROW(tune_decode({TunerRole{"qkv", {}, {}}}, TunerSettings{}, cb), Error);
  EXPECT_THROW(tune_decode({TunerRole{"qkv", {"r2p"}, {}}}, TunerSettings{}, cb), Error);
  EXPECT_THROW(tune_decode({TunerRole{"qkv", {"r2p"}, {false}}}, TunerSettings{}, TunerCallbacks{}),
               Error);
}

}  // namespace
}  // namespace ec::engine
