// Table printers. Absent cells print as empty (csv, md), null (json) or NULL (sql), never as 0.
#include "analysis/table.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "analysis/csv_table.h"
#include "core/error.h"

namespace ec::analysis {
nlohmann::json cell_json(const store::Value& v) {
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? nlohmann::json(*d) : nullptr;
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  return nullptr;
}

nlohmann::json row_object(const Table& t, const std::vector<store::Value>& row) {
  nlohmann::json o = nlohmann::json::object();
  for (size_t c = 0; c < row.size(); ++c) o[t.columns[c]] = cell_json(row[c]);
  return o;
}

namespace {

std::string cell_text(const store::Value& v) {
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? format_real(*d) : "";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return "";
}

std::string sql_literal(const store::Value& v) {
  if (auto* s = std::get_if<std::string>(&v)) {
    std::string out = "'";
    for (char c : *s) {
      if (c == '\'') out.push_back('\'');
      out.push_back(c);
    }
    return out + "'";
  }
  if (auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? format_real(*d) : "NULL";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return "NULL";
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out.push_back(c);
  }
  return out;
}

bool is_numeric_column(const Table& t, size_t col) {
  for (const auto& row : t.rows) {
    if (std::holds_alternative<std::string>(row[col])) return false;
  }
  return true;
}

std::string render_md(const Table& t) {
  std::string out = "|";
  for (const auto& c : t.columns) out += " " + md_escape(c) + " |";
  out += "\n|";
  for (size_t c = 0; c < t.columns.size(); ++c) out += is_numeric_column(t, c) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) {
      // On a terminal four decimals are plenty; machine formats keep every digit.
      std::string text;
      if (auto* d = std::get_if<double>(&cell)) {
        text = std::isfinite(*d) ? fmt::format("{:.4g}", *d) : "";
        if (std::isfinite(*d) && std::fabs(*d) >= 1e4) text = fmt::format("{:.1f}", *d);
      } else {
        text = cell_text(cell);
      }
      out += " " + md_escape(text) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string render_csv(const Table& t, std::string_view line_end) {
  std::string out;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    out += (c ? "," : "") + csv_cell(store::Value{t.columns[c]});
  }
  out += line_end;
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + csv_cell(row[c]);
    out += line_end;
  }
  return out;
}

std::string render_sql(const Table& t) {
  std::string out = fmt::format("CREATE TABLE IF NOT EXISTS {} (", t.name);
  for (size_t c = 0; c < t.columns.size(); ++c) {
    std::string type = "TEXT";
    for (const auto& row : t.rows) {
      if (std::holds_alternative<double>(row[c])) type = "REAL";
      if (std::holds_alternative<int64_t>(row[c])) type = "INTEGER";
      if (!std::holds_alternative<std::monostate>(row[c])) break;
    }
    out += fmt::format("{}{} {}", c ? ", " : "", t.columns[c], type);
  }
  out += ");\n";
  for (const auto& row : t.rows) {
    out += fmt::format("INSERT INTO {} VALUES (", t.name);
    for (size_t c = 0; c < row.size(); ++c) out += (c ? ", " : "") + sql_literal(row[c]);
    out += ");\n";
  }
  return out;
}

}  // namespace

OutputFormat parse_output_format(std::string_view name) {
  if (name == "md") return OutputFormat::md;
  if (name == "csv") return OutputFormat::csv;
  if (name == "json") return OutputFormat::json;
  if (name == "jsonl") return OutputFormat::jsonl;
  if (name == "sql") return OutputFormat::sql;
  fail_usage("unknown output format '{}' (expected md, csv, json, jsonl or sql)", name);
}

std::string csv_cell(const store::Value& value) {
  // Only text can be a formula: numbers (negative ones start with '-') are written as they are.
  const std::string text = cell_text(value);
  return csv_escape(std::holds_alternative<std::string>(value) ? csv_neutralize(text) : text);
}

std::string render_published_csv(const Table& t) {
  return render_csv(t, "\r\n");
}

std::string format_real(double value) {
  std::string s = fmt::format("{}", value);
  if (std::isfinite(value) && s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string render(const Table& t, OutputFormat format) {
  switch (format) {
    case OutputFormat::md:
      return render_md(t);
    case OutputFormat::csv:
      return render_csv(t, "\n");
    case OutputFormat::json: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& row : t.rows) arr.push_back(row_object(t, row));
      // A store written by another tool may hold text that is not UTF-8: replaced, not a throw.
      return arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    case OutputFormat::jsonl: {
      std::string out;
      for (const auto& row : t.rows) {
        out += row_object(t, row).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
               "\n";
      }
      return out;
    }
    case OutputFormat::sql:
      return render_sql(t);
  }
  return {};
}

}  // namespace ec::analysis
