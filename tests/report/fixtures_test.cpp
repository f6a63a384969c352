// The checked-in report fixtures stay valid (or invalid for the stated reason) as the schema
// evolves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "report/consistency.h"
#include "report/energy_json.h"
#include "report/validate.h"
#include "support/paths.h"

namespace ec::report {
namespace {

using ::testing::HasSubstr;

nlohmann::json load(const std::string& name) {
  return nlohmann::json::parse(read_file(ec::test::fixture("report/" + name)));
}

TEST(ReportFixtures, ValidOnesValidateAndRoundTrip) {
  for (const char* name : {"measured-int8.energy.json", "unavailable-cpu-nf4.energy.json"}) {
    const auto j = load(name);
    const auto ours = validate_report(j, name);
    EXPECT_TRUE(ours.ok()) << name << ": " << (ours.ok() ? "" : ours.failures.front());
    EXPECT_TRUE(validate_against_original(j, name).ok()) << name;
    EXPECT_EQ(to_json(run_record_from_json(j)), j) << name;
  }
  EXPECT_TRUE(is_measurement(load("measured-int8.energy.json")));
  EXPECT_FALSE(is_measurement(load("unavailable-cpu-nf4.energy.json")));
}

TEST(ReportFixtures, InvalidOneFailsForItsStatedReason) {
  const auto r = validate_report(load("invalid-power-5pct-high.energy.json"), "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.failures.front(), HasSubstr("bad.json: /results/avg_power_watts: "));
  EXPECT_THAT(r.failures.front(), HasSubstr("limit 2 %"));
}

}  // namespace
}  // namespace ec::report
