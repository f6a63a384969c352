// The one measurement rule: what counts as a hardware measurement, and the reason given when not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/measurement_rule.h"

namespace ec::report {
namespace {

using ::testing::HasSubstr;

TEST(MeasurementRule, MeasuredWithAHardwareMeter) {
  EXPECT_EQ(why_not_a_measurement("measured", "direct-nvml"), "");
  EXPECT_EQ(why_not_a_measurement("measured", "nvml_total_energy_counter"), "");
  EXPECT_EQ(why_not_a_measurement("measured", "rapl_package"), "");
}

TEST(MeasurementRule, EverythingElseSaysWhy) {
  EXPECT_THAT(why_not_a_measurement("interpolated", "ecocompute-dataset"),
              HasSubstr("basis is 'interpolated', not 'measured'"));
  EXPECT_THAT(why_not_a_measurement("", "direct-nvml"), HasSubstr("basis is '(none)'"));
  EXPECT_THAT(why_not_a_measurement("measured", ""), HasSubstr("no measurement_source"));
  EXPECT_THAT(why_not_a_measurement("measured", "none"), HasSubstr("not a hardware meter"));
  // A source that names a meter but says it is not real is refused, whatever its case.
  EXPECT_THAT(why_not_a_measurement("measured", "nvml (Synthetic replay)"), HasSubstr("synthetic"));
  EXPECT_THAT(why_not_a_measurement(
                  "measured",
                  "ILLUSTRATIVE (synthetic) \u2014 shows the shape of the on-GPU measured output; "
                  "NOT a real measurement"),
              HasSubstr("illustrative"));
  EXPECT_THAT(why_not_a_measurement("measured", "direct-nvml, simulated"), HasSubstr("simulated"));
}

}  // namespace
}  // namespace ec::report
