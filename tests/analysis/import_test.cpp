// Importing the published CSV layouts and energy.json (original 1.0/1.1 and ours), and bad input
// that must be reported by name while the good files still come through.
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

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

TEST(ImportCsv, PublishedSessionFile) {
  const fs::path file = test::fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  const std::vector<fs::path> paths{file};
  const ImportResult r = import_paths(paths);
  EXPECT_TRUE(r.problems.empty()) << test::joined_lines(r.problems);
  ASSERT_EQ(r.rows.size(), 10u);
  const store::RunRow& row = r.rows[0];
  EXPECT_EQ(row.run_id, "rtx4090-2026-08-19-0p5-int8");
  EXPECT_EQ(row.gpu, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(row.gpu_arch, "ada");
  EXPECT_EQ(row.model, "Qwen/Qwen2-0.5B");
  EXPECT_DOUBLE_EQ(*row.params_b, 0.5);
  EXPECT_EQ(row.precision, "INT8");
  EXPECT_DOUBLE_EQ(*row.energy_j_per_1k_tok, 9941.865);
  EXPECT_DOUBLE_EQ(*row.fp16_energy_j_per_1k_tok, 1431.356);
  EXPECT_DOUBLE_EQ(*row.vs_fp16_energy_pct, 594.58);
  EXPECT_DOUBLE_EQ(*row.perplexity, 17.8543);
  EXPECT_EQ(*row.quality_tokens_evaluated, 14123);
  EXPECT_EQ(row.versions.at("torch"), "2.5.1+cu121");
  EXPECT_EQ(row.versions.at("matches_reference_pins"), "True");
  // The quoted session field keeps its comma.
  EXPECT_EQ(row.session, "2026-08-19 single AutoDL RTX 4090 instance, native venv");
  EXPECT_FALSE(row.replicate.has_value());
  EXPECT_TRUE(row.is_measured());
}

TEST(ImportCsv, RepeatsLayoutHasReplicate) {
  const std::vector<fs::path> paths{test::fixture("analysis/rtx4090_int8_repeats_synthetic.csv")};
  const ImportResult r = import_paths(paths);
  EXPECT_TRUE(r.problems.empty()) << test::joined_lines(r.problems);
  ASSERT_EQ(r.rows.size(), 6u);
  EXPECT_EQ(*r.rows[2].replicate, 3);
  EXPECT_DOUBLE_EQ(*r.rows[2].vs_fp16_energy_pct, 110.5);
}

TEST(ImportCsv, MissingColumnNamesFileAndColumn) {
  test::ScratchDir dir;
  write_file_atomic(dir / "cut.csv", "run_id,gpu,energy_j_per_1k_tok\nr1,RTX,12\n");
  const std::vector<fs::path> paths{dir / "cut.csv"};
  const ImportResult r = import_paths(paths);
  EXPECT_TRUE(r.rows.empty());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_THAT(r.problems[0], HasSubstr("cut.csv"));
  EXPECT_THAT(r.problems[0], HasSubstr("missing required column 'gpu_arch'"));
}

TEST(ImportCsv, BadNumbersNameFileLineAndColumnAndOtherRowsSurvive) {
  const std::string good = read_file(test::fixture("analysis/rtx4090_int8_repeats_synthetic.csv"));
  // Row 2 (file line 3) gets NaN as its delta, row 4 (line 5) garbage energy, row 5 an empty one.
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = good.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(good.substr(start, nl - start));
  }
  auto replace = [](std::string& s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
  };
  replace(lines[2], ",105.30,", ",NaN,");
  replace(lines[4], ",6100.000,", ",61O0,");
  replace(lines[5], ",6150.000,", ",,");
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  test::ScratchDir dir;
  write_file_atomic(dir / "repeats.csv", text);
  const std::vector<fs::path> paths{dir / "repeats.csv"};
  const ImportResult r = import_paths(paths);
  EXPECT_EQ(r.rows.size(), 3u);
  ASSERT_EQ(r.problems.size(), 3u) << test::joined_lines(r.problems);
  EXPECT_THAT(r.problems[0], HasSubstr("repeats.csv: line 3, column 'vs_fp16_energy_pct'"));
  EXPECT_THAT(r.problems[0], HasSubstr("'NaN'"));
  EXPECT_THAT(r.problems[1], HasSubstr("line 5, column 'energy_j_per_1k_tok'"));
  EXPECT_THAT(r.problems[1], HasSubstr("'61O0'"));
  EXPECT_THAT(r.problems[2], HasSubstr("line 6, column 'energy_j_per_1k_tok'"));
  EXPECT_THAT(r.problems[2], HasSubstr("empty"));
}

TEST(ImportCsv, QuotedFieldsAndWrongFieldCount) {
  const CsvTable t =
      CsvTable::parse("a,b,c\n\"x, \"\"y\"\"\",2,\"multi\nline\"\r\n1,2,3\n", "q.csv");
  ASSERT_EQ(t.row_count(), 2u);
  EXPECT_EQ(t.text(0, 0), "x, \"y\"");
  EXPECT_EQ(t.text(0, 2), "multi\nline");
  EXPECT_EQ(t.line(1), 4u);
  EXPECT_EQ(*t.number(1, 2), 3.0);
  try {
    CsvTable::parse("a,b\n1,2\n3\n", "short.csv");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("short.csv: line 3: 1 fields, but the header has 2"));
  }
  EXPECT_THROW(CsvTable::parse("a\n\"open\n", "open.csv"), Error);
  EXPECT_THROW(CsvTable::parse("", "empty.csv"), Error);
}

TEST(ImportCsv, HeaderOfBlanksIsRefusedWithItsLine) {
  // Found by the published_csv fuzzer: a header of one blank name was accepted, then written
  // back as a blank line that parse skips, so the table did not survive csv_escape → parse.
  const std::pair<const char*, const char*> cases[] = {
      {" \n", "blank.csv: line 1: the header has no column names"},
      {"\n\n\t\n1\n", "blank.csv: line 3: the header has no column names"},
      {"\" \",  \n1,2\n", "blank.csv: line 1: the header has no column names"},
  };
  for (const auto& [text, message] : cases) {
    try {
      CsvTable::parse(text, "blank.csv");
      ADD_FAILURE() << "accepted a header of blanks: " << text;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(message));
    }
  }
  // One blank name among real ones is kept: it writes back unchanged.
  const CsvTable t = CsvTable::parse("a,,c\n1,2,3\n", "gap.csv");
  ASSERT_EQ(t.header().size(), 3u);
  EXPECT_EQ(t.header()[1], "");
}

TEST(ImportReport, OriginalReportThroughOriginalFieldNames) {
  const fs::path file = test::fixture("analysis/original_int8_7b.energy.json");
  const store::RunRow row = import_report(read_file(file), file);
  EXPECT_EQ(row.source_format, "original-report");
  EXPECT_EQ(row.run_id.substr(0, 8), "content:");
  EXPECT_EQ(row.session, "2026-08-20");
  EXPECT_EQ(row.model, "Qwen/Qwen2-7B");
  EXPECT_EQ(row.precision, "INT8");
  EXPECT_DOUBLE_EQ(*row.energy_j_per_1k_tok, 11653.28);
  EXPECT_DOUBLE_EQ(*row.vs_fp16_energy_pct, 105.88);
  EXPECT_DOUBLE_EQ(*row.throughput_tok_s, 7.0);
  EXPECT_DOUBLE_EQ(*row.delta_perplexity_pct, 1.193);
  EXPECT_EQ(row.quality_corpus_sha256.substr(0, 8), "22ac091a");
  EXPECT_EQ(row.versions.at("bitsandbytes"), "0.43.3");
  EXPECT_EQ(row.versions.at("matches_reference_pins"), "True");
  EXPECT_TRUE(row.is_measured());
  // The same bytes give the same id: ingesting a copy twice is a no-op.
  EXPECT_EQ(import_report(read_file(file), "elsewhere.json").run_id, row.run_id);
  // So does the same report re-serialised (compact, or indented with sorted keys): the id comes
  // from the fields that identify the run, not from the bytes.
  const nlohmann::json doc = nlohmann::json::parse(read_file(file));
  EXPECT_EQ(import_report(doc.dump(), "compact.json").run_id, row.run_id);
  EXPECT_EQ(import_report(doc.dump(4), "indented.json").run_id, row.run_id);
  // A different measurement is a different run.
  nlohmann::json other = doc;
  other["timestamp_utc"] = "2026-08-20T05:00:00Z";
  EXPECT_NE(import_report(other.dump(), "other.json").run_id, row.run_id);
}

TEST(ImportReport, OursAddsWeightFormatAndVersionStack) {
  const fs::path file = test::fixture("analysis/ecocompute_nf4_1p1.energy.json");
  const store::RunRow row = import_report(read_file(file), file);
  EXPECT_EQ(row.source_format, "ecocompute-report");
  EXPECT_EQ(row.run_id, "ec-h200-2026-09-01-tinyllama-nf4-r2");
  EXPECT_EQ(row.session, "h200-2026-09-01");
  EXPECT_EQ(*row.replicate, 2);
  EXPECT_EQ(row.weight_format, "nf4");
  EXPECT_EQ(row.versions.at("ecocompute.commit"), "174c438abcde");
  EXPECT_EQ(row.versions.at("engine.kernels.gemv"), "gemv_nf4_v3");
  EXPECT_EQ(row.versions.at("meter.method"), "energy-counter");
  EXPECT_EQ(row.versions.count("meter.samples"), 0u) << "a per-run reading is not a version";
  EXPECT_EQ(row.versions.count("engine.weight_format"), 0u);
  EXPECT_DOUBLE_EQ(*row.vs_fp16_energy_pct, -20.0);
}

TEST(ImportReport, NoGpuExampleIsNeverAMeasurement) {
  const fs::path file = test::fixture("original/energy.no-gpu.example.json");
  const store::RunRow row = import_report(read_file(file), file);
  EXPECT_EQ(row.basis, "interpolated");
  EXPECT_FALSE(row.is_measured());
  EXPECT_EQ(row.session, "2026-07-16");
  EXPECT_DOUBLE_EQ(*row.vs_fp16_energy_pct, 29.8);
}

std::string report_error(const std::string& text) {
  try {
    import_report(text, "bad.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ImportReport, BadReportsGiveClearMessages) {
  const std::string good = read_file(test::fixture("analysis/original_int8_7b.energy.json"));
  EXPECT_THAT(report_error(good.substr(0, good.size() / 2)),
              HasSubstr("bad.json: not valid JSON: the text ends early (truncated file?)"));
  std::string nan = good;
  nan.replace(nan.find("11653.28"), 8, "NaN");
  EXPECT_THAT(report_error(nan), HasSubstr("NaN/Infinity is not a JSON number"));
  std::string wrong = good;
  wrong.replace(wrong.find("11653.28"), 8, "\"11653.28\"");
  EXPECT_THAT(report_error(wrong), HasSubstr("bad.json: field 'results.energy_per_token_mj': "
                                             "expected a number, got string"));
  std::string wrong_basis = good;
  const std::string basis = "\"basis\": \"measured\"";
  wrong_basis.replace(wrong_basis.find(basis), basis.size(), "\"basis\": \"guessed\"");
  EXPECT_THAT(report_error(wrong_basis), HasSubstr("field 'results.basis'"));
  EXPECT_THAT(report_error("[1, 2]"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(report_error(R"({"schema_version": "ecocompute-energy/1.1"})"),
              HasSubstr("missing required object 'results'"));
}

// What `validate` refuses, import refuses: the report is not stored, and the message names the
// file and the field.
TEST(ImportReport, ReportsThatFailValidationAreRejected) {
  const nlohmann::json good =
      nlohmann::json::parse(read_file(test::fixture("analysis/original_int8_7b.energy.json")));
  auto rejected = [&](const char* pointer, const nlohmann::json& value) {
    nlohmann::json bad = good;
    bad[nlohmann::json::json_pointer(pointer)] = value;
    return report_error(bad.dump(2));
  };
  EXPECT_THAT(rejected("/results/energy_per_token_mj", -11653.28),
              AllOf(HasSubstr("bad.json: rejected, not stored"), HasSubstr("energy_per_token_mj")));
  EXPECT_THAT(rejected("/workload/precision", "FP3"), HasSubstr("precision"));
  EXPECT_THAT(rejected("/workload/params_b", -1), HasSubstr("params_b"));
  EXPECT_THAT(rejected("/timestamp_utc", "yesterday"), HasSubstr("timestamp_utc"));
  EXPECT_THAT(rejected("/measurement/iterations", "many"), HasSubstr("measurement.iterations"));
  EXPECT_THAT(rejected("/results/vs_fp16_energy_pct", 12.5), HasSubstr("vs_fp16_energy_pct"));
  EXPECT_THAT(rejected("/measurement_source", "ILLUSTRATIVE (synthetic) values"),
              HasSubstr("illustrative"));
  // The original's own illustrative example says basis measured and is no measurement.
  const fs::path example = test::fixture("original/energy.measured.illustrative.json");
  EXPECT_THAT(report_error(read_file(example)), HasSubstr("rejected, not stored"));
}

// KL and top-1 against FP16 are read beside perplexity, type- and range-checked.
TEST(ImportReport, ReadsKlAndTop1AgainstFp16) {
  const fs::path file = test::fixture("analysis/ecocompute_nf4_1p1.energy.json");
  const nlohmann::json good = nlohmann::json::parse(read_file(file));
  const store::RunRow without = import_report(good.dump(), "without.json");
  EXPECT_FALSE(without.mean_kl_vs_fp16.has_value()) << "absent stays absent, never 0";
  EXPECT_FALSE(without.top1_agreement_vs_fp16.has_value());

  nlohmann::json with = good;
  with["quality"]["mean_kl_vs_fp16"] = 0.0421;
  with["quality"]["top1_agreement_vs_fp16"] = 0.9375;
  const store::RunRow row = import_report(with.dump(), "with.json");
  EXPECT_DOUBLE_EQ(*row.mean_kl_vs_fp16, 0.0421);
  EXPECT_DOUBLE_EQ(*row.top1_agreement_vs_fp16, 0.9375);
  EXPECT_EQ(row.run_id, without.run_id);

  auto rejected = [&](const char* field, const nlohmann::json& value) {
    nlohmann::json bad = good;
    bad["quality"][field] = value;
    return report_error(bad.dump());
  };
  EXPECT_THAT(rejected("mean_kl_vs_fp16", "0.04"),
              HasSubstr("bad.json: field 'quality.mean_kl_vs_fp16': expected a number, got "
                        "string \"0.04\""));
  EXPECT_THAT(rejected("top1_agreement_vs_fp16", true),
              HasSubstr("bad.json: field 'quality.top1_agreement_vs_fp16': expected a number"));
  EXPECT_THAT(rejected("top1_agreement_vs_fp16", 1.5),
              AllOf(HasSubstr("bad.json: rejected, not stored"),
                    HasSubstr("field 'top1_agreement_vs_fp16': expected a fraction from 0 to 1, "
                              "got 1.5")));
  EXPECT_THAT(rejected("mean_kl_vs_fp16", -0.25),
              AllOf(HasSubstr("bad.json: rejected, not stored"),
                    HasSubstr("field 'mean_kl_vs_fp16': expected a KL divergence ≥ 0")));
  // An explicit null is "not measured", as everywhere in the report.
  EXPECT_FALSE(import_report(
                   [&] {
                     nlohmann::json n = good;
                     n["quality"]["mean_kl_vs_fp16"] = nullptr;
                     return n.dump();
                   }(),
                   "null.json")
                   .mean_kl_vs_fp16.has_value());
}

TEST(ImportPaths, BadFilesAreSkippedAndGoodOnesKept) {
  test::ScratchDir dir;
  fs::create_directories(dir / "reports" / "nested");
  fs::create_directories(dir / "empty");
  const std::string good = read_file(test::fixture("analysis/original_int8_7b.energy.json"));
  write_file_atomic(dir / "reports" / "a.energy.json", good);
  write_file_atomic(dir / "reports" / "b_truncated.json", good.substr(0, 300));
  write_file_atomic(dir / "reports" / "nested" / "c.json",
                    read_file(test::fixture("analysis/ecocompute_nf4_1p1.energy.json")));
  write_file_atomic(dir / "reports" / "notes.txt", "not a report");
  const std::vector<fs::path> paths{dir / "reports", dir / "empty", dir / "missing.json",
                                    test::fixture("original/measured.csv")};
  const ImportResult r = import_paths(paths, {.session = "s1"});
  EXPECT_EQ(r.rows.size(), 2u + 29u);  // measured.csv: one record per row
  EXPECT_EQ(r.files_read, 3u);
  EXPECT_EQ(r.files_skipped, 2u);
  EXPECT_TRUE(r.any_rejected());
  const std::string all = test::joined_lines(r.problems);
  EXPECT_THAT(all, HasSubstr("b_truncated.json: not valid JSON"));
  EXPECT_THAT(all, HasSubstr("empty: no .json or .csv files"));
  EXPECT_THAT(all, HasSubstr("missing.json: no such file"));
  for (const auto& row : r.rows) EXPECT_EQ(row.session, "s1");
}

TEST(ImportFitInput, MeasuredCsvRowsAreSessionRecords) {
  const std::vector<fs::path> paths{test::fixture("original/measured.csv")};
  const ImportResult r = import_paths(paths);
  ASSERT_TRUE(r.problems.empty()) << test::joined_lines(r.problems);
  ASSERT_EQ(r.rows.size(), 29u);
  std::map<std::string, size_t> sessions;
  for (const auto& row : r.rows) {
    ++sessions[row.session];
    EXPECT_TRUE(row.is_measured()) << row.why_not_measured();
    EXPECT_EQ(row.source_format, "fit-input-csv");
  }
  EXPECT_EQ(sessions.size(), 6u);
  EXPECT_EQ(sessions["RTX 4090 July 2026 (measured.csv)"], 10u);
  EXPECT_EQ(sessions["RTX 4090 2026-08-06 (measured.csv)"], 1u);
  EXPECT_EQ(sessions["RTX 4090D (measured.csv)"], 4u);
  EXPECT_EQ(sessions["A800 (measured.csv)"], 6u);
  // TinyLlama-1.1B INT8, July: (3986.20 − 1619.68) / 1619.68 = +146.110 %; a 5090 row has n = 2.
  for (const auto& row : r.rows) {
    if (row.session == "RTX 4090 July 2026 (measured.csv)" && row.params_b == 1.1 &&
        row.precision == "INT8") {
      EXPECT_NEAR(*row.vs_fp16_energy_pct, 146.1103, 1e-4);
      EXPECT_EQ(*row.n_trials, 1);
    }
    if (row.gpu == "RTX 5090") {
      EXPECT_EQ(*row.n_trials, 2);
    }
  }
  // The ids come from the cells: the same file read again gives the same runs.
  const ImportResult again = import_paths(paths);
  for (size_t i = 0; i < r.rows.size(); ++i) EXPECT_EQ(again.rows[i].run_id, r.rows[i].run_id);
  EXPECT_EQ(fit_input_session("T4", "", "measured.csv"), "T4 (measured.csv)");
}

}  // namespace
}  // namespace ec::analysis
