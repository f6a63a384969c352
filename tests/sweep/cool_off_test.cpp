// Cool-off: fixed rest, and waiting for a GPU to come back near its idle temperature.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "core/error.h"
#include "sweep/cool_off.h"

namespace ec::sweep {
namespace {

TEST(CoolOff, FixedSecondsPerGpu) {
  CoolOffPolicy p;
  p.seconds = 5.0;
  CoolOff c(p);
  std::string note;
  EXPECT_TRUE(c.ready(0, 0.0, note));  // nothing ran yet
  c.cell_finished(0, 10.0);
  EXPECT_FALSE(c.ready(0, 14.9, note));
  EXPECT_TRUE(c.ready(1, 11.0, note));  // another GPU is not held back
  EXPECT_TRUE(c.ready(0, 15.0, note));
  EXPECT_TRUE(note.empty());
}

TEST(CoolOff, WaitsForTheIdleTemperaturePlusMargin) {
  std::map<int, double> temp = {{0, 41.0}, {1, 35.0}};
  CoolOffPolicy p;
  p.seconds = 2.0;
  p.within_c = 3.0;
  p.max_wait_s = 100.0;
  p.read_temperature = [&](int gpu, std::string&) -> std::optional<double> { return temp.at(gpu); };
  CoolOff c(p);
  c.record_idle(0);
  c.record_idle(1);
  EXPECT_EQ(c.idle_c(0), 41.0);
  EXPECT_FALSE(c.idle_c(5));
  temp[0] = 72.0;
  c.cell_finished(0, 0.0);
  std::string note;
  EXPECT_FALSE(c.ready(0, 1.0, note));  // the fixed part comes first
  EXPECT_FALSE(c.ready(0, 30.0, note));
  temp[0] = 44.5;
  EXPECT_FALSE(c.ready(0, 31.0, note));
  temp[0] = 44.0;  // idle 41 + 3
  EXPECT_TRUE(c.ready(0, 32.0, note));
  EXPECT_TRUE(note.empty());
}

TEST(CoolOff, GivesUpAtMaxWaitAndSaysSo) {
  double t = 50.0;
  CoolOffPolicy p;
  p.within_c = 1.0;
  p.max_wait_s = 60.0;
  p.read_temperature = [&](int, std::string&) -> std::optional<double> { return t; };
  CoolOff c(p);
  c.record_idle(3);
  t = 80.0;
  c.cell_finished(3, 100.0);
  std::string note;
  EXPECT_FALSE(c.ready(3, 159.0, note));
  EXPECT_TRUE(c.ready(3, 160.0, note));
  EXPECT_THAT(note, ::testing::HasSubstr("GPU 3 did not cool"));
}

TEST(CoolOff, UnreadableTemperatureIsAnErrorWithTheReason) {
  CoolOffPolicy p;
  p.within_c = 2.0;
  p.read_temperature = [](int, std::string& reason) -> std::optional<double> {
    reason = "NVML library not found";
    return std::nullopt;
  };
  CoolOff c(p);
  try {
    c.record_idle(0);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("NVML library not found"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("--cooloff-temp-c"));
  }
  CoolOffPolicy fixed_policy;
  fixed_policy.seconds = 1.0;
  CoolOff fixed(fixed_policy);
  EXPECT_NO_THROW(fixed.record_idle(0));  // no temperature needed
}

}  // namespace
}  // namespace ec::sweep
