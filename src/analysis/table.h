// A result table (named columns, rows of store::Value cells) and its printers: markdown, csv, json,
// jsonl and sql. Printers only format; every number in a table was computed before it got there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "store/run_row.h"

namespace ec::analysis {

enum class OutputFormat { md, csv, json, jsonl, sql };

// "md", "csv", "json", "jsonl", "sql"; throws ec::UsageError naming the accepted values.
OutputFormat parse_output_format(std::string_view name);

struct Table {
  std::string name;  // the SQL table name; also the JSON key when several tables print together
  std::vector<std::string> columns;
  std::vector<std::vector<store::Value>> rows;
};

std::string render(const Table& table, OutputFormat format);

// One cell as the json and jsonl printers write it: absent or not finite → null.
nlohmann::json cell_json(const store::Value& value);
// One row as those printers write it: {column: cell}.
nlohmann::json row_object(const Table& table, const std::vector<store::Value>& row);

// CSV as the original's Python csv writer writes its published files: CRLF line ends, minimal
// quoting, reals as repr() writes them. `diff` against a published file is empty for the same data.
std::string render_published_csv(const Table& table);

// One CSV cell as written by both CSV printers: absent → empty, reals by format_real, text that a
// spreadsheet would run as a formula prefixed with ' (csv_neutralize), quoted when it holds a
// comma, a quote or a line break.
std::string csv_cell(const store::Value& value);

// A double the way Python's repr() writes it in the original's CSVs: shortest round-trip digits,
// always with a decimal point ("7.0", not "7").
std::string format_real(double value);

}  // namespace ec::analysis
