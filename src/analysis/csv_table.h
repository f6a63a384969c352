// A CSV file read whole (RFC 4180: quoted fields, doubled quotes, CRLF) with a header → column map,
// and cell accessors whose errors name the file, the line and the column.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ec::analysis {

// Limits on the CSVs read: the published files are a few KB; 100,000 runs are ~100 MB.
inline constexpr size_t kMaxCsvBytes = size_t{512} << 20;
inline constexpr size_t kMaxCsvRecordBytes = size_t{1}
                                             << 20;  // one row, quoted line breaks included
inline constexpr size_t kMaxCsvColumns = 4096;

class CsvTable {
 public:
  // Throws ec::Error naming `path` for an unterminated quote, an empty file, a row whose field
  // count differs from the header's, or a file, row or column count above the limits.
  static CsvTable parse(std::string_view text, const std::filesystem::path& path);
  static CsvTable read(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  const std::vector<std::string>& header() const { return header_; }
  size_t row_count() const { return rows_.size(); }
  // 1-based line of the file where the row starts (the header is line 1).
  size_t line(size_t row) const { return lines_[row]; }

  std::optional<size_t> column(std::string_view name) const;
  // Throws "FILE: missing required column 'NAME'".
  size_t require_column(std::string_view name) const;

  const std::string& text(size_t row, size_t col) const { return rows_[row][col]; }
  // Empty cell → nullopt; NaN, infinity or anything that is not a whole number → ec::Error naming
  // file, line and column.
  std::optional<double> number(size_t row, size_t col) const;
  std::optional<int64_t> integer(size_t row, size_t col) const;
  // As number(), but an empty cell is an error too.
  double required_number(size_t row, size_t col) const;

 private:
  std::filesystem::path path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<size_t> lines_;
};

// Quotes a field when it holds a comma, a quote or a line break (doubling inner quotes).
std::string csv_escape(std::string_view field);

// Text meant for a spreadsheet, kept from being run as a formula (OWASP "CSV injection"): a text
// cell that starts with = + - @ TAB or CR, after any number of apostrophes, gets one more
// apostrophe in front ("=1+1" → "'=1+1", "'=x" → "''=x"). A text that is a plain number ("-3.5")
// is left alone, and numeric cells are never text. csv_unneutralize, applied by CsvTable to every
// field it reads, removes exactly that apostrophe, so written text reads back unchanged.
std::string csv_neutralize(std::string_view text);
std::string csv_unneutralize(std::string_view field);

}  // namespace ec::analysis
