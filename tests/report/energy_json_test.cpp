// RunRecord -> energy.json: derived totals, round trip, validity against ours and the original
// schema.
#include "report/energy_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "report/consistency.h"
#include "report/validate.h"
#include "sample_records.h"
#include "support/lines.h"

namespace ec::report {
namespace {

using ec::test::joined_lines;  // test:: here is ec::report::test (sample_records.h)
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(EnergyJson, FinalizeDerivesTotalsFromIterations) {
  const RunRecord r = test::measured_record();
  double energy = 0.0, seconds = 0.0;
  for (const auto& it : r.run.iterations) {
    energy += *it.energy_j;
    seconds += it.seconds;
  }
  double base_energy = 0.0;
  for (const auto& it : r.baseline->iterations) base_energy += *it.energy_j;

  const Results& res = r.run.results;
  EXPECT_EQ(res.basis, Basis::measured);
  EXPECT_EQ(res.tokens_generated, 2560);
  EXPECT_DOUBLE_EQ(*res.total_energy_j, energy);
  EXPECT_DOUBLE_EQ(*res.seconds, seconds);
  EXPECT_DOUBLE_EQ(*res.energy_per_token_mj, energy / 2560.0 * 1000.0);
  EXPECT_DOUBLE_EQ(*res.avg_power_w, energy / seconds);
  EXPECT_DOUBLE_EQ(*res.throughput_tok_s, 2560.0 / seconds);
  EXPECT_DOUBLE_EQ(*res.fp16_energy_per_token_mj, base_energy / 2560.0 * 1000.0);
  EXPECT_NEAR(*res.vs_fp16_energy_pct, (energy / base_energy - 1.0) * 100.0, 1e-9);
  EXPECT_NEAR(*r.quality->delta_vs_fp16_pct, (std::exp(0.004) - 1.0) * 100.0, 1e-9);
  // Power between the sampled bounds, as the iterations were drawn.
  EXPECT_GT(*res.avg_power_w, 70.0);
  EXPECT_LT(*res.avg_power_w, 95.0);
  // The meter's source comes from its windows.
  EXPECT_EQ(r.meter.energy_source, "nvml_total_energy_counter");
}

TEST(EnergyJson, MeasuredRecordValidatesAgainstOursAndTheOriginal) {
  const RunRecord r = test::measured_record();
  const nlohmann::json j = to_json(r);
  const auto ours = validate_report(j, "int8.json");
  EXPECT_TRUE(ours.ok()) << joined_lines(ours.failures);
  const auto original = validate_against_original(j, "int8.json");
  EXPECT_TRUE(original.ok()) << joined_lines(original.failures);
  EXPECT_TRUE(is_measurement(j));
  EXPECT_EQ(j["results"]["basis"], "measured");
  EXPECT_EQ(j["measurement_source"], "nvml_total_energy_counter");
  EXPECT_EQ(j["measurement"]["sample_rate_hz"], 50);
  EXPECT_EQ(j["measurement"]["tokens_per_run"], 256);
  EXPECT_EQ(j["scenario"], "SingleStream");
  EXPECT_EQ(j["baseline"]["engine"]["precision"], "FP16");
  EXPECT_EQ(j["iterations"].size(), 10u);
  EXPECT_EQ(j["software"]["nvidia_driver"], "550.54.15");
}

TEST(EnergyJson, RoundTripsThroughJson) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const RunRecord r = test::measured_record(seed);
    const nlohmann::json j = to_json(r);
    const RunRecord back = run_record_from_json(j);
    EXPECT_EQ(to_json(back), j) << "seed " << seed;
    EXPECT_EQ(back.run.iterations.size(), 10u);
    EXPECT_DOUBLE_EQ(*back.run.iterations[3].energy_j, *r.run.iterations[3].energy_j);
    EXPECT_EQ(back.baseline->engine.weight_format, "fp16");
  }
  const RunRecord cpu = test::unavailable_cpu_record();
  EXPECT_EQ(to_json(run_record_from_json(to_json(cpu))), to_json(cpu));
}

TEST(EnergyJson, UnavailableCpuReportValidatesWithNulls) {
  const RunRecord r = test::unavailable_cpu_record();
  const nlohmann::json j = to_json(r);
  const auto ours = validate_report(j, "cpu.json");
  EXPECT_TRUE(ours.ok()) << joined_lines(ours.failures);
  const auto original = validate_against_original(j, "cpu.json");
  EXPECT_TRUE(original.ok()) << joined_lines(original.failures);
  EXPECT_FALSE(is_measurement(j));
  EXPECT_EQ(j["results"]["basis"], "unavailable");
  EXPECT_EQ(j["measurement_source"], "none");
  EXPECT_TRUE(j["results"]["energy_per_token_mj"].is_null());
  EXPECT_TRUE(j["results"]["total_energy_joules"].is_null());
  EXPECT_TRUE(j["results"]["vs_fp16_energy_pct"].is_null());
  EXPECT_TRUE(j["iterations"][0]["energy_j"].is_null());
  // Throughput is still measured: time needs no meter.
  EXPECT_GT(j["results"]["throughput_tokens_per_s"].get<double>(), 0.0);
  EXPECT_THAT(j["results"]["note"].get<std::string>(), HasSubstr("no readable RAPL"));
  EXPECT_TRUE(j["meter"]["sample_rate_hz"].is_null());
  EXPECT_EQ(j["measurement"]["sample_rate_hz"], 0);
}

TEST(EnergyJson, MissingIterationEnergyMakesTheRunUnavailable) {
  RunRecord r = test::measured_record();
  r.run.iterations[4].energy_j.reset();
  finalize(r);
  EXPECT_EQ(r.run.results.basis, Basis::unavailable);
  EXPECT_THAT(r.run.results.note, HasSubstr("iteration 4"));
  EXPECT_FALSE(r.run.results.total_energy_j);
  EXPECT_FALSE(r.run.results.vs_fp16_energy_pct);
  EXPECT_THAT(r.run.results.note, HasSubstr("9 of 10"));
  for (const auto& it : r.run.iterations) EXPECT_FALSE(it.energy_j);
  // The baseline keeps its own measurement.
  EXPECT_EQ(r.baseline->results.basis, Basis::measured);
  const auto result = validate_report(to_json(r), "partial.json");
  EXPECT_TRUE(result.ok()) << joined_lines(result.failures);
}

TEST(EnergyJson, OurExtraPrecisionsValidateOnlyAgainstOurs) {
  for (auto [precision, format] : {std::pair{"NF4-DQ", "nf4-dq"}, std::pair{"INT8-WO", "int8-wo"},
                                   std::pair{"BF16", "bf16"}}) {
    const nlohmann::json j = to_json(test::measured_record(5, precision, format));
    const auto ours = validate_report(j, "x.json");
    EXPECT_TRUE(ours.ok()) << precision << "\n" << joined_lines(ours.failures);
    const auto original = validate_against_original(j, "x.json");
    ASSERT_FALSE(original.ok()) << precision;
    EXPECT_THAT(joined_lines(original.failures), HasSubstr("x.json: /workload/precision:"));
  }
}

TEST(EnergyJson, ParseNamesTheMissingOrMistypedField) {
  nlohmann::json j = to_json(test::measured_record());
  j["engine"].erase("backend");
  try {
    run_record_from_json(j);
    FAIL() << "expected ec::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/engine/backend: missing"));
  }
  j = to_json(test::measured_record());
  j["baseline"]["iterations"][2]["tokens"] = 256.5;
  try {
    run_record_from_json(j);
    FAIL() << "expected ec::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/baseline/iterations/2/tokens: expected an integer"));
  }
}

// How the kernel variants were chosen: written for every new report, absent from older ones (which
// still read and validate), and only one of the four names.
TEST(EnergyJson, KernelVariantChoiceIsOptionalAndNamed) {
  nlohmann::json j = to_json(test::measured_record());
  EXPECT_EQ(j["engine"]["kernel_variant_choice"], "tuned");
  EXPECT_EQ(j["baseline"]["engine"]["kernel_variant_choice"], "tuned");
  j["engine"].erase("kernel_variant_choice");
  EXPECT_TRUE(validate_report(j, "old.json").ok());
  EXPECT_EQ(run_record_from_json(j).run.engine.kernel_variant_choice, "");
  j["engine"]["kernel_variant_choice"] = "guessed";
  const auto bad = validate_report(j, "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(joined_lines(bad.failures), HasSubstr("bad.json: /engine/kernel_variant_choice"));
}

// The tuning table a CUDA engine read: name and sha256 round-trip; absent when none was read (CPU
// reports, older reports), and a malformed one is refused naming the field.
TEST(EnergyJson, TuningTableRoundTripsAndIsOptional) {
  RunRecord r = test::measured_record();
  r.run.engine.kernel_variant_choice = "table";
  r.run.engine.tuning_table = "shipped:nvidia-h200-cc9.0.json";
  r.run.engine.tuning_table_sha256 = std::string(64, 'a');
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["engine"]["tuning_table"]["name"], "shipped:nvidia-h200-cc9.0.json");
  EXPECT_FALSE(j["baseline"]["engine"].contains("tuning_table"));
  EXPECT_TRUE(validate_report(j, "new.json").ok())
      << joined_lines(validate_report(j, "new.json").failures);
  const RunRecord back = run_record_from_json(j);
  EXPECT_EQ(back.run.engine.tuning_table, "shipped:nvidia-h200-cc9.0.json");
  EXPECT_EQ(back.run.engine.tuning_table_sha256, std::string(64, 'a'));
  EXPECT_EQ(back.run.engine.kernel_variant_choice, "table");
  EXPECT_EQ(back.baseline->engine.tuning_table, "");
  for (const char* choice : {"table+heuristic", "heuristic", "pinned", "untuned"}) {
    j["engine"]["kernel_variant_choice"] = choice;
    EXPECT_TRUE(validate_report(j, "new.json").ok()) << choice;
  }
  j["engine"]["tuning_table"]["sha256"] = "not-a-hash";
  const auto bad = validate_report(j, "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(joined_lines(bad.failures), HasSubstr("bad.json: /engine/tuning_table/sha256"));
  j["engine"]["tuning_table"].erase("sha256");
  EXPECT_THROW(run_record_from_json(j), Error);
}

TEST(EnergyJson, BasisNamesRoundTrip) {
  for (Basis b : {Basis::measured, Basis::interpolated, Basis::extrapolated, Basis::unavailable}) {
    EXPECT_EQ(parse_basis(basis_name(b)), b);
  }
  EXPECT_THROW(parse_basis("estimated"), Error);
}

TEST(EnergyJson, TimestampIsUtcIso8601) {
  const std::string t = utc_timestamp_now();
  ASSERT_EQ(t.size(), 27u) << t;
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
  EXPECT_GE(t.substr(0, 4), "2024");
}

TEST(EnergyJson, DescribeMeterReadsTheUnavailableMetersReason) {
  auto m = meter::make_unavailable_meter("no GPU here");
  const MeterRecord rec = describe_meter(*m);
  EXPECT_EQ(rec.name, "unavailable");
  EXPECT_FALSE(rec.measures_energy);
  EXPECT_EQ(rec.reason, "no GPU here");
  EXPECT_FALSE(rec.sample_rate_hz);
  EXPECT_EQ(rec.details["reason"], "no GPU here");
}

TEST(EnergyJson, ThisBuildAndHostAreFilled) {
  const BuildRecord b = this_build();
  EXPECT_FALSE(b.version.empty());
  EXPECT_FALSE(b.compiler.empty());
  const Environment env = probe_host_environment();
  EXPECT_FALSE(env.os.empty());
  EXPECT_GT(env.cpu_threads, 0);
}

}  // namespace
}  // namespace ec::report
