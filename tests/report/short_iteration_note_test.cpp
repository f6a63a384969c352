// finalize(): iterations shorter than a few energy-counter updates get a note saying how coarse
// their energy is (the H200's counter steps every ~0.1 s; a 0.5B model's 256 tokens take ~0.15 s).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/energy_json.h"
#include "report/validate.h"
#include "sample_records.h"

namespace ec::report {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// The sample record with every iteration of both sides lasting `seconds` (energy scaled along).
RunRecord with_iterations_of(double seconds) {
  RunRecord r = test::measured_record();
  for (DecodeRun* side : {&r.run, &*r.baseline}) {
    for (auto& it : side->iterations) {
      *it.energy_j *= seconds / it.seconds;
      it.seconds = seconds;
    }
  }
  finalize(r);
  return r;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ShortIterationNote, LongIterationsGetNone) {
  const RunRecord r = test::measured_record();  // 2.5-3.5 s iterations, counter period 0.1 s
  EXPECT_THAT(r.run.results.note, IsEmpty());
  EXPECT_THAT(r.baseline->results.note, IsEmpty());
}

TEST(ShortIterationNote, ShortIterationsSayHowCoarseTheTotalIs) {
  const RunRecord r = with_iterations_of(0.15);  // 1.5 counter updates, 10 iterations
  // period / (2 T) / sqrt(n) = 0.1 / 0.3 / sqrt(10) = 10.5 %.
  EXPECT_THAT(r.run.results.note, HasSubstr("lasted 0.150 s on average"));
  EXPECT_THAT(r.run.results.note,
              HasSubstr("under 3 updates of the energy counter (0.100 s each)"));
  EXPECT_THAT(r.run.results.note,
              HasSubstr("over 10 iterations is uncertain by up to about ±11 %"));
  EXPECT_THAT(r.baseline->results.note, HasSubstr("±11 %"));
  // Still a measurement: the figure is coarse, not missing.
  EXPECT_EQ(r.run.results.basis, Basis::measured);
  ASSERT_TRUE(r.run.results.energy_per_token_mj.has_value());
  EXPECT_THAT(validate_report(to_json(r), "short iterations").failures, IsEmpty());
  EXPECT_THAT(validate_against_original(to_json(r), "short iterations").failures, IsEmpty());
  EXPECT_EQ(to_json(r)["results"]["note"], r.run.results.note);
}

TEST(ShortIterationNote, JustUnderThreeUpdatesCounts) {
  EXPECT_THAT(with_iterations_of(0.299).run.results.note, HasSubstr("under 3 updates"));
  EXPECT_THAT(with_iterations_of(0.301).run.results.note, Not(HasSubstr("under 3 updates")));
}

TEST(ShortIterationNote, IsNotRepeatedWhenFinalizedAgain) {
  RunRecord r = with_iterations_of(0.15);
  finalize(r);
  finalize(r);
  EXPECT_EQ(count(r.run.results.note, "under 3 updates"), 1) << r.run.results.note;
}

TEST(ShortIterationNote, NeedsAKnownCounterPeriod) {
  RunRecord r = test::measured_record();
  r.meter.counter_update_period_s.reset();  // a meter without a stepwise counter
  for (auto& it : r.run.iterations) {
    *it.energy_j *= 0.15 / it.seconds;
    it.seconds = 0.15;
  }
  finalize(r);
  EXPECT_THAT(r.run.results.note, IsEmpty());
}

}  // namespace
}  // namespace ec::report
