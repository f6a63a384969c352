// Progress text and the ETA arithmetic behind it.
#include <gtest/gtest.h>

#include "sweep/progress_line.h"

namespace ec::sweep {
namespace {

TEST(Eta, UnknownUntilACellFinished) {
  EXPECT_FALSE(eta_seconds(10, 0, 0.0, 1));
}

TEST(Eta, MeanCellTimeTimesRoundsOfSlots) {
  // 3 cells took 30 s: 10 s each; 5 left on 2 GPUs is 3 rounds.
  EXPECT_DOUBLE_EQ(*eta_seconds(5, 3, 30.0, 2), 30.0);
  EXPECT_DOUBLE_EQ(*eta_seconds(5, 3, 30.0, 1), 50.0);
  EXPECT_DOUBLE_EQ(*eta_seconds(0, 3, 30.0, 1), 0.0);
}

TEST(Progress, TextAndDurations) {
  EXPECT_EQ(format_duration(0.24), "0.2s");
  EXPECT_EQ(format_duration(44.6), "45s");
  EXPECT_EQ(format_duration(250), "4m10s");
  EXPECT_EQ(format_duration(7380), "2h03m");
  EXPECT_EQ(progress_text({12, 3, 1, 2}, 250.0), "sweep 3/12 done, 1 failed, 2 running, ETA 4m10s");
  EXPECT_EQ(progress_text({2, 0, 0, 1}, std::nullopt),
            "sweep 0/2 done, 0 failed, 1 running, ETA ?");
}

}  // namespace
}  // namespace ec::sweep
