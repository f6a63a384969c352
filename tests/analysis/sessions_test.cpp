// Sessions summarised from runs, and names resolved from unique prefixes.
#include "analysis/sessions.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace ec::analysis {
namespace {

store::RunRow run(std::string session, std::string when, std::string precision, bool measured) {
  store::RunRow r;
  r.session = std::move(session);
  r.timestamp_utc = std::move(when);
  r.precision = std::move(precision);
  r.gpu = "NVIDIA H200";
  r.model = "qwen2-7b";
  r.basis = measured ? "measured" : "unavailable";
  // The one measurement rule also asks for a hardware meter behind a measured figure.
  if (measured) r.measurement_source = "nvml_total_energy_counter";
  return r;
}

const std::vector<store::RunRow> kRuns = {
    run("sweep-2026-12-01T10", "2026-12-01T10:05:00Z", "NF4", true),
    run("sweep-2026-12-01T10", "2026-12-01T10:01:00Z", "INT8", true),
    run("sweep-2026-12-02T09", "2026-12-02T09:00:00Z", "NF4", false),
    run("cpu-check", "", "INT8", false),
};

TEST(Sessions, SummariesCountRunsAndSpanTime) {
  const auto s = summarize_sessions(kRuns);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].session, "cpu-check");
  EXPECT_EQ(s[0].first_utc, "");
  EXPECT_EQ(s[1].session, "sweep-2026-12-01T10");
  EXPECT_EQ(s[1].runs, 2u);
  EXPECT_EQ(s[1].measured, 2u);
  EXPECT_EQ(s[1].first_utc, "2026-12-01T10:01:00Z");
  EXPECT_EQ(s[1].last_utc, "2026-12-01T10:05:00Z");
  EXPECT_EQ(s[1].precisions, (std::set<std::string>{"INT8", "NF4"}));
  EXPECT_EQ(s[2].measured, 0u);
  const Table t = sessions_table(s);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(std::get<std::string>(t.rows[1][7]), "INT8, NF4");
}

TEST(Sessions, AUniquePrefixNamesItsSession) {
  EXPECT_EQ(resolve_session(kRuns, "cpu"), "cpu-check");
  EXPECT_EQ(resolve_session(kRuns, "sweep-2026-12-02"), "sweep-2026-12-02T09");
  EXPECT_EQ(resolve_session(kRuns, "sweep-2026-12-01T10"), "sweep-2026-12-01T10");
  EXPECT_EQ(resolve_session(kRuns, "nothing"), std::nullopt);
  EXPECT_EQ(resolve_session(kRuns, ""), std::nullopt);
}

TEST(Sessions, AnAmbiguousPrefixNamesTheCandidates) {
  try {
    resolve_session(kRuns, "sweep");
    FAIL() << "an ambiguous prefix resolved";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("sweep-2026-12-01T10, sweep-2026-12-02T09"),
              std::string::npos)
        << e.what();
  }
}

TEST(Sessions, AFullNameWinsOverLongerNamesItStarts) {
  std::vector<store::RunRow> runs = kRuns;
  runs.push_back(run("cpu", "", "NF4", false));
  EXPECT_EQ(resolve_session(runs, "cpu"), "cpu");
}

}  // namespace
}  // namespace ec::analysis
