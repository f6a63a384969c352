// The original's published CSV layout → RunRow, one row per run; bad rows are reported, not fatal.
#include <array>

#include "analysis/import.h"
#include "analysis/row_checks.h"
#include "core/error.h"

namespace ec::analysis {
namespace {

constexpr std::array<std::string_view, 10> kRequiredColumns = {"run_id",
                                                               "gpu",
                                                               "gpu_arch",
                                                               "model",
                                                               "params_b",
                                                               "precision",
                                                               "energy_j_per_1k_tok",
                                                               "fp16_energy_j_per_1k_tok",
                                                               "vs_fp16_energy_pct",
                                                               "basis"};
constexpr std::array<std::string_view, 4> kRequiredNumbers = {
    "params_b", "energy_j_per_1k_tok", "fp16_energy_j_per_1k_tok", "vs_fp16_energy_pct"};

bool is_required_number(std::string_view name) {
  for (auto n : kRequiredNumbers) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

bool is_published_run_csv(const CsvTable& table) {
  return table.column("run_id") && table.column("energy_j_per_1k_tok");
}

bool is_measured_csv(const CsvTable& table) {
  return table.column("energy_fp16_j1k") && table.column("energy_quant_j1k");
}

std::vector<store::RunRow> import_published_csv(const CsvTable& table,
                                                std::vector<std::string>& problems) {
  for (auto name : kRequiredColumns) table.require_column(name);
  // Resolve every header column to a RunRow field once; unknown columns are ignored.
  std::vector<std::pair<size_t, const store::RunField*>> columns;
  for (size_t c = 0; c < table.header().size(); ++c) {
    const auto* f = store::find_run_field(table.header()[c]);
    if (f && f->name != "source_path" && f->name != "source_format") columns.emplace_back(c, f);
  }
  std::vector<store::RunRow> rows;
  rows.reserve(table.row_count());
  for (size_t r = 0; r < table.row_count(); ++r) {
    try {
      store::RunRow row;
      for (auto [c, f] : columns) {
        store::Value v;
        if (f->kind == store::FieldKind::real) {
          if (is_required_number(f->name)) {
            v = table.required_number(r, c);
          } else if (auto d = table.number(r, c)) {
            v = *d;
          }
        } else if (f->kind == store::FieldKind::integer) {
          if (auto i = table.integer(r, c)) v = *i;
        } else if (!table.text(r, c).empty()) {
          v = table.text(r, c);
        }
        f->set(row, v);
      }
      if (row.run_id.empty()) {
        fail("{}: line {}, column 'run_id': empty", table.path().string(), table.line(r));
      }
      // As for reports: a basis nobody defined could be mistaken for (or hide) a measurement.
      if (row.basis != "measured" && row.basis != "interpolated" && row.basis != "extrapolated" &&
          row.basis != "unavailable") {
        fail(
            "{}: line {}, column 'basis': expected measured/interpolated/extrapolated/"
            "unavailable, got '{}'",
            table.path().string(), table.line(r), row.basis);
      }
      if (const auto failures = row_check_failures(row); !failures.empty()) {
        std::string why;
        for (const auto& f : failures) why += (why.empty() ? "" : "; ") + f;
        fail("{}: line {}: rejected, not stored: {}", table.path().string(), table.line(r), why);
      }
      if (row.session.empty()) row.session = utc_day(row.timestamp_utc);
      row.source_path = table.path().string();
      row.source_format = "published-csv";
      rows.push_back(std::move(row));
    } catch (const Error& e) {
      problems.push_back(e.what());
    }
  }
  return rows;
}

}  // namespace ec::analysis
