// Fuzz entry point for the published CSV layout: CsvTable::parse, then the run importer (or the
// fit input reader for measured.csv), the store, the printers and the raw CSV written back.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/aggregate.h"
#include "analysis/csv_table.h"
#include "analysis/fit.h"
#include "analysis/import.h"
#include "analysis/table.h"
#include "core/error.h"
#include "fuzz_support.h"
#include "run_checks.h"

namespace ec::fuzz {

// Header and rows written back with csv_escape (after a BOM, which parse strips once).
inline std::string csv_text(const analysis::CsvTable& t) {
  std::string out = "\xEF\xBB\xBF";
  auto line = [&out](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c)
      out += (c ? "," : "") + analysis::csv_escape(cells[c]);
    out += "\n";
  };
  line(t.header());
  for (size_t r = 0; r < t.row_count(); ++r) {
    std::vector<std::string> cells;
    for (size_t c = 0; c < t.header().size(); ++c) cells.push_back(t.text(r, c));
    line(cells);
  }
  return out;
}

inline void expect_names_file(const std::vector<std::string>& problems, const std::string& path) {
  for (const auto& p : problems) {
    expect(std::string_view(p).starts_with(path), "a row problem does not name the file: " + p);
  }
}

// A parsed table has rectangular rows and survives csv_escape unchanged; imported runs have the
// fields consumers need, survive the store, and the raw CSV that `aggregate --raw-csv` writes
// imports back to the same runs.
inline void published_csv_one_input(std::span<const uint8_t> bytes) {
  const std::string path = "fuzz/runs.csv";
  analysis::CsvTable table;
  try {
    table = analysis::CsvTable::parse(as_text(bytes), path);
  } catch (const ec::Error& e) {
    expect(std::string_view(e.what()).starts_with(path),
           std::string("a CSV error does not name the file: ") + e.what());
    return;
  }
  expect(!table.header().empty(), "accepted a CSV without a header");
  for (size_t r = 0; r < table.row_count(); ++r) {
    expect(r == 0 || table.line(r) > table.line(r - 1), "row line numbers do not increase");
    expect(table.line(r) >= 2, "a row on the header's line");
  }
  const analysis::CsvTable again = analysis::CsvTable::parse(csv_text(table), path);
  expect(again.header() == table.header() && again.row_count() == table.row_count(),
         "csv_escape → parse changed the table's shape");
  for (size_t r = 0; r < table.row_count(); ++r) {
    for (size_t c = 0; c < table.header().size(); ++c) {
      expect(again.text(r, c) == table.text(r, c), "csv_escape → parse changed a cell");
    }
  }

  std::vector<std::string> problems;
  if (analysis::is_measured_csv(table)) {
    std::vector<analysis::FitPoint> points;
    try {
      points = analysis::read_measured_csv(table, problems);
    } catch (const ec::Error&) {
      return;
    }
    expect_names_file(problems, path);
    expect(points.size() + problems.size() == table.row_count(), "a measured.csv row was lost");
    if (points.size() > 12) return;  // fitting is the slow part; a dozen points cover its branches
    const analysis::CurveSet set = analysis::fit_curves(points);
    for (const auto& c : set.curves) {
      expect(std::isfinite(c.fit.resid_std) || c.anchors.empty(), "a fit gave a NaN resid_std");
    }
    (void)analysis::curves_to_json(set).dump();
    return;
  }
  if (!analysis::is_published_run_csv(table)) return;
  std::vector<store::RunRow> rows;
  try {
    rows = analysis::import_published_csv(table, problems);
  } catch (const ec::Error& e) {
    expect(std::string_view(e.what()).starts_with(path),
           std::string("an import error does not name the file: ") + e.what());
    return;
  }
  expect_names_file(problems, path);
  expect(rows.size() + problems.size() == table.row_count(), "a CSV row was lost");
  for (const auto& r : rows) {
    check_run_row(r);
    expect(r.source_format == "published-csv", "wrong source format");
  }
  if (rows.empty()) return;
  check_store_round_trip(rows);
  check_printers(rows);

  // The raw CSV `aggregate --raw-csv` writes reads back as the same runs.
  const std::string raw = analysis::render(analysis::raw_table(rows), analysis::OutputFormat::csv);
  std::vector<std::string> raw_problems;
  const std::vector<store::RunRow> back =
      analysis::import_published_csv(analysis::CsvTable::parse(raw, path), raw_problems);
  expect(raw_problems.empty(), "the raw CSV does not import back: " +
                                   (raw_problems.empty() ? std::string() : raw_problems[0]));
  expect(back.size() == rows.size(), "the raw CSV has a different number of runs");
  for (size_t i = 0; i < rows.size(); ++i) {
    store::RunRow want = rows[i];
    want.weight_format.clear();  // ours, not a column of the published layout
    expect(store::row_hash(back[i]) == store::row_hash(want),
           "run '" + rows[i].run_id + "' changed through the raw CSV");
  }
}

}  // namespace ec::fuzz
