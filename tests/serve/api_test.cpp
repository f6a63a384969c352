// The /v1 API as functions: the estimate matches analysis::estimate (and so the CLI); every kind of
// bad input is a 4xx naming the parameter.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "analysis/estimate.h"
#include "analysis/fit.h"
#include "serve/api.h"
#include "support/paths.h"

namespace ec::serve {
namespace {

analysis::CurveSet published_curves() {
  std::vector<std::string> problems;
  auto table = analysis::CsvTable::read(test::fixture("original/measured.csv"));
  return analysis::fit_curves(analysis::read_measured_csv(table, problems));
}

const std::optional<analysis::CurveSet>& curves() {
  static const std::optional<analysis::CurveSet> c = published_curves();
  return c;
}

ApiResponse ask(std::string size, std::string arch, std::string precision) {
  return estimate_request(curves(), {{"params_b", size}, {"arch", arch}, {"precision", precision}});
}

TEST(EstimateApi, AgreesWithTheEstimatorOnRandomSizes) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> log_size(-1.5, 3.5);
  const char* classes[][2] = {
      {"ada", "NF4"}, {"ada", "INT8"}, {"turing", "NF4"}, {"hopper", "INT8"}, {"blackwell", "NF4"}};
  for (int i = 0; i < 40; ++i) {
    const double n = std::round(std::exp(log_size(rng)) * 1000.0) / 1000.0;
    const auto& cls = classes[i % 5];
    const ApiResponse r = ask(fmt::format("{}", n), cls[0], cls[1]);
    ASSERT_EQ(r.status, 200) << r.body.dump();
    const auto e = analysis::estimate(*curves(), n, cls[0], cls[1]);
    EXPECT_NEAR(r.body["delta_pct"].get<double>(), e.delta_pct, 0.005001);
    EXPECT_NEAR(r.body["band_low"].get<double>(), e.band_low, 0.005001);
    EXPECT_NEAR(r.body["band_high"].get<double>(), e.band_high, 0.005001);
    EXPECT_EQ(r.body["basis"], e.basis);
    EXPECT_EQ(r.body["arch"], e.arch_used);
  }
}

TEST(EstimateApi, AnchorSizeGivesAbsoluteEnergy) {
  const ApiResponse r = ask("7", "ADA", "nf4");  // case-insensitive names
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["basis"], "interpolated");
  EXPECT_DOUBLE_EQ(r.body["delta_pct"].get<double>(), -20.47);  // as `ecocompute estimate` prints
  EXPECT_DOUBLE_EQ(r.body["fp16_energy_j_per_1k_tok"].get<double>(), 5467.88);
}

TEST(EstimateApi, RefusesBadInputWith400NamingTheParameter) {
  struct Case {
    QueryParams q;
    int status;
    std::string parameter;
  };
  const std::vector<Case> cases{
      {{{"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "7"}, {"precision", "NF4"}}, 400, "arch"},
      {{{"params_b", "7"}, {"arch", "ada"}}, 400, "precision"},
      {{{"params_b", "abc"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "nan"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "inf"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "1e400"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "-3"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "0"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "0x10"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", " 7"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
      {{{"params_b", "7"}, {"arch", "volta"}, {"precision", "NF4"}}, 400, "arch"},
      {{{"params_b", "7"}, {"arch", "turing"}, {"precision", "INT8"}}, 400, "precision"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"precision", "FP8"}}, 400, "precision"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"precision", "NF4"}, {"x", "1"}}, 400, "x"},
      {{{"params_b", "7"}, {"params_b", "8"}, {"arch", "ada"}, {"precision", "NF4"}},
       400,
       "params_b"},
      {{{"params_b", "200000"}, {"arch", "ada"}, {"precision", "NF4"}}, 400, "params_b"},
  };
  for (const auto& c : cases) {
    const ApiResponse r = estimate_request(curves(), c.q);
    EXPECT_EQ(r.status, c.status) << r.body.dump();
    EXPECT_EQ(r.body.value("parameter", ""), c.parameter) << r.body.dump();
    EXPECT_TRUE(r.body["error"].is_string());
  }
}

TEST(EstimateApi, EchoedValuesAreShortAndPrintable) {
  const ApiResponse r = ask("7", std::string(500, 'x') + "\x01", "NF4");
  EXPECT_EQ(r.status, 400);
  EXPECT_LT(r.body["error"].get<std::string>().size(), 200u);
  EXPECT_EQ(r.body["error"].get<std::string>().find('\x01'), std::string::npos);
}

TEST(CurvesApi, ServesTheCurvesOr503) {
  const ApiResponse r = curves_request(curves());
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body["curves"].contains("turing"));
  EXPECT_EQ(curves_request(std::nullopt).status, 503);
  EXPECT_EQ(
      estimate_request(std::nullopt, {{"params_b", "7"}, {"arch", "ada"}, {"precision", "NF4"}})
          .status,
      503);
}

}  // namespace
}  // namespace ec::serve
