// validate_report / validate_against_original: schema failures and every consistency rule, each
// with a failing case whose message names the field.
#include "report/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/file_io.h"
#include "report/consistency.h"
#include "report/energy_json.h"
#include "sample_records.h"
#include "support/lines.h"
#include "support/paths.h"

namespace ec::report {
namespace {

using ec::test::joined_lines;  // test:: here is ec::report::test (sample_records.h)
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

json measured() {
  return to_json(test::measured_record());
}
json unavailable() {
  return to_json(test::unavailable_cpu_record());
}

// Expects `report` to fail our validation with a failure that contains every one of `parts`.
void expect_failure(const json& report, std::initializer_list<std::string> parts) {
  const auto result = validate_report(report, "r.json");
  ASSERT_FALSE(result.ok()) << "expected a failure containing " << *parts.begin();
  bool found = false;
  for (const auto& f : result.failures) {
    bool all = true;
    for (const auto& p : parts) all = all && f.find(p) != std::string::npos;
    found = found || all;
  }
  EXPECT_TRUE(found) << "no failure contains all of the expected parts; got:\n"
                     << joined_lines(result.failures);
}

TEST(Validate, SampleReportsStartValid) {
  EXPECT_TRUE(validate_report(measured(), "m").ok())
      << joined_lines(validate_report(measured(), "m").failures);
  EXPECT_TRUE(validate_report(unavailable(), "u").ok());
}

TEST(Validate, EnergyVsPowerOverThroughputOffByFivePercent) {
  json j = measured();
  j["results"]["avg_power_watts"] = j["results"]["avg_power_watts"].get<double>() * 1.05;
  expect_failure(j, {"r.json: /results/avg_power_watts: ", "differ by", "limit 2 %"});
}

TEST(Validate, EnergyVsPowerWithinTwoPercentPasses) {
  // Throughput off by 1.5 %: inside the 2 % energy/power rule, but throughput vs seconds (1 %)
  // fails, so change seconds consistently with it.
  json j = measured();
  const double tps = j["results"]["throughput_tokens_per_s"].get<double>() * 1.015;
  j["results"]["throughput_tokens_per_s"] = tps;
  const auto r = validate_report(j, "r.json");
  EXPECT_THAT(joined_lines(r.failures), Not(HasSubstr("differ by"))) << joined_lines(r.failures);
  EXPECT_THAT(joined_lines(r.failures), HasSubstr("/results/throughput_tokens_per_s"));
}

TEST(Validate, EnergyPerTokenVsTotal) {
  json j = measured();
  j["results"]["energy_per_token_mj"] = j["results"]["energy_per_token_mj"].get<double>() * 1.03;
  expect_failure(j, {"/results/energy_per_token_mj: ", "total_energy_joules / tokens_generated"});
}

TEST(Validate, WrongFp16Delta) {
  json j = measured();
  j["results"]["vs_fp16_energy_pct"] = j["results"]["vs_fp16_energy_pct"].get<double>() + 2.5;
  expect_failure(j, {"/results/vs_fp16_energy_pct: ", "fp16_energy_per_token_mj - 1"});
}

TEST(Validate, Fp16FigureMustBeTheBaselines) {
  json j = measured();
  const double e0 = j["results"]["fp16_energy_per_token_mj"].get<double>() * 1.2;
  const double e = j["results"]["energy_per_token_mj"].get<double>();
  j["results"]["fp16_energy_per_token_mj"] = e0;
  j["results"]["vs_fp16_energy_pct"] =
      (e / e0 - 1.0) * 100.0;  // self-consistent, but not the baseline
  expect_failure(j, {"/results/fp16_energy_per_token_mj: ", "baseline"});
}

TEST(Validate, Fp16ComparisonWithoutBaseline) {
  json j = measured();
  j.erase("baseline");
  expect_failure(j, {"/baseline: missing"});
}

TEST(Validate, WrongPerplexityDelta) {
  json j = measured();
  j["quality"]["delta_vs_fp16_pct"] = j["quality"]["delta_vs_fp16_pct"].get<double>() + 0.3;
  expect_failure(j, {"/quality/delta_vs_fp16_pct: ", "fp16_value - 1"});
}

TEST(Validate, PerplexityMustBeExpOfMeanNll) {
  json j = measured();
  j["quality"]["value"] = j["quality"]["value"].get<double>() * 1.01;
  expect_failure(j, {"/quality/value: ", "exp("});
}

TEST(Validate, MeasuredWithNullEnergy) {
  json j = measured();
  j["results"]["total_energy_joules"] = nullptr;
  expect_failure(j, {"/results/total_energy_joules: "});
  // The consistency rule says so too, for schemas that allow the null (the original's).
  const auto original = validate_against_original(j, "r.json");
  EXPECT_THAT(joined_lines(original.failures),
              HasSubstr("/results/total_energy_joules: basis is measured"));
}

TEST(Validate, MeasuredIterationWithoutEnergy) {
  json j = measured();
  j["iterations"][6]["energy_j"] = nullptr;
  expect_failure(j, {"/iterations/6/energy_j: ", "basis is measured"});
}

TEST(Validate, MeasuredNeedsAHardwareSource) {
  json j = measured();
  j["measurement_source"] = "ecocompute-dataset (no local GPU)";
  expect_failure(j, {"/measurement_source: ", "not a hardware meter"});
  EXPECT_FALSE(is_measurement(j));
}

TEST(Validate, MeasuredNeedsAMeterThatMeasures) {
  json j = measured();
  j["meter"]["measures_energy"] = false;
  j["meter"]["reason"] = "pretend";
  expect_failure(j, {"/meter/measures_energy: ", "basis is measured"});
}

TEST(Validate, UnavailableWithANumber) {
  json j = unavailable();
  j["results"]["energy_per_token_mj"] = 812.5;
  expect_failure(j, {"/results/energy_per_token_mj: "});
  // And the consistency rule on its own (through the original schema, which allows it).
  const auto original = validate_against_original(j, "r.json");
  EXPECT_THAT(joined_lines(original.failures),
              HasSubstr("r.json: /results/energy_per_token_mj: basis is unavailable"));
}

TEST(Validate, UnavailableIterationWithEnergy) {
  json j = unavailable();
  j["iterations"][1]["energy_j"] = 12.0;
  expect_failure(j, {"/iterations/1/energy_j: ", "basis is unavailable"});
}

TEST(Validate, UnavailableNeedsANote) {
  json j = unavailable();
  j["results"].erase("note");
  expect_failure(j, {"/results: ", "'note'"});
  j["meter"].erase("reason");
  const auto original = validate_against_original(j, "r.json");
  EXPECT_THAT(joined_lines(original.failures),
              HasSubstr("/results/note: basis is unavailable but no note"));
}

TEST(Validate, WrongPrecisionEnum) {
  json j = measured();
  j["workload"]["precision"] = "FP8";
  expect_failure(j, {"r.json: /workload/precision: ", "\"FP8\""});
}

TEST(Validate, WorkloadAndEnginePrecisionAgree) {
  json j = measured();
  j["workload"]["precision"] = "NF4";
  expect_failure(j, {"/engine/precision: ", "workload.precision is 'NF4'"});
}

TEST(Validate, MissingRequiredField) {
  json j = measured();
  j["results"].erase("basis");
  expect_failure(j, {"r.json: /results: ", "'basis'"});
  json k = measured();
  k.erase("engine");
  expect_failure(k, {"r.json: /: ", "'engine'"});
}

TEST(Validate, WrongType) {
  json j = measured();
  j["results"]["tokens_generated"] = "2560";
  expect_failure(j, {"r.json: /results/tokens_generated: ", "type"});
  json k = measured();
  k["protocol"]["new_tokens"] = 256.0;  // a number, not an integer
  expect_failure(k, {"/protocol/new_tokens: "});
}

TEST(Validate, IterationsSumToTheTotals) {
  json j = measured();
  j["iterations"][2]["energy_j"] = j["iterations"][2]["energy_j"].get<double>() * 2.0;
  expect_failure(j, {"/results/total_energy_joules: ", "iterations sum"});
  json k = measured();
  k["iterations"][0]["tokens"] = 200;
  k["iterations"][0]["tokens_per_s"] = 200 / k["iterations"][0]["seconds"].get<double>();
  expect_failure(k, {"/results/tokens_generated: ", "iterations sum to 2504"});
  json m = measured();
  m["baseline"]["iterations"][0]["seconds"] =
      m["baseline"]["iterations"][0]["seconds"].get<double>() + 5;
  expect_failure(m, {"/baseline/results/seconds: ", "iterations sum"});
  expect_failure(m, {"/baseline/iterations/0/tokens_per_s: "});
}

TEST(Validate, IterationCountMatchesProtocol) {
  json j = measured();
  j["iterations"].erase(9);
  expect_failure(j, {"/iterations: ", "9 iterations recorded but protocol.iterations is 10"});
}

TEST(Validate, TokensAreNewTokensTimesIterations) {
  json j = measured();
  j["protocol"]["new_tokens"] = 128;
  expect_failure(j, {"/results/tokens_generated: ", "128 x 10 x 1"});
  expect_failure(j, {"/measurement/tokens_per_run: ", "/protocol/new_tokens is 128"});
}

TEST(Validate, PhasePowerIsEnergyOverTime) {
  json j = measured();
  j["phases"][1]["avg_power_w"] = j["phases"][1]["avg_power_w"].get<double>() * 1.1;
  expect_failure(j, {"/phases/1/avg_power_w: "});
}

TEST(Validate, ScenarioFollowsBatch) {
  json j = measured();
  j["scenario"] = "Offline";
  expect_failure(j, {"/scenario: "});
}

TEST(Validate, BaselineMustBeFp16) {
  json j = measured();
  j["baseline"]["engine"]["precision"] = "BF16";
  expect_failure(j, {"/baseline/engine/precision: "});
}

TEST(Validate, NotAnObject) {
  const auto r = validate_report(json::array(), "list.json");
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_THAT(r.failures[0], HasSubstr("list.json: /: expected a report object"));
}

TEST(ValidateOriginal, NoGpuExampleIsValidButNotAMeasurement) {
  const json example =
      json::parse(read_file(ec::test::fixture("original/energy.no-gpu.example.json")));
  const auto original = validate_against_original(example, "no-gpu.json");
  EXPECT_TRUE(original.ok()) << joined_lines(original.failures);
  EXPECT_FALSE(is_measurement(example));
  EXPECT_EQ(example["results"]["basis"], "interpolated");
  // It is not one of our reports: our schema wants our blocks.
  const auto ours = validate_report(example, "no-gpu.json");
  EXPECT_FALSE(ours.ok());
  EXPECT_THAT(joined_lines(ours.failures),
              HasSubstr("no-gpu.json: /: Missing required property 'report_format'"));
}

TEST(ValidateOriginal, NoGpuExampleWithWrongDeltaFails) {
  json example = json::parse(read_file(ec::test::fixture("original/energy.no-gpu.example.json")));
  example["results"]["vs_fp16_energy_pct"] = 31.2;  // 2153.68 / 1659.0 is +29.8 %
  const auto r = validate_against_original(example, "no-gpu.json");
  EXPECT_THAT(joined_lines(r.failures),
              HasSubstr("no-gpu.json: /results/vs_fp16_energy_pct: 31.2 %"));
}

// Splits one CSV line with "quoted, fields".
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// The published RTX 4090 session, row by row, as the original's energy.json would carry it: every
// row passes the original schema and our consistency rules (2 % energy/power, deltas within
// rounding).
TEST(ValidateOriginal, PublishedRtx4090RowsAreConsistent) {
  std::istringstream in(
      read_file(ec::test::fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv")));
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto cells = split_csv(line);
    ASSERT_EQ(cells.size(), header.size()) << line;
    std::map<std::string, std::string> c;
    for (size_t i = 0; i < header.size(); ++i) c[header[i]] = cells[i];
    auto num = [&](const char* k) { return std::stod(c.at(k)); };
    auto integer = [&](const char* k) { return std::stoll(c.at(k)); };
    const int64_t tokens = integer("generated_tokens_per_iter") * integer("decode_iterations");
    json report = {
        {"schema_version", "ecocompute-energy/1.1"},
        {"benchmark", "ecocompute-energy-methodology"},
        {"scenario", "SingleStream"},
        {"timestamp_utc", c["timestamp_utc"]},
        {"system_under_test",
         {{"gpu", c["gpu"]}, {"gpu_arch", c["gpu_arch"]}, {"accelerator_count", 1}}},
        {"workload",
         {{"model_name", c["model"]},
          {"params_b", num("params_b")},
          {"precision", c["precision"]},
          {"batch_size", integer("batch_size")},
          {"context_length", integer("context_length")}}},
        {"measurement",
         {{"method", "nvml"},
          {"sample_rate_hz", integer("sampling_rate_hz")},
          {"tokens_per_run", integer("generated_tokens_per_iter")},
          {"iterations", integer("decode_iterations")},
          {"warmup", integer("warmup")}}},
        {"measurement_source", c["measurement_source"]},
        {"results",
         {{"total_energy_joules", num("total_energy_j")},
          {"tokens_generated", tokens},
          {"energy_per_token_mj", num("energy_j_per_1k_tok")},
          {"fp16_energy_per_token_mj", num("fp16_energy_j_per_1k_tok")},
          {"vs_fp16_energy_pct", num("vs_fp16_energy_pct")},
          {"avg_power_watts", num("avg_power_w")},
          {"throughput_tokens_per_s", num("throughput_tok_s")},
          {"basis", c["basis"]}}},
        {"quality",
         {{"metric", "perplexity"},
          {"basis", "measured"},
          {"value", num("perplexity")},
          {"fp16_value", num("fp16_perplexity")},
          {"delta_vs_fp16_pct", num("delta_perplexity_pct")},
          {"tokens_evaluated", integer("quality_tokens_evaluated")},
          {"seq_len", integer("quality_seq_len")}}},
    };
    const auto r = validate_against_original(report, c["run_id"]);
    EXPECT_TRUE(r.ok()) << joined_lines(r.failures);
    EXPECT_TRUE(is_measurement(report)) << c["run_id"];
    // The same row with its power 5 % off is caught.
    report["results"]["avg_power_watts"] = num("avg_power_w") * 1.05;
    EXPECT_THAT(joined_lines(validate_against_original(report, c["run_id"]).failures),
                HasSubstr("/results/avg_power_watts"));
    ++rows;
  }
  EXPECT_EQ(rows, 10);
}

TEST(Consistency, RoundingHalfUnit) {
  EXPECT_DOUBLE_EQ(rounding_half_unit(29.8), 0.05);
  EXPECT_DOUBLE_EQ(rounding_half_unit(1659.0), 0.5);
  EXPECT_DOUBLE_EQ(rounding_half_unit(9941.865), 0.0005);
  EXPECT_DOUBLE_EQ(rounding_half_unit(-0.25), 0.005);
  EXPECT_DOUBLE_EQ(rounding_half_unit(9.941865234375123), 1e-9);
}

TEST(Consistency, HardwareSources) {
  EXPECT_TRUE(is_hardware_source("nvml_total_energy_counter"));
  EXPECT_TRUE(is_hardware_source("direct-nvml"));
  EXPECT_TRUE(is_hardware_source("rapl_package"));
  EXPECT_FALSE(is_hardware_source("none"));
  EXPECT_FALSE(is_hardware_source("ecocompute-dataset (no local GPU)"));
}

}  // namespace
}  // namespace ec::report
