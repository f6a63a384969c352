// write_report: validates before writing, writes atomically, and never leaves a partial or invalid
// file.
#include "report/energy_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "report/validate.h"
#include "sample_records.h"
#include "support/paths.h"

namespace ec::report {
namespace {

using ::testing::HasSubstr;

size_t entries(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(WriteReport, WritesTheValidatedReport) {
  ec::test::ScratchDir dir;
  const RunRecord r = test::measured_record(11);
  write_report(dir / "energy.json", r);
  const auto text = read_file(dir / "energy.json");
  EXPECT_EQ(text.back(), '\n');
  const auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back, to_json(r));
  EXPECT_TRUE(validate_report(back, "energy.json").ok());
  EXPECT_EQ(entries(dir.path()), 1u);  // no temp file left behind
}

TEST(WriteReport, InvalidReportIsNotWrittenAndTheErrorListsTheFailures) {
  ec::test::ScratchDir dir;
  RunRecord r = test::measured_record(12);
  *r.run.results.avg_power_w *= 1.05;  // breaks energy/token vs power/throughput
  r.workload.precision = "FP8";        // breaks the schema
  try {
    write_report(dir / "energy.json", r);
    FAIL() << "expected ec::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("refusing to write invalid report"));
    EXPECT_THAT(what, HasSubstr("/results/avg_power_watts"));
    EXPECT_THAT(what, HasSubstr("/workload/precision"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "energy.json"));
  EXPECT_EQ(entries(dir.path()), 0u);
}

TEST(WriteReport, InvalidReportLeavesThePreviousFileIntact) {
  ec::test::ScratchDir dir;
  const RunRecord good = test::measured_record(13);
  write_report(dir / "energy.json", good);
  const auto before = read_file(dir / "energy.json");
  RunRecord bad = good;
  bad.run.results.vs_fp16_energy_pct = *bad.run.results.vs_fp16_energy_pct + 4.0;
  EXPECT_THROW(write_report(dir / "energy.json", bad), Error);
  EXPECT_EQ(read_file(dir / "energy.json"), before);
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(WriteReport, UnavailableCpuReportIsWritten) {
  ec::test::ScratchDir dir;
  write_report(dir / "cpu.json", test::unavailable_cpu_record(3));
  const auto back = nlohmann::json::parse(read_file(dir / "cpu.json"));
  EXPECT_EQ(back["results"]["basis"], "unavailable");
  EXPECT_TRUE(back["results"]["energy_per_token_mj"].is_null());
}

}  // namespace
}  // namespace ec::report
