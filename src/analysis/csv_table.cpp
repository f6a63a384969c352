// CSV parsing with errors that point at the offending file, line and column.
#include "analysis/csv_table.h"

#include <cstdlib>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.h"
#include "core/file_io.h"
#include "core/trim.h"
#include "core/utf8.h"

namespace ec::analysis {

CsvTable CsvTable::parse(std::string_view text, const std::filesystem::path& path) {
  if (text.size() > kMaxCsvBytes) {
    fail("{}: {} bytes, more than the limit of {} bytes for a CSV file", path.string(), text.size(),
         kMaxCsvBytes);
  }
  CsvTable table;
  table.path_ = path;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM
  // Every printer and the JSON outputs need UTF-8.
  if (const auto invalid = find_invalid_utf8(text)) {
    const size_t bad = *invalid;
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + bad, '\n'));
    const size_t column = bad - (text.rfind('\n', bad == 0 ? 0 : bad - 1) + 1);
    fail("{}: line {}, byte {}: not UTF-8 (save the file as UTF-8)", path.string(), line,
         column + 1);
  }

  std::vector<std::vector<std::string>> records;
  std::vector<size_t> record_lines;
  std::vector<std::string> record;
  std::string field;
  size_t line = 1;
  size_t record_line = 1;
  bool in_quotes = false;
  bool field_started = false;
  size_t record_start = 0;  // offset in `text` where the current record began
  auto end_field = [&] {
    if (record.size() >= kMaxCsvColumns) {
      fail("{}: line {}: more than the limit of {} columns", path.string(), record_line,
           kMaxCsvColumns);
    }
    record.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  auto end_record = [&] {
    end_field();
    // A line that is entirely empty is skipped (trailing newline, blank lines).
    if (!(record.size() == 1 && record[0].empty())) {
      records.push_back(std::move(record));
      record_lines.push_back(record_line);
    }
    record.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i - record_start >= kMaxCsvRecordBytes) {
      fail("{}: line {}: a row of more than the limit of {} bytes", path.string(), record_line,
           kMaxCsvRecordBytes);
    }
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"' && !field_started) {
      in_quotes = true;
      field_started = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      end_record();
      ++line;
      record_line = line;
      record_start = i + 1;
    } else {
      field.push_back(c);
      field_started = true;
    }
  }
  if (in_quotes)
    fail("{}: unterminated quoted field starting on line {}", path.string(), record_line);
  if (field_started || !record.empty()) end_record();
  if (records.empty()) fail("{}: empty CSV file (no header line)", path.string());

  for (auto& fields : records) {
    for (auto& cell : fields) {
      if (!cell.empty() && cell.front() == '\'') cell = csv_unneutralize(cell);
    }
  }
  table.header_ = std::move(records[0]);
  for (auto& h : table.header_) h = std::string(trim(h));
  // A header of blanks names nothing; it would also write back as a blank line, which parse skips.
  if (std::all_of(table.header_.begin(), table.header_.end(),
                  [](const std::string& h) { return h.empty(); })) {
    fail(
        "{}: line {}: the header has no column names (expected a first line such as "
        "'run_id,model,precision,...')",
        path.string(), record_lines[0]);
  }
  // A name given twice would leave which of its columns counts to whoever reads it.
  for (size_t i = 0; i < table.header_.size(); ++i) {
    for (size_t k = i + 1; k < table.header_.size() && !table.header_[i].empty(); ++k) {
      if (table.header_[k] == table.header_[i]) {
        fail("{}: line {}: column '{}' appears twice in the header (columns {} and {})",
             path.string(), record_lines[0], table.header_[i], i + 1, k + 1);
      }
    }
  }
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header_.size()) {
      fail("{}: line {}: {} fields, but the header has {}", path.string(), record_lines[r],
           records[r].size(), table.header_.size());
    }
    table.rows_.push_back(std::move(records[r]));
    table.lines_.push_back(record_lines[r]);
  }
  return table;
}

CsvTable CsvTable::read(const std::filesystem::path& path) {
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(path, error);
  if (!error && size > kMaxCsvBytes) {
    fail("{}: {} bytes, more than the limit of {} bytes for a CSV file", path.string(), size,
         kMaxCsvBytes);
  }
  return parse(read_file(path), path);
}

std::optional<size_t> CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

size_t CsvTable::require_column(std::string_view name) const {
  auto c = column(name);
  if (!c) fail("{}: missing required column '{}'", path_.string(), name);
  return *c;
}

std::optional<double> CsvTable::number(size_t row, size_t col) const {
  const std::string_view s = trim(rows_[row][col]);
  if (s.empty()) return std::nullopt;
  double value = 0.0;
  const char* first = s.data();
  if (*first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), value);
  if (ec != std::errc{} || ptr != s.data() + s.size() || !std::isfinite(value)) {
    fail("{}: line {}, column '{}': expected a finite number, got '{}'", path_.string(),
         lines_[row], header_[col], rows_[row][col]);
  }
  // SQLite stores a whole REAL as an integer, so −0.0 would come back as 0.0: store 0.0 always.
  return value == 0.0 ? 0.0 : value;
}

std::optional<int64_t> CsvTable::integer(size_t row, size_t col) const {
  const std::string_view s = trim(rows_[row][col]);
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || ptr != s.data() + s.size()) {
    fail("{}: line {}, column '{}': expected an integer, got '{}'", path_.string(), lines_[row],
         header_[col], rows_[row][col]);
  }
  return value;
}

double CsvTable::required_number(size_t row, size_t col) const {
  auto v = number(row, col);
  if (!v) {
    fail("{}: line {}, column '{}': expected a number, the cell is empty", path_.string(),
         lines_[row], header_[col]);
  }
  return *v;
}

}  // namespace ec::analysis
