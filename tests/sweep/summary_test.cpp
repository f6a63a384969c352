// The sweep summary: grouping by cell configuration, statistics over done replicates only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "sweep/summary.h"

namespace ec::sweep {
namespace {

Manifest manifest() {
  SweepSpec s;
  s.models = {"m"};
  s.precisions = {"INT8", "NF4"};
  s.repeats = 3;
  s.new_tokens = {16};
  return new_manifest(s, "x");
}

store::RunRow row(const std::string& id, double delta, double energy, double tok_s, bool measured) {
  store::RunRow r;
  r.run_id = id;
  r.basis = measured ? "measured" : "unavailable";
  if (measured) r.measurement_source = "nvml_total_energy_counter";  // a hardware meter
  r.weight_format = "int8-llm";
  if (measured) {
    r.vs_fp16_energy_pct = delta;
    r.energy_j_per_1k_tok = energy;
    r.avg_power_w = 200.0;
  }
  r.throughput_tok_s = tok_s;
  return r;
}

size_t column(const analysis::Table& t, const std::string& name) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

double real(const store::Value& v) {
  return std::get<double>(v);
}

TEST(SweepSummary, MeanIntervalAndCvOfDoneReplicates) {
  Manifest m = manifest();
  std::vector<store::RunRow> rows;
  // INT8 cells are 0, 2, 4 (replicates outermost); deltas -10, -12, -14 → mean -12, SD 2.
  const double deltas[] = {-10.0, -12.0, -14.0};
  for (int r = 0; r < 3; ++r) {
    Cell& c = m.cells[static_cast<size_t>(2 * r)];
    c.state = CellState::done;
    c.run_id = "int8-" + std::to_string(r);
    c.gpu = r % 2;
    rows.push_back(row(c.run_id, deltas[r], 400.0 + 10.0 * r, 50.0 + r, true));
  }
  // NF4: one done but not measured (CPU), one failed, one pending.
  m.cells[1].state = CellState::done;
  m.cells[1].run_id = "nf4-0";
  rows.push_back(row("nf4-0", 0, 0, 31.5, false));
  m.cells[3].state = CellState::failed;

  const analysis::Table t = summary_table(m, rows, false);
  ASSERT_EQ(t.rows.size(), 2u);
  const auto& int8 = t.rows[0];
  EXPECT_EQ(std::get<std::string>(int8[column(t, "precision")]), "INT8");
  EXPECT_EQ(std::get<int64_t>(int8[column(t, "done")]), 3);
  EXPECT_EQ(std::get<int64_t>(int8[column(t, "n_measured")]), 3);
  EXPECT_EQ(std::get<std::string>(int8[column(t, "gpus")]), "0,1");
  EXPECT_DOUBLE_EQ(real(int8[column(t, "vs_fp16_energy_pct_mean")]), -12.0);
  // t(0.975, 2) = 4.302653; half width = 4.302653 * 2 / sqrt(3) = 4.9683.
  EXPECT_NEAR(real(int8[column(t, "vs_fp16_energy_pct_ci95")]), 4.9683, 1e-4);
  EXPECT_NEAR(real(int8[column(t, "vs_fp16_energy_pct_cv_pct")]), 100.0 * 2.0 / 12.0, 1e-4);
  EXPECT_DOUBLE_EQ(real(int8[column(t, "energy_j_per_1k_tok_mean")]), 410.0);
  EXPECT_DOUBLE_EQ(real(int8[column(t, "throughput_tok_s_mean")]), 51.0);

  const auto& nf4 = t.rows[1];
  EXPECT_EQ(std::get<int64_t>(nf4[column(t, "done")]), 1);
  EXPECT_EQ(std::get<int64_t>(nf4[column(t, "failed")]), 1);
  EXPECT_EQ(std::get<std::string>(nf4[column(t, "basis")]), "unavailable");
  // Not measured: no energy figure at all (absent, never 0), but the clock's throughput.
  EXPECT_TRUE(std::holds_alternative<std::monostate>(nf4[column(t, "energy_j_per_1k_tok_mean")]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(nf4[column(t, "vs_fp16_energy_pct_mean")]));
  EXPECT_DOUBLE_EQ(real(nf4[column(t, "throughput_tok_s_mean")]), 31.5);
  // No run of either group carries KL or top-1: absent, never 0.
  EXPECT_TRUE(std::holds_alternative<std::monostate>(nf4[column(t, "mean_kl_vs_fp16_mean")]));
  EXPECT_TRUE(
      std::holds_alternative<std::monostate>(int8[column(t, "top1_agreement_vs_fp16_mean")]));
}

// KL and top-1 are the probe's figures: every done run gives them, with or without a meter.
TEST(SweepSummary, KlAndTop1MeanOverDoneRunsWithOrWithoutAMeter) {
  Manifest m = manifest();
  std::vector<store::RunRow> rows;
  const double kl[] = {0.25, 0.5, 0.75};
  const double top1[] = {0.875, 0.75, 0.625};
  for (int r = 0; r < 3; ++r) {
    Cell& c = m.cells[static_cast<size_t>(2 * r + 1)];  // NF4
    c.state = CellState::done;
    c.run_id = "nf4-" + std::to_string(r);
    store::RunRow run = row(c.run_id, 0, 0, 30.0, r == 0);
    run.mean_kl_vs_fp16 = kl[r];
    run.top1_agreement_vs_fp16 = top1[r];
    rows.push_back(run);
  }
  const analysis::Table full = summary_table(m, rows, false);
  const auto& nf4 = full.rows[1];
  EXPECT_DOUBLE_EQ(real(nf4[column(full, "mean_kl_vs_fp16_mean")]), 0.5);
  EXPECT_DOUBLE_EQ(real(nf4[column(full, "top1_agreement_vs_fp16_mean")]), 0.75);
  const analysis::Table brief = summary_table(m, rows, true);
  EXPECT_DOUBLE_EQ(real(brief.rows[1][column(brief, "KL vs FP16")]), 0.5);
  EXPECT_DOUBLE_EQ(real(brief.rows[1][column(brief, "top-1")]), 0.75);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(brief.rows[0][column(brief, "top-1")]));
}

TEST(SweepSummary, RowsOfOtherSweepsAreIgnored) {
  Manifest m = manifest();
  std::mt19937 rng(99);
  std::vector<store::RunRow> rows;
  for (int i = 0; i < 5; ++i) {
    rows.push_back(row("other-" + std::to_string(i), -5.0 - static_cast<double>(rng() % 7), 300.0,
                       10.0, true));
  }
  m.cells[0].state = CellState::done;
  m.cells[0].run_id = "mine";
  rows.push_back(row("mine", -3.25, 123.0, 9.0, true));
  const analysis::Table t = summary_table(m, rows, true);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(t.rows[0][3]), "1/3");
  EXPECT_DOUBLE_EQ(real(t.rows[0][5]), -3.25);
  EXPECT_EQ(std::get<std::string>(t.rows[0][1]), "INT8/int8-llm");
}

}  // namespace
}  // namespace ec::sweep
