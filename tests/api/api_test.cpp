// The API as functions: routing, the original's field rules (defaults, aliases, case, free text,
// JSON bodies), strict refusals naming the parameter, CORS preflight, the endpoint list and the
// OpenAPI document listing every route the router answers.
#include <gtest/gtest.h>

#include "analysis/estimate.h"
#include "analysis/fit.h"
#include "api/api.h"
#include "support/paths.h"

namespace ec::api {
namespace {

using nlohmann::json;

analysis::CurveSet published_curves() {
  std::vector<std::string> problems;
  auto table = analysis::CsvTable::read(test::fixture("original/measured.csv"));
  return analysis::fit_curves(analysis::read_measured_csv(table, problems));
}

const std::optional<analysis::CurveSet>& curves() {
  static const std::optional<analysis::CurveSet> c = published_curves();
  return c;
}

ApiResponse get(const std::string& path, QueryParams q = {}) {
  ApiRequest r;
  r.path = path;
  r.query = std::move(q);
  return api_request(curves(), r);
}

ApiResponse post(const std::string& path, const std::string& body) {
  ApiRequest r;
  r.method = "POST";
  r.path = path;
  r.body = body;
  return api_request(curves(), r);
}

TEST(EstimateApi, AnswersFromTheEstimatorWithTheOriginalsDefaults) {
  const ApiResponse r = get("/v1/estimate", {{"params_b", "7"}, {"arch", "ADA"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  analysis::EstimateInput in;
  in.params_b = 7;
  in.arch = "ada";
  EXPECT_EQ(r.body, analysis::estimate_json(analysis::estimate(*curves(), in)));
  EXPECT_EQ(r.body["input"]["precision"], "NF4");  // the default
  EXPECT_EQ(r.body["input"]["batch"], 1);
  EXPECT_EQ(r.body["input"]["ctx"], 2048);
  EXPECT_EQ(r.body["basis"], "measured");  // 7B was measured on ada
  // N is an alias of params_b; precision is case-insensitive.
  EXPECT_EQ(get("/v1/estimate", {{"N", "7"}, {"arch", "ada"}, {"precision", "nf4"}}).body, r.body);
}

TEST(EstimateApi, FreeTextReplacesTheFields) {
  const ApiResponse r = get("/v1/estimate", {{"q", "13B on A100 int8 batch 32 ctx 8k"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["input"], (json{{"params_b", 13},
                                   {"arch", "ampere"},
                                   {"precision", "INT8"},
                                   {"batch", 32},
                                   {"ctx", 8192}}));
  EXPECT_TRUE(r.body["modelled"].get<bool>());
}

TEST(EstimateApi, PostTakesTheSameFieldsAsJson) {
  const ApiResponse a = post("/v1/estimate", R"({"params_b": 3, "arch": "turing", "batch": 4})");
  const ApiResponse b =
      get("/v1/estimate", {{"params_b", "3"}, {"arch", "turing"}, {"batch", "4"}});
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body, b.body);
  EXPECT_EQ(post("/v1/estimate", "{not json").status, 400);
  EXPECT_EQ(post("/v1/estimate", "[1, 2]").status, 400);
}

TEST(EstimateApi, RefusesBadInputWith400NamingTheParameter) {
  struct Case {
    QueryParams q;
    std::string parameter;
  };
  const std::vector<Case> cases{
      {{{"arch", "ada"}}, "params_b"},
      {{{"params_b", "7"}}, "arch"},
      {{{"params_b", "abc"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "nan"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "inf"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "1e400"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "-3"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "0"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "0x10"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", " 7"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "200000"}, {"arch", "ada"}}, "params_b"},
      {{{"params_b", "7"}, {"arch", "volta"}}, "arch"},
      {{{"params_b", "7"}, {"arch", "turing"}, {"precision", "INT8"}}, "precision"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"precision", "FP8"}}, "precision"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"batch", "0"}}, "batch"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"batch", "2.5"}}, "batch"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"ctx", "-1"}}, "ctx"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"compat", "new"}}, "compat"},
      {{{"params_b", "7"}, {"arch", "ada"}, {"x", "1"}}, "x"},
      {{{"params_b", "7"}, {"params_b", "8"}, {"arch", "ada"}}, "params_b"},
      {{{"q", std::string(2000, 'a')}}, "q"},
      {{{"q", "A100 int8"}}, "params_b"},
  };
  for (const auto& c : cases) {
    const ApiResponse r = get("/v1/estimate", c.q);
    EXPECT_EQ(r.status, 400) << r.body.dump();
    EXPECT_EQ(r.body.value("parameter", ""), c.parameter) << r.body.dump();
    EXPECT_TRUE(r.body["error"].is_string());
  }
}

TEST(EstimateApi, EchoedValuesAreShortAndPrintable) {
  const ApiResponse r =
      get("/v1/estimate", {{"params_b", "7"}, {"arch", std::string(500, 'x') + "\x01"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_LT(r.body["error"].get<std::string>().size(), 200u);
  EXPECT_EQ(r.body["error"].get<std::string>().find('\x01'), std::string::npos);
}

TEST(OptimizeApi, ListsAndPinsAreReadAsTheOriginalReadsThem) {
  const ApiResponse r = get("/v1/optimize", {{"params_b", "7"},
                                             {"arch", "ada"},
                                             {"precisions", "nf4, int8"},
                                             {"batches", "1,8"},
                                             {"context", "4096"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["input"]["grid"]["precisions"], (json{"NF4", "INT8"}));
  EXPECT_EQ(r.body["input"]["grid"]["batches"], (json{1, 8}));
  EXPECT_EQ(r.body["input"]["grid"]["contexts"], (json{4096}));
  EXPECT_EQ(r.body["input"]["grid"]["candidates"], 4);
  const ApiResponse p = post("/v1/optimize", R"({"params_b": 7, "arch": "ada",
      "precisions": ["NF4", "INT8"], "batches": [1, 8], "context": 4096})");
  EXPECT_EQ(p.body, r.body);
  EXPECT_EQ(get("/v1/optimize", {{"params_b", "7"}, {"arch", "ada"}, {"objective", "fastest"}})
                .body["parameter"],
            "objective");
  EXPECT_EQ(get("/v1/optimize", {{"params_b", "7"}, {"arch", "volta"}}).status, 400);
  EXPECT_EQ(get("/v1/optimize", {{"arch", "ada"}}).body["parameter"], "params_b");
}

TEST(Routes, IndexArchitecturesCorsAndErrors) {
  const ApiResponse index = get("/");
  EXPECT_EQ(index.body["service"], "ecocompute-estimator");
  const ApiResponse archs = get("/v1/architectures/");  // a trailing slash is the same path
  ASSERT_EQ(archs.status, 200);
  EXPECT_EQ(archs.body["hopper"]["borrows_from"], "ampere");
  EXPECT_TRUE(archs.body["ada"]["precisions"].contains("INT8"));
  ApiRequest preflight;
  preflight.method = "OPTIONS";
  preflight.path = "/v1/estimate";
  EXPECT_EQ(api_request(curves(), preflight).status, 204);
  EXPECT_EQ(cors_headers().at("Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(get("/v1/nothing").status, 404);
  EXPECT_EQ(post("/v1/architectures", "{}").status, 405);
  ApiRequest del;
  del.method = "DELETE";
  del.path = "/v1/estimate";
  EXPECT_EQ(api_request(curves(), del).status, 405);
  EXPECT_EQ(get("/v1/curves").body["curves"].contains("turing"), true);
  ApiRequest none;
  none.path = "/v1/estimate";
  none.query = {{"params_b", "7"}, {"arch", "ada"}};
  EXPECT_EQ(api_request(std::nullopt, none).status, 503);
}

TEST(Routes, OpenApiDescribesEveryRoute) {
  ApiRequest r;
  r.path = "/openapi.json";
  r.origin = "http://127.0.0.1:8080";
  const json doc = api_request(curves(), r).body;
  EXPECT_EQ(doc["openapi"].get<std::string>().substr(0, 2), "3.");
  EXPECT_EQ(doc["servers"][0]["url"], "http://127.0.0.1:8080");
  // Held by name: a range-for over a member of a temporary reads it after it is destroyed.
  const json index = get("/").body;
  for (const auto& path : index["endpoints"]) {
    EXPECT_TRUE(doc["paths"].contains(path.get<std::string>())) << path;
  }
  EXPECT_TRUE(doc["paths"].contains(index["curves"].get<std::string>()));
  for (const char* path : {"/v1/estimate", "/v1/optimize"}) {
    EXPECT_TRUE(doc["paths"][path].contains("get"));
    EXPECT_TRUE(doc["paths"][path].contains("post"));
  }
}

}  // namespace
}  // namespace ec::api
