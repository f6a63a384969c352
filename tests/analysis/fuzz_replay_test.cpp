// Replays, through the analysis fuzzers' own entry points (fuzz/report_ingest_entry.h,
// fuzz/published_csv_entry.h), every input they once failed on (tests/fixtures/regressions/
// <target>/) and every seed (fuzz/corpus/<target>/). It lives here rather than in
// tests/regressions because test_regressions does not link ec_analysis.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "../fuzz/published_csv_entry.h"
#include "../fuzz/report_ingest_entry.h"
#include "support/paths.h"

namespace ec::fuzz {
namespace {

using Entry = std::function<void(std::span<const uint8_t>)>;

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Feeds every file under `dir` to `entry`; a PropertyViolation or any exception other than
// ec::Error (which entries swallow) fails the test, naming the file.
int replay(const std::string& name, const Entry& entry, const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) return 0;
  int count = 0;
  for (const auto& file : std::filesystem::recursive_directory_iterator(dir)) {
    if (!file.is_regular_file()) continue;
    ++count;
    const std::vector<uint8_t> bytes = read_bytes(file.path());
    try {
      entry(bytes);
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << " on " << file.path() << ": " << e.what();
    }
  }
  return count;
}

TEST(AnalysisFuzzReplay, CommittedFailuresAndSeedsOfReportIngest) {
  EXPECT_GT(replay("report_ingest", report_ingest_one_input,
                   ec::test::fixture("regressions/report_ingest")),
            0);
  EXPECT_GT(replay("report_ingest", report_ingest_one_input,
                   ec::test::source_dir() / "fuzz" / "corpus" / "report_ingest"),
            0);
}

TEST(AnalysisFuzzReplay, CommittedFailuresAndSeedsOfPublishedCsv) {
  EXPECT_GT(replay("published_csv", published_csv_one_input,
                   ec::test::fixture("regressions/published_csv")),
            0);
  EXPECT_GT(replay("published_csv", published_csv_one_input,
                   ec::test::source_dir() / "fuzz" / "corpus" / "published_csv"),
            0);
}

}  // namespace
}  // namespace ec::fuzz
