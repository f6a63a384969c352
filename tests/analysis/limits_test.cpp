// The documented limits on what analysis reads (docs/limits.md): energy.json size, CSV size, row
// length, column count and encoding. Each error names the file, the limit and what was found, and
// a file over a limit never stops the other files from being imported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "analysis/csv_table.h"
#include "analysis/import.h"
#include "core/error.h"
#include "core/file_io.h"
#include "support/lines.h"
#include "support/paths.h"

namespace ec::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ec::Error";
  return "";
}

TEST(AnalysisLimits, OversizedFilesAreSkippedBySizeAndTheRestImported) {
  test::ScratchDir dir;
  fs::create_directories(dir / "in");
  write_file_atomic(dir / "in" / "good.energy.json",
                    read_file(test::fixture("analysis/original_int8_7b.energy.json")));
  write_file_atomic(dir / "in" / "huge.energy.json", "{}");
  fs::resize_file(dir / "in" / "huge.energy.json", kMaxReportBytes + 1);  // sparse
  write_file_atomic(dir / "in" / "huge.csv", "run_id\n");
  fs::resize_file(dir / "in" / "huge.csv", kMaxCsvBytes + 1);
  const std::vector<fs::path> paths{dir / "in"};
  const ImportResult r = import_paths(paths);
  EXPECT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.files_skipped, 2u);
  const std::string all = test::joined_lines(r.problems);
  EXPECT_THAT(all, AllOf(HasSubstr("huge.energy.json: " + std::to_string(kMaxReportBytes + 1)),
                         HasSubstr("limit of " + std::to_string(kMaxReportBytes))));
  EXPECT_THAT(all, AllOf(HasSubstr("huge.csv: " + std::to_string(kMaxCsvBytes + 1)),
                         HasSubstr("limit of " + std::to_string(kMaxCsvBytes))));
  EXPECT_THAT(error_of([&] { CsvTable::read(dir / "in" / "huge.csv"); }),
              HasSubstr(std::to_string(kMaxCsvBytes)));
}

TEST(AnalysisLimits, ReportTextAboveTheLimitIsRefusedBeforeParsing) {
  std::string text = read_file(test::fixture("analysis/original_int8_7b.energy.json"));
  const size_t real = text.size();
  text.resize(kMaxReportBytes, ' ');  // trailing whitespace: still the same valid report
  EXPECT_EQ(import_report(text, "pad.json").model, "Qwen/Qwen2-7B");
  text.push_back(' ');
  EXPECT_THAT(error_of([&] { import_report(text, "pad.json"); }),
              AllOf(HasSubstr("pad.json"), HasSubstr(std::to_string(kMaxReportBytes + 1)),
                    HasSubstr(std::to_string(kMaxReportBytes))));
  EXPECT_GT(real, 100u);
}

TEST(AnalysisLimits, RowLongerThanTheLimitNamesItsLine) {
  std::mt19937 rng(5);
  std::string cell;
  for (size_t i = 0; i < kMaxCsvRecordBytes; ++i)
    cell.push_back(static_cast<char>('a' + rng() % 26));
  const std::string ok_row = "r1," + cell.substr(0, kMaxCsvRecordBytes - 4) + "\n";  // exactly at
  const CsvTable t = CsvTable::parse("run_id,note\n" + ok_row, "rows.csv");
  EXPECT_EQ(t.text(0, 1).size(), kMaxCsvRecordBytes - 4);
  // One byte more, inside a quoted field that spans lines: the error names the row's first line.
  const std::string long_row = "r2,\"" + cell.substr(0, 10) + "\n" + cell + "\"\n";
  EXPECT_THAT(error_of([&] { CsvTable::parse("run_id,note\n" + ok_row + long_row, "rows.csv"); }),
              AllOf(HasSubstr("rows.csv: line 3"), HasSubstr(std::to_string(kMaxCsvRecordBytes))));
}

TEST(AnalysisLimits, MoreColumnsThanTheLimitIsRefused) {
  std::string header;
  for (size_t i = 0; i < kMaxCsvColumns; ++i) header += (i ? ",c" : "c") + std::to_string(i);
  const CsvTable t = CsvTable::parse(header + "\n", "wide.csv");
  EXPECT_EQ(t.header().size(), kMaxCsvColumns);
  EXPECT_THAT(error_of([&] { CsvTable::parse(header + ",one_more\n", "wide.csv"); }),
              AllOf(HasSubstr("wide.csv: line 1"), HasSubstr(std::to_string(kMaxCsvColumns))));
}

TEST(AnalysisLimits, CsvThatIsNotUtf8NamesLineAndByte) {
  EXPECT_THAT(error_of([] { CsvTable::parse("run_id,gpu\nr1,caf\xE9\n", "latin1.csv"); }),
              HasSubstr("latin1.csv: line 2, byte 7: not UTF-8"));
  // Overlong encodings, surrogates and code points past U+10FFFF are not UTF-8 either.
  for (const char* bad : {"\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF"}) {
    EXPECT_THROW(CsvTable::parse(std::string("a\n") + bad + "\n", "bad.csv"), Error) << bad;
  }
  const CsvTable t = CsvTable::parse("gpu\n\xE4\xBD\xA0\xF0\x9F\x98\x80\n", "ok.csv");
  EXPECT_EQ(t.text(0, 0), "\xE4\xBD\xA0\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace ec::analysis
