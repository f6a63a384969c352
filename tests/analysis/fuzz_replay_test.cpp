// Replays, through the analysis fuzzers' own entry points (fuzz/report_ingest_entry.h,
// fuzz/published_csv_entry.h), every input they once failed on (tests/fixtures/regressions/
// <target>/) and every seed (fuzz/corpus/<target>/). It lives here rather than in
// tests/regressions because test_regressions does not link ec_analysis.
#include <gtest/gtest.h>

#include "../fuzz/published_csv_entry.h"
#include "../fuzz/report_ingest_entry.h"
#include "support/fuzz_replay.h"
#include "support/paths.h"

namespace ec::fuzz {
namespace {

using test::replay_fuzz_inputs;

TEST(AnalysisFuzzReplay, CommittedFailuresAndSeedsOfReportIngest) {
  EXPECT_GT(replay_fuzz_inputs("report_ingest", report_ingest_one_input,
                               ec::test::fixture("regressions/report_ingest")),
            0);
  EXPECT_GT(replay_fuzz_inputs("report_ingest", report_ingest_one_input,
                               ec::test::source_dir() / "fuzz" / "corpus" / "report_ingest"),
            0);
}

TEST(AnalysisFuzzReplay, CommittedFailuresAndSeedsOfPublishedCsv) {
  EXPECT_GT(replay_fuzz_inputs("published_csv", published_csv_one_input,
                               ec::test::fixture("regressions/published_csv")),
            0);
  EXPECT_GT(replay_fuzz_inputs("published_csv", published_csv_one_input,
                               ec::test::source_dir() / "fuzz" / "corpus" / "published_csv"),
            0);
}

}  // namespace
}  // namespace ec::fuzz
