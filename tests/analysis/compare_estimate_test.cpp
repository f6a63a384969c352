// compare (gap, noise, drift, version-stack verdict), estimate (basis, band, absolute energy) and
// check-regression (anchors first, curve otherwise, refuses non-measured reports), by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/compare.h"
#include "analysis/estimate.h"
#include "analysis/import.h"
#include "core/error.h"
#include "core/file_io.h"
#include "support/paths.h"
#include "support/run_rows.h"

namespace ec::analysis {
namespace {

namespace fs = std::filesystem;

std::vector<store::RunRow> import_fixture(const std::string& fixture) {
  const std::vector<fs::path> paths{test::fixture(fixture)};
  return import_paths(paths).rows;
}

const ConfigComparison* find(const Comparison& c, const std::string& model) {
  for (const auto& x : c.configs) {
    if (x.configuration.find(model) != std::string::npos) return &x;
  }
  return nullptr;
}

TEST(Compare, SessionsByHand) {
  const auto a = import_fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  const auto b = import_fixture("analysis/rtx4090_int8_repeats_synthetic.csv");
  const Comparison c = compare_sets(a, b);
  ASSERT_EQ(c.configs.size(), 2u);
  EXPECT_EQ(c.only_a.size(), 8u);
  EXPECT_TRUE(c.only_b.empty());
  EXPECT_TRUE(c.stacks.comparable) << c.stacks.verdict();

  // 7B INT8: A = 105.78 (n = 1); B = 105.9 ± 4.331282 (n = 3). Gap 0.12 pp = 0.0277 noise units.
  const auto* q7 = find(c, "Qwen2-7B");
  ASSERT_NE(q7, nullptr);
  EXPECT_NEAR(q7->gap_pp, 0.12, 1e-9);
  EXPECT_NEAR(q7->noise_pp, 4.331282, 1e-6);
  EXPECT_NEAR(q7->gap_in_noise, 0.12 / 4.331282, 1e-6);
  EXPECT_TRUE(std::isnan(q7->welch.t)) << "Welch needs n ≥ 2 on both sides";
  // Energy 13516.667 vs 13407.291: +0.8158 %; FP16 (6636.949 + 6575.743 + 6484.561)/3 = 6565.751
  // vs 6515.325: +0.7740 %.
  EXPECT_NEAR(q7->energy_drift_pct, (13516.666667 / 13407.291 - 1) * 100, 1e-5);
  EXPECT_NEAR(q7->fp16_energy_drift_pct, (6565.751 / 6515.325 - 1) * 100, 1e-5);

  // 1.1B INT8: 301.61 vs 307.1 ± 2.1: gap 5.49 pp = 2.614 noise units.
  const auto* tiny = find(c, "TinyLlama");
  ASSERT_NE(tiny, nullptr);
  EXPECT_NEAR(tiny->gap_in_noise, 5.49 / 2.1, 1e-9);
}

TEST(Compare, WelchWhenBothSidesHaveReplicates) {
  auto a = import_fixture("analysis/rtx4090_int8_repeats_synthetic.csv");
  auto b = a;
  for (auto& r : b) *r.vs_fp16_energy_pct += 10.0;  // same spread, shifted by 10 pp
  const Comparison c = compare_sets(a, b);
  const auto* q7 = find(c, "Qwen2-7B");
  ASSERT_NE(q7, nullptr);
  // Equal SDs s = 4.331282, n = 3 each: t = −10 / (s·sqrt(2/3)), df = 4 exactly.
  EXPECT_NEAR(q7->welch.t, -10.0 / (4.331282 * std::sqrt(2.0 / 3.0)), 1e-5);
  EXPECT_NEAR(q7->welch.df, 4.0, 1e-9);
  EXPECT_GT(q7->welch.p_two_sided, 0.0);
  EXPECT_LT(q7->welch.p_two_sided, 0.1);
}

TEST(Compare, DifferentStacksAreNotComparable) {
  const auto a = import_fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  auto b = import_fixture("analysis/rtx4090_int8_repeats_synthetic.csv");
  for (auto& r : b) r.versions["torch"] = "2.4.1+cu121";
  const Comparison c = compare_sets(a, b);
  EXPECT_FALSE(c.stacks.comparable);
  ASSERT_EQ(c.stacks.differences.size(), 1u);
  EXPECT_EQ(c.stacks.differences[0], "torch: 2.5.1+cu121 vs 2.4.1+cu121");
  EXPECT_THAT(c.stacks.verdict(), ::testing::HasSubstr("must not be pooled"));
}

TEST(Compare, SpellingsOfTheSameStackAreNormalised) {
  const auto a = import_fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  auto b = import_fixture("original/rtx4090_int8_repeats_2026-08-20.csv");
  // 2026-08-19 writes "bitsandbytes", 2026-08-20 "bitsandbytes LLM.int8()": on INT8 the same.
  EXPECT_EQ(b.front().quantization_backend, "bitsandbytes LLM.int8()");
  EXPECT_EQ(version_stack(b.front()).at("quantization_backend"), "bitsandbytes");
  for (auto& r : b) r.versions["matches_reference_pins"] = "true";  // True elsewhere
  const Comparison c = compare_sets(a, b);
  EXPECT_TRUE(c.stacks.comparable) << c.stacks.verdict();
  EXPECT_EQ(c.stacks.verdict(), "comparable: every recorded version agrees");
  // An NF4 run's "bitsandbytes LLM.int8()" would be a contradiction, not a spelling.
  store::RunRow nf4 = b.front();
  nf4.precision = "NF4";
  EXPECT_EQ(version_stack(nf4).at("quantization_backend"), "bitsandbytes llm.int8()");
}

TEST(Compare, ARealDifferenceNamesFieldAndValuesAndCanBeAccepted) {
  const auto a = import_fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  auto b = import_fixture("original/rtx4090_int8_repeats_2026-08-20.csv");
  for (auto& r : b) r.versions["python"] = "3.10.12";
  const Comparison c = compare_sets(a, b);
  EXPECT_FALSE(c.stacks.comparable);
  ASSERT_EQ(c.stacks.differences.size(), 1u);
  EXPECT_EQ(c.stacks.differences[0], "python: 3.10.20 vs 3.10.12");
  EXPECT_THAT(c.stacks.verdict(), ::testing::HasSubstr("--accept-difference python"));
  const Comparison accepted = compare_sets(a, b, {"python"});
  EXPECT_TRUE(accepted.stacks.comparable);
  EXPECT_EQ(accepted.stacks.accepted, std::vector<std::string>{"python: 3.10.20 vs 3.10.12"});
  EXPECT_THAT(accepted.stacks.verdict(), ::testing::HasSubstr("accepted difference: python"));
  // Accepting another field accepts nothing here.
  EXPECT_FALSE(compare_sets(a, b, {"torch"}).stacks.comparable);
}

TEST(Compare, NamesPairAsPeopleWriteThem) {
  EXPECT_EQ(normalised_gpu("NVIDIA GeForce RTX 4090"), "rtx 4090");
  EXPECT_EQ(normalised_gpu("RTX 4090"), "rtx 4090");
  EXPECT_NE(normalised_gpu("RTX 4090D"), normalised_gpu("RTX 4090"));
  EXPECT_TRUE(same_model(normalised_model("TinyLlama-1.1B"),
                         normalised_model("TinyLlama/TinyLlama-1.1B-Chat-v1.0")));
  EXPECT_TRUE(same_model(normalised_model("Qwen2-7B"), normalised_model("Qwen/Qwen2-7B")));
  EXPECT_FALSE(same_model(normalised_model("Qwen2-1.5B"), normalised_model("Qwen2-1.5")));
  EXPECT_FALSE(same_model(normalised_model("Qwen2.5-3B"), normalised_model("Qwen2-7B")));
}

TEST(Compare, NonMeasurementsAreLeftOutAndCounted) {
  auto a = import_fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  a[0].measurement_source = "ILLUSTRATIVE (synthetic)";  // 0.5B INT8
  const Comparison c =
      compare_sets(a, import_fixture("original/rtx4090_int8_repeats_2026-08-20.csv"));
  EXPECT_EQ(c.configs.size(), 4u);
  ASSERT_EQ(c.left_out_a.size(), 1u);
  EXPECT_EQ(c.left_out_a[0].runs, 1u);
  EXPECT_THAT(c.left_out_a[0].reason, ::testing::HasSubstr("illustrative"));
}

store::RunRow cpu_run(const std::string& session, int i, double kl, double top1) {
  return test::cpu_run_without_meter(session, i, "NF4", kl, top1);
}

// Two CPU sessions without an energy meter pair on quality: KL and top-1 per side, no energy gap.
TEST(Compare, RunsWithoutAnEnergyMeterCompareOnQuality) {
  const std::vector<store::RunRow> a = {cpu_run("a", 0, 0.5, 0.6), cpu_run("a", 1, 0.7, 0.4)};
  const std::vector<store::RunRow> b = {cpu_run("b", 0, 0.25, 0.75)};
  const Comparison c = compare_sets(a, b);
  ASSERT_EQ(c.configs.size(), 1u);
  EXPECT_TRUE(c.left_out_a.empty()) << "a run without a meter is in the comparison";
  const ConfigComparison& x = c.configs[0];
  EXPECT_EQ(x.runs_a, 2u);
  EXPECT_EQ(x.runs_b, 1u);
  EXPECT_EQ(x.delta_a.n, 0u);
  EXPECT_NEAR(x.kl_a.mean, 0.6, 1e-12);
  EXPECT_NEAR(x.kl_b.mean, 0.25, 1e-12);
  EXPECT_NEAR(x.top1_a.mean, 0.5, 1e-12);
  EXPECT_NEAR(x.top1_b.mean, 0.75, 1e-12);
  const Table t = comparison_table(c);
  ASSERT_EQ(t.rows.size(), 1u);
  const auto col = [&](const std::string& name) {
    return std::find(t.columns.begin(), t.columns.end(), name) - t.columns.begin();
  };
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][col("kl_a_mean")]), 0.6);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][col("top1_b_mean")]), 0.75);
  EXPECT_EQ(std::get<int64_t>(t.rows[0][col("n_a")]), 2);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[0][col("gap_pp")]));
}

CurveSet published_curves() {
  std::vector<std::string> problems;
  return fit_curves(
      read_measured_csv(CsvTable::read(test::fixture("original/measured.csv")), problems));
}

EstimateInput input(double n, std::string arch, std::string precision, double batch = 1,
                    double ctx = 2048) {
  EstimateInput in;
  in.params_b = n;
  in.arch = std::move(arch);
  in.precision = std::move(precision);
  in.batch = batch;
  in.ctx = ctx;
  return in;
}

TEST(Estimate, MeasuredAnchorsFirstThenTheCurve) {
  const CurveSet curves = published_curves();
  const Curve& ada = *curves.find("ada", "NF4");
  // 3 B on ada NF4 was measured on two cards (+0.76 % and +25.22 %): their mean, the band half
  // their spread, and medium confidence (they disagree by more than 10 points).
  const Estimate measured = estimate(curves, input(3.0, "ada", "NF4"));
  EXPECT_EQ(measured.basis, "measured");
  EXPECT_DOUBLE_EQ(measured.delta_pct, 13.0);
  EXPECT_NEAR(measured.ci_high - 12.99, 1.96 * std::max(ada.fit.resid_std / 2, 24.46 / 2), 0.06);
  EXPECT_EQ(measured.confidence, "medium");
  EXPECT_EQ(measured.notes.size(), 1u);  // the two cards disagree (one of them replicated)
  // FP16 measured at 3 B on ada: the absolute energy follows.
  ASSERT_TRUE(measured.fp16 && measured.energy_j_per_1k_tok);
  EXPECT_EQ(measured.fp16->basis, "measured");

  // 2 B lies between measured sizes: the curve, interpolated; band 1.96·max(resid_std, 2).
  const Estimate between = estimate(curves, input(2.0, "ada", "NF4"));
  EXPECT_EQ(between.basis, "interpolated");
  EXPECT_NEAR(between.delta_pct, curve_value(ada.fit.params, 2.0), 0.05);
  EXPECT_EQ(between.fp16->basis, "interpolated");

  // 14 B is beyond 7 B: estimated, band widened by (base + 4)·1.2·ln(14/7).
  const Estimate out = estimate(curves, input(14.0, "ada", "NF4"));
  EXPECT_EQ(out.basis, "estimated");
  const double base = ada.fit.resid_std;
  const double extrap = (base + 4) * 1.2 * std::log(2.0);
  EXPECT_NEAR(out.ci_high - out.delta_pct, 1.96 * std::hypot(base, extrap), 0.1);

  // Hopper has no data: ampere's shape, +10 points in quadrature, low confidence, no FP16 energy.
  const Estimate h = estimate(curves, input(9.0, "hopper", "NF4"));
  EXPECT_EQ(h.basis, "estimated");
  EXPECT_EQ(h.arch_used, "ampere");
  EXPECT_EQ(h.confidence, "low");
  EXPECT_FALSE(h.fp16.has_value());
  EXPECT_THROW(estimate(curves, input(7.0, "volta", "NF4")), Error);
  EXPECT_THROW(estimate(curves, input(7.0, "turing", "INT8")), Error);
}

TEST(Estimate, BatchAndContextShrinkSavingsOnlyAndSaySo) {
  const CurveSet curves = published_curves();
  const Estimate base = estimate(curves, input(7.0, "turing", "NF4"));
  ASSERT_LT(base.delta_pct, 0);
  const Estimate batched = estimate(curves, input(7.0, "turing", "NF4", 9, 2048));
  EXPECT_TRUE(batched.modelled);
  EXPECT_NEAR(batched.delta_pct, base.delta_pct / 2, 0.1);  // batch 9: half the savings
  EXPECT_EQ(batched.confidence, "medium");
  EXPECT_FALSE(batched.energy_j_per_1k_tok.has_value());  // a modelled ΔE gives no joules
  // A cost is never made larger: INT8 on ada costs energy, and batch leaves it as it was.
  const Estimate cost = estimate(curves, input(7.0, "ada", "INT8"));
  const Estimate cost_batched = estimate(curves, input(7.0, "ada", "INT8", 32, 32768));
  EXPECT_DOUBLE_EQ(cost.delta_pct, cost_batched.delta_pct);
  EXPECT_GT(cost_batched.ci_high - cost_batched.ci_low, cost.ci_high - cost.ci_low);
}

TEST(CheckRegression, AnchorsFirstAndRefusesNonMeasured) {
  const CurveSet curves = published_curves();
  const auto session = import_fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv");
  // 7B NF4 on 2026-08-19: −39.04 % against the July anchor −28.46 %; band 2 · 11.4822.
  const auto& nf4_7b = session[9];
  ASSERT_EQ(nf4_7b.run_id, "rtx4090-2026-08-19-7p0-nf4");
  const RegressionCheck ok = check_regression(curves, nf4_7b, 2.0);
  EXPECT_EQ(ok.against, "anchors");
  EXPECT_NEAR(ok.expected_pct, (3911.75 - 5467.88) / 5467.88 * 100, 1e-9);
  EXPECT_EQ(ok.verdict, "within");
  // 0.5B INT8: +594.58 % against +241.89 %: far outside 2 · 26.59 — the August sessions' gap.
  const RegressionCheck bad = check_regression(curves, session[0], 2.0);
  EXPECT_EQ(bad.verdict, "regression");
  // A size with no anchor is graded against the curve.
  auto moved = nf4_7b;
  moved.params_b = 5.0;
  EXPECT_EQ(check_regression(curves, moved, 2.0).against, "curve");
  const auto no_gpu = import_fixture("original/energy.no-gpu.example.json");
  try {
    check_regression(curves, no_gpu.at(0), 2.0);
    FAIL() << "an interpolated report must be refused";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("not 'measured'"));
  }
}

}  // namespace
}  // namespace ec::analysis
