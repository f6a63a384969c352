// The server on a real socket: a bounded hammering of good, malformed and oversized requests from
// localhost, every refusal a 4xx with a JSON body, and correct answers afterwards.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <random>
#include <thread>

#include "analysis/fit.h"
#include "serve/site_server.h"
#include "support/paths.h"

namespace ec::serve {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> problems;
    auto table = analysis::CsvTable::read(test::fixture("original/measured.csv"));
    auto curves = analysis::fit_curves(analysis::read_measured_csv(table, problems));
    site::SiteFiles files{{"index.html", "<!doctype html><title>t</title>"},
                          {"assets/site.css", "body{}"}};
    ServeOptions options;
    options.port = 0;
    server_ = std::make_unique<SiteServer>(std::move(files), std::move(curves), options);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->listen(); });
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(5);
    return c;
  }
  void expect_good_estimate(httplib::Client& c) {
    auto r = c.Get("/v1/estimate?params_b=7&arch=ada&precision=NF4");
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    ASSERT_EQ(r->status, 200) << r->body;
    const auto body = nlohmann::json::parse(r->body);
    EXPECT_EQ(body["basis"], "measured");  // 7B NF4 was measured on ada: the anchor, to 0.1
    EXPECT_DOUBLE_EQ(body["delta_pct"].get<double>(), -28.5);
    EXPECT_EQ(r->get_header_value("Access-Control-Allow-Origin"), "*");
  }

  std::unique_ptr<SiteServer> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(ServerTest, ServesSiteApiAndJsonErrors) {
  auto c = client();
  auto page = c.Get("/", {{"Accept", "text/html,application/xhtml+xml"}});  // a browser
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  auto index = c.Get("/");  // an API client: the endpoint list
  EXPECT_EQ(nlohmann::json::parse(index->body)["service"], "ecocompute-estimator");
  EXPECT_EQ(c.Get("/assets/site.css")->get_header_value("Content-Type"), "text/css; charset=utf-8");
  auto missing = c.Get("/nope.html");
  EXPECT_EQ(missing->status, 404);
  EXPECT_TRUE(nlohmann::json::parse(missing->body).contains("error"));
  auto curves = c.Get("/v1/curves");
  EXPECT_EQ(curves->status, 200);
  EXPECT_TRUE(nlohmann::json::parse(curves->body)["curves"].contains("ada"));
  EXPECT_EQ(c.Get("/v1/curves?x=1")->status, 400);
  EXPECT_EQ(c.Get("/v1/other")->status, 404);
  EXPECT_EQ(c.Post("/v1/estimate", "{}", "application/json")->status, 400);  // no size
  auto post = c.Post("/v1/estimate", R"({"params_b": 7, "arch": "ada"})", "application/json");
  EXPECT_EQ(post->status, 200);
  EXPECT_EQ(c.Post("/index.html", "{}", "application/json")->status, 405);
  auto preflight = c.Options("/v1/optimize");
  EXPECT_EQ(preflight->status, 204);
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Methods"), "GET, POST, OPTIONS");
  EXPECT_EQ(c.Get("/openapi.json")->status, 200);
  expect_good_estimate(c);
}

TEST_F(ServerTest, HammeredWithBadRequestsKeepsServing) {
  std::mt19937 rng(2024);
  const std::vector<std::string> bad_queries{
      "params_b=abc&arch=ada&precision=NF4", "params_b=&arch=ada&precision=NF4",
      "params_b=7&arch=volta&precision=NF4", "arch=ada&precision=NF4",
      "params_b=7&arch=ada&precision=FP8",   "params_b=-1&arch=ada&precision=NF4",
      "params_b=nan&arch=ada&precision=NF4", "params_b=7&arch=ada&precision=NF4&params_b=8",
      "params_b=%00&arch=ada&precision=NF4", "params_b=1e999&arch=%ff%fe&precision=NF4"};
  std::uniform_int_distribution<int> kind(0, 4);
  int good = 0, refused = 0;
  auto c = std::make_unique<httplib::Client>(client());
  for (int i = 0; i < 500; ++i) {
    const int k = kind(rng);
    int want_low = 400, want_high = 499;
    auto send = [&]() -> httplib::Result {
      if (k == 0) {
        const double n = std::uniform_real_distribution<double>(0.2, 50.0)(rng);
        want_low = want_high = 200;
        return c->Get(fmt::format("/v1/estimate?params_b={:.3f}&arch=ada&precision=INT8", n));
      }
      if (k == 1) {
        return c->Get("/v1/estimate?" + bad_queries[static_cast<size_t>(i) % bad_queries.size()]);
      }
      if (k == 2) {
        // A URI longer than the 8 KiB limit: 414.
        want_low = want_high = 414;
        return c->Get("/v1/estimate?params_b=" + std::string(9000 + static_cast<size_t>(i), '7') +
                      "&arch=ada&precision=NF4");
      }
      if (k == 3) {
        // A body over the limit: 413 before any handler sees it.
        want_low = want_high = 413;
        return c->Post("/v1/estimate", std::string(64 * 1024, 'x'), "text/plain");
      }
      // A header line over the limit.
      httplib::Headers h{{"X-Big", std::string(10000, 'h')}};
      return c->Get("/v1/estimate?params_b=7&arch=ada&precision=NF4", h);
    };
    const httplib::Result r = send();
    if (!r) {
      // The server may close a connection after refusing it; a fresh client must still work.
      c = std::make_unique<httplib::Client>(client());
      ++refused;
      continue;
    }
    EXPECT_GE(r->status, want_low) << i << " kind " << k << ": " << r->body;
    EXPECT_LE(r->status, want_high) << i << " kind " << k << ": " << r->body;
    if (r->status >= 400) {
      ++refused;
      EXPECT_NO_THROW((void)nlohmann::json::parse(r->body).at("error")) << r->body;
    } else {
      ++good;
    }
  }
  EXPECT_GT(good, 50);
  EXPECT_GT(refused, 300);
  auto fresh = client();
  expect_good_estimate(fresh);
}

}  // namespace
}  // namespace ec::serve
