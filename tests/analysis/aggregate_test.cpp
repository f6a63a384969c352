// aggregate on the published session file and on a repeats file, checked against hand arithmetic;
// the summary CSV has exactly the published columns and the raw CSV reproduces the input layout.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "analysis/aggregate.h"
#include "analysis/import.h"
#include "core/error.h"
#include "core/file_io.h"
#include "support/paths.h"
#include "support/run_rows.h"

namespace ec::analysis {
namespace {

namespace fs = std::filesystem;

std::vector<store::RunRow> load(const std::string& fixture) {
  const std::vector<fs::path> paths{test::fixture(fixture)};
  ImportResult r = import_paths(paths);
  EXPECT_TRUE(r.problems.empty());
  return std::move(r.rows);
}

TEST(Aggregate, RepeatsByHand) {
  const auto rows = load("analysis/rtx4090_int8_repeats_synthetic.csv");
  const AggregateResult result = aggregate(rows);
  ASSERT_EQ(result.configs.size(), 2u);
  // Sorted by key: TinyLlama (1.1 B) before Qwen2-7B? Keys sort by gpu, arch, then model name.
  const ConfigSummary& tiny = result.configs[0].key.model.find("TinyLlama") != std::string::npos
                                  ? result.configs[0]
                                  : result.configs[1];
  const ConfigSummary& q7 = &tiny == &result.configs[0] ? result.configs[1] : result.configs[0];

  // 7B deltas 101.9, 105.3, 110.5: mean 105.9; deviations −4.0, −0.6, 4.6; squares 16 + 0.36 +
  // 21.16 = 37.52; variance 18.76; SD 4.331282; CV 4.0899 %; 95 % half width 4.302653 · SD/√3.
  EXPECT_EQ(q7.n_trials, 3u);
  EXPECT_NEAR(q7.vs_fp16_energy_pct.mean, 105.9, 1e-9);
  EXPECT_NEAR(q7.vs_fp16_energy_pct.sd, 4.331282, 1e-6);
  EXPECT_NEAR(q7.vs_fp16_energy_pct.cv_pct, 4.0899, 1e-4);
  EXPECT_NEAR(q7.vs_fp16_energy_pct.ci95.half_width, 4.302653 * 4.331282 / std::sqrt(3.0), 1e-5);
  // Energies 13400, 13500, 13650: mean 13516.667; squares 13611.1 + 277.8 + 17777.8 = 31666.67;
  // variance 15833.33; SD 125.8306.
  EXPECT_NEAR(q7.energy_j_per_1k_tok.mean, 13516.6667, 1e-4);
  EXPECT_NEAR(q7.energy_j_per_1k_tok.sd, 125.8306, 1e-4);
  // Throughput 6.4, 6.3, 6.2: SD 0.1, CV 0.1/6.3 = 1.5873 %.
  EXPECT_NEAR(q7.throughput_tok_s.cv_pct, 1.5873, 1e-4);
  EXPECT_TRUE(*q7.perplexity_identical);
  EXPECT_NEAR(*q7.delta_perplexity_pct, 1.193, 1e-12);

  // 1.1B deltas 305.0, 307.1, 309.2: mean 307.1, SD 2.1, CV 0.6838 %; replicate 3's perplexity
  // differs in the 4th decimal.
  EXPECT_NEAR(tiny.vs_fp16_energy_pct.mean, 307.1, 1e-9);
  EXPECT_NEAR(tiny.vs_fp16_energy_pct.sd, 2.1, 1e-9);
  EXPECT_NEAR(tiny.vs_fp16_energy_pct.cv_pct, 0.683816, 1e-6);
  EXPECT_FALSE(*tiny.perplexity_identical);
  EXPECT_NEAR(tiny.avg_power_w.sd, 0.0, 1e-12);
}

TEST(Aggregate, SummaryCsvHasExactlyThePublishedColumns) {
  const auto rows = load("analysis/rtx4090_int8_repeats_synthetic.csv");
  const std::string csv = render(summary_table(aggregate(rows)), OutputFormat::csv);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(
      header,
      "params_b,model,precision,n_trials,energy_j_per_1k_tok_mean,energy_j_per_1k_tok_sd,"
      "energy_cv_pct,fp16_energy_j_per_1k_tok_mean,fp16_energy_j_per_1k_tok_sd,"
      "fp16_energy_cv_pct,vs_fp16_energy_pct_mean,vs_fp16_energy_pct_sd,vs_fp16_energy_cv_pct,"
      "throughput_tok_s_mean,throughput_cv_pct,avg_power_w_mean,avg_power_cv_pct,"
      "delta_perplexity_pct,perplexity_identical_across_replicates");
  // The original's formats: means and SDs to 3 decimals, CVs to 2, yes/no.
  EXPECT_NE(csv.find("\n7.0,Qwen/Qwen2-7B,INT8,3,13516.667,125.831,0.93,"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",105.9,4.331,4.09,6.3,1.59,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1.193,yes\n"), std::string::npos) << csv;
}

TEST(Aggregate, PublishedSessionFileSingleRuns) {
  const auto rows = load("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  const AggregateResult result = aggregate(rows);
  ASSERT_EQ(result.configs.size(), 10u);
  for (const auto& c : result.configs) {
    EXPECT_EQ(c.n_trials, 1u);
    EXPECT_TRUE(std::isnan(c.vs_fp16_energy_pct.sd)) << "n = 1 has no SD";
  }
  const std::string csv = render(summary_table(result), OutputFormat::csv);
  // n = 1: the mean is the run's value and SD/CV cells are empty, never 0.
  EXPECT_NE(
      csv.find("0.5,Qwen/Qwen2-0.5B,INT8,1,9941.865,,,1431.356,,,594.58,,,8.6,,85.3,,0.519,yes"),
      std::string::npos)
      << csv;
}

TEST(Aggregate, RawCsvReproducesThePublishedFile) {
  const fs::path file = test::fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  // CRLF line ends included, as Python's csv module writes them.
  const std::string published = read_file(file);
  const auto rows = load("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  EXPECT_EQ(render_published_csv(raw_table(rows)), published);

  // The repeats layout keeps `replicate` after `timestamp_utc` and reads back field for field.
  const auto repeats = load("analysis/rtx4090_int8_repeats_synthetic.csv");
  const std::string written = render(raw_table(repeats), OutputFormat::csv);
  EXPECT_EQ(written.substr(0, 34), "run_id,timestamp_utc,replicate,gpu");
  std::vector<std::string> problems;
  const auto back = import_published_csv(CsvTable::parse(written, "written.csv"), problems);
  ASSERT_EQ(back.size(), repeats.size());
  for (size_t i = 0; i < back.size(); ++i) {
    for (const auto& f : store::run_fields()) {
      if (f.name == "source_path") continue;
      EXPECT_EQ(f.get(back[i]), f.get(repeats[i])) << f.name;
    }
  }
}

TEST(Aggregate, InterpolatedReportsNeverEnterASummary) {
  auto rows = load("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  const std::vector<fs::path> paths{test::fixture("original/energy.no-gpu.example.json")};
  auto extra = import_paths(paths).rows;
  rows.insert(rows.end(), extra.begin(), extra.end());
  const AggregateResult result = aggregate(rows);
  EXPECT_EQ(result.configs.size(), 10u);
  EXPECT_EQ(result.not_measured, 1u);
}

size_t column(const Table& t, const std::string& name) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// CPU runs without a readable RAPL counter: basis 'unavailable', throughput and quality measured.
store::RunRow cpu_run(int i, std::optional<double> kl, std::optional<double> top1) {
  return test::cpu_run_without_meter("cpu-sweep", i, "INT8", kl, top1);
}

TEST(Aggregate, RunsWithoutAnEnergyMeterGiveThroughputAndQualityOnly) {
  std::vector<store::RunRow> rows = {cpu_run(0, 0.1, 0.9), cpu_run(1, 0.2, 0.8),
                                     cpu_run(2, 0.3, 0.7)};
  store::RunRow estimate = cpu_run(3, 9.0, 0.0);
  estimate.basis = "interpolated";  // an estimate is no run: in no summary
  rows.push_back(estimate);
  store::RunRow no_quality = cpu_run(4, std::nullopt, std::nullopt);
  no_quality.model = "tiny-llama";
  rows.push_back(no_quality);

  const AggregateResult result = aggregate(rows);
  ASSERT_EQ(result.configs.size(), 2u);
  EXPECT_EQ(result.not_measured, 5u);
  EXPECT_EQ(result.without_energy, 4u);
  ASSERT_EQ(result.left_out.size(), 1u);
  EXPECT_EQ(result.left_out[0].runs, 1u);
  EXPECT_EQ(result.left_out[0].reason, "basis is 'interpolated', not 'measured'");

  const ConfigSummary& qwen = result.configs[1];
  ASSERT_EQ(qwen.key.model, "tiny-qwen2");
  EXPECT_EQ(qwen.n_trials, 3u);
  EXPECT_EQ(qwen.energy_trials, 0u);
  EXPECT_EQ(qwen.energy_j_per_1k_tok.n, 0u) << "no energy figure from a run without a meter";
  EXPECT_EQ(qwen.vs_fp16_energy_pct.n, 0u);
  EXPECT_NEAR(qwen.throughput_tok_s.mean, 41.0, 1e-12);
  // KL 0.1, 0.2, 0.3: mean 0.2, SD 0.1; top-1 0.9, 0.8, 0.7: mean 0.8.
  EXPECT_NEAR(qwen.mean_kl_vs_fp16.mean, 0.2, 1e-12);
  EXPECT_NEAR(qwen.mean_kl_vs_fp16.sd, 0.1, 1e-12);
  EXPECT_NEAR(qwen.top1_agreement_vs_fp16.mean, 0.8, 1e-12);

  const Table t = aggregate_table(result);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[1][column(t, "mean_kl_vs_fp16")]), 0.2);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[1][column(t, "top1_agreement_vs_fp16")]), 0.8);
  EXPECT_EQ(std::get<int64_t>(t.rows[1][column(t, "n")]), 3);
  EXPECT_EQ(std::get<int64_t>(t.rows[1][column(t, "n_energy")]), 0);
  EXPECT_TRUE(
      std::holds_alternative<std::monostate>(t.rows[1][column(t, "energy_j_per_1k_tok_mean")]));
  // tiny-llama carries no KL or top-1: absent, never 0.
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[0][column(t, "mean_kl_vs_fp16")]));
  EXPECT_TRUE(
      std::holds_alternative<std::monostate>(t.rows[0][column(t, "top1_agreement_vs_fp16")]));
  // The published summary holds measured configurations only, as the original's does.
  EXPECT_TRUE(summary_table(result).rows.empty());
}

TEST(Aggregate, EnergyComesFromMeasuredRunsOfAMixedConfiguration) {
  std::vector<store::RunRow> rows = {cpu_run(0, 0.1, 0.9), cpu_run(1, 0.3, 0.7)};
  rows[1].basis = "measured";
  rows[1].measurement_source = "rapl_package_energy";
  rows[1].energy_j_per_1k_tok = 900.0;
  const AggregateResult result = aggregate(rows);
  ASSERT_EQ(result.configs.size(), 1u);
  const ConfigSummary& s = result.configs[0];
  EXPECT_EQ(s.n_trials, 2u);
  EXPECT_EQ(s.energy_trials, 1u);
  EXPECT_EQ(s.energy_j_per_1k_tok.n, 1u);
  EXPECT_DOUBLE_EQ(s.energy_j_per_1k_tok.mean, 900.0);
  EXPECT_NEAR(s.mean_kl_vs_fp16.mean, 0.2, 1e-12);
  EXPECT_NEAR(s.top1_agreement_vs_fp16.mean, 0.8, 1e-12);
  const Table published = summary_table(result);
  ASSERT_EQ(published.rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(published.rows[0][3]), 1) << "n_trials counts measured runs";
}

TEST(Table, PrintersFormatOnly) {
  Table t{
      "demo",
      {"name", "value", "n"},
      {{std::string("a|b"), 1.5, int64_t{3}}, {std::string("it's"), store::Value{}, int64_t{4}}}};
  EXPECT_EQ(render(t, OutputFormat::csv), "name,value,n\na|b,1.5,3\nit's,,4\n");
  EXPECT_EQ(
      render(t, OutputFormat::jsonl),
      "{\"n\":3,\"name\":\"a|b\",\"value\":1.5}\n{\"n\":4,\"name\":\"it's\",\"value\":null}\n");
  EXPECT_NE(render(t, OutputFormat::sql).find("INSERT INTO demo VALUES ('it''s', NULL, 4);"),
            std::string::npos);
  EXPECT_NE(render(t, OutputFormat::md).find("| a\\|b | 1.5 | 3 |"), std::string::npos);
  EXPECT_THROW(parse_output_format("xml"), Error);
}

}  // namespace
}  // namespace ec::analysis
