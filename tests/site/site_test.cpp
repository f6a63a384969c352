// The report site generator: input loading (measured.csv vs runs), the data document, the pages
// and their assets, and atomic writing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <random>

#include "core/embedded.h"
#include "core/error.h"
#include "core/file_io.h"
#include "site/site_builder.h"
#include "site/site_data.h"
#include "site/site_input.h"
#include "support/paths.h"
#include "support/run_rows.h"

namespace ec::site {
namespace {

using test::fixture;

SiteInput published_input() {
  SiteSources s;
  s.paths = {fixture("original/measured.csv"),
             fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv"),
             fixture("analysis/rtx4090_int8_repeats_synthetic.csv"),
             fixture("original/energy.no-gpu.example.json")};
  return load_site_input(s);
}

TEST(SiteInput, MeasuredCsvAloneGivesCurvesAndItsRowsAsRuns) {
  SiteSources s;
  s.paths = {fixture("original/measured.csv")};
  const SiteInput in = load_site_input(s);
  ASSERT_TRUE(in.curves.has_value());
  EXPECT_EQ(in.curves_source, "fitted from measured.csv");
  ASSERT_FALSE(in.runs.empty());
  for (const auto& r : in.runs) {
    // Each row is a session record of the file, as `aggregate measured.csv` reads it.
    EXPECT_NE(r.session.find("(measured.csv)"), std::string::npos) << r.session;
  }
  EXPECT_TRUE(in.problems.empty()) << in.problems.front();
}

TEST(SiteInput, MeasuredCsvGivesCurvesAndOtherFilesGiveRuns) {
  const SiteInput in = published_input();
  ASSERT_TRUE(in.curves.has_value());
  EXPECT_EQ(in.curves_source, "fitted from measured.csv");
  EXPECT_EQ(in.curves->curves.size(), 6u);  // ada INT8/NF4, ampere INT8/NF4, blackwell, turing
  // 10 published runs, 6 synthetic repeats, 1 interpolated example: measured.csv is not a run file.
  EXPECT_EQ(in.runs.size(), 17u);
  EXPECT_TRUE(in.problems.empty()) << in.problems.front();
  const auto* ada = in.curves->find("ada", "NF4");
  ASSERT_NE(ada, nullptr);
  EXPECT_NEAR(ada->fit.params.a, 54.2294, 1e-3);  // the published fit (docs/analysis.md)
}

TEST(SiteInput, CurvesFileReplacesFitting) {
  test::ScratchDir dir;
  const SiteInput fitted = published_input();
  write_file_atomic(dir / "curves.json", analysis::curves_to_json(*fitted.curves).dump());
  SiteSources s;
  s.paths = {fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv")};
  s.curves = dir / "curves.json";
  const SiteInput in = load_site_input(s);
  ASSERT_TRUE(in.curves);
  EXPECT_EQ(in.curves_source, "curves.json");
  EXPECT_EQ(in.curves->curves.size(), fitted.curves->curves.size());
  EXPECT_EQ(in.runs.size(), 10u);
}

TEST(SiteInput, BadFilesAreProblemsNotFailures) {
  test::ScratchDir dir;
  write_file_atomic(dir / "broken.json", "{\"schema_version\": ");
  write_file_atomic(dir / "bad.csv", "a,b\n1\n");
  SiteSources s;
  s.paths = {dir / "broken.json", dir / "bad.csv",
             fixture("original/rtx4090_paired_energy_quality_2026-08-19.csv")};
  const SiteInput in = load_site_input(s);
  EXPECT_EQ(in.runs.size(), 10u);
  ASSERT_EQ(in.problems.size(), 2u);
  EXPECT_NE(in.problems[0].find("bad.csv") + in.problems[1].find("bad.csv"), 2 * std::string::npos);
  // Curves fitted from the runs: one session, one stack.
  ASSERT_TRUE(in.curves);
  EXPECT_EQ(in.curves_source, "fitted from the measured runs");
}

TEST(SiteData, SummarisesConfigsSessionsAndComparisons) {
  const nlohmann::json d = site_data(published_input(), "2026-01-01T00:00:00Z");
  EXPECT_EQ(d["generated_utc"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(d["counts"]["runs"], 17);
  EXPECT_EQ(d["counts"]["not_measured"], 1);
  EXPECT_EQ(d["not_measured"].size(), 1u);
  EXPECT_EQ(d["not_measured"][0]["basis"], "interpolated");
  EXPECT_EQ(d["counts"]["sessions"], 2);
  // The repeats: a configuration with n = 3 whose SD is the sample SD of its deltas.
  bool found = false;
  for (const auto& c : d["configs"]) {
    if (c["n"] == 3 && c["params_b"] == 7.0) {
      found = true;
      EXPECT_GT(c["delta_pct"]["sd"].get<double>(), 0.0);
      EXPECT_TRUE(c["delta_pct"]["cv_pct"].is_number());
    }
    if (c["n"] == 1) {
      EXPECT_TRUE(c["delta_pct"]["sd"].is_null()) << c.dump();  // never 0
    }
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(d["comparisons"].size(), 1u);
  const auto& cmp = d["comparisons"][0];
  EXPECT_FALSE(cmp["rows"].empty());
  EXPECT_TRUE(cmp["verdict"].is_string());
  // The method lists what the runs recorded, per session.
  ASSERT_EQ(d["method"].size(), 2u);
  bool saw_iterations = false;
  for (const auto& s : d["method"][0]["protocol"]) {
    if (s["name"] == "decode_iterations") {
      saw_iterations = true;
      EXPECT_EQ(s["values"][0]["value"], "10");
    }
  }
  EXPECT_TRUE(saw_iterations);
  EXPECT_TRUE(d["curves"]["curves"].contains("ada"));
}

TEST(SiteData, DeltaMeansMatchAHandComputationOnRandomRuns) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-30.0, 80.0);
  SiteInput in;
  std::vector<double> deltas;
  for (int i = 0; i < 5; ++i) {
    store::RunRow r;
    r.run_id = "r" + std::to_string(i);
    r.session = "s1";
    r.gpu = "G";
    r.gpu_arch = "ada";
    r.model = "m";
    r.params_b = 3.0;
    r.precision = "NF4";
    r.basis = "measured";
    r.measurement_source = "direct-nvml";
    r.energy_j_per_1k_tok = 1000.0 + 10.0 * i;
    r.fp16_energy_j_per_1k_tok = 900.0;
    r.vs_fp16_energy_pct = u(rng);
    deltas.push_back(*r.vs_fp16_energy_pct);
    in.runs.push_back(r);
  }
  double mean = 0;
  for (double v : deltas) mean += v / 5.0;
  double ss = 0;
  for (double v : deltas) ss += (v - mean) * (v - mean);
  const nlohmann::json d = site_data(in, "t");
  ASSERT_EQ(d["configs"].size(), 1u);
  EXPECT_NEAR(d["configs"][0]["delta_pct"]["mean"].get<double>(), mean, 1e-9);
  EXPECT_NEAR(d["configs"][0]["delta_pct"]["sd"].get<double>(), std::sqrt(ss / 4.0), 1e-9);
  EXPECT_TRUE(d["curves"].is_null());  // none were given: null, never an empty object
}

// A CPU store without an energy meter: its configurations carry throughput, KL and top-1 (and no
// energy), its runs are still counted as not measured.
TEST(SiteData, CpuRunsWithoutAMeterShowKlAndTop1) {
  SiteInput in;
  const double kl[] = {0.125, 0.375};
  const double top1[] = {0.5, 0.75};
  for (int i = 0; i < 2; ++i) {
    in.runs.push_back(test::cpu_run_without_meter("cpu-sweep", i, "NF4", kl[i], top1[i]));
  }
  const nlohmann::json d = site_data(in, "t");
  ASSERT_EQ(d["configs"].size(), 1u);
  const auto& c = d["configs"][0];
  EXPECT_EQ(c["n"], 2);
  EXPECT_EQ(c["n_energy"], 0);
  EXPECT_DOUBLE_EQ(c["mean_kl_vs_fp16"]["mean"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(c["top1_agreement_vs_fp16"]["mean"].get<double>(), 0.625);
  EXPECT_TRUE(c["energy_j_per_1k_tok"].is_null()) << "no energy from a run without a meter";
  EXPECT_TRUE(c["delta_pct"].is_null());
  EXPECT_EQ(d["counts"]["not_measured"], 2);
  EXPECT_EQ(d["not_measured"].size(), 2u);
  ASSERT_EQ(d["left_out"].size(), 1u);
  EXPECT_EQ(d["left_out"][0]["runs"], 2);
}

TEST(SiteBuilder, WritesEveryPageWithItsScriptsAndData) {
  const auto files = build_site(site_data(published_input(), "2026-01-01T00:00:00Z"));
  for (const auto& p : pages()) {
    auto it = files.find(p.file);
    ASSERT_NE(it, files.end()) << p.file;
    const std::string& html = it->second;
    EXPECT_NE(html.find("<title>"), std::string::npos);
    EXPECT_EQ(html.find("{{"), std::string::npos) << p.file << ": a placeholder was left";
    EXPECT_NE(html.find(std::string("assets/js/") + p.script), std::string::npos);
    EXPECT_TRUE(files.contains(std::string("assets/js/") + p.script)) << p.script;
    EXPECT_NE(html.find("data/site-data.js"), std::string::npos);
    // Nothing from the network at view time.
    EXPECT_EQ(html.find("http://"), std::string::npos) << p.file;
    EXPECT_EQ(html.find("https://"), std::string::npos) << p.file;
    EXPECT_NE(html.find("aria-current=\"page\""), std::string::npos);
  }
  const std::string& js = files.at("data/site-data.js");
  ASSERT_TRUE(js.starts_with("window.EC_DATA = {"));
  const auto parsed = nlohmann::json::parse(js.substr(16, js.size() - 16 - 2));
  EXPECT_EQ(parsed["counts"]["runs"], 17);
  EXPECT_EQ(nlohmann::json::parse(files.at("data/curves.json")), parsed["curves"]);
  EXPECT_TRUE(files.contains("assets/site.css"));
  for (const auto& [path, bytes] : files) {
    // The report grader is emscripten's loader: its fetch() is for a .wasm it never needs, the
    // module being inlined as a data: URL (the browser test grades reports from file://).
    if (path == "assets/js/report-grader.js") {
      EXPECT_NE(bytes.find("data:application/octet-stream;base64,"), std::string::npos);
      continue;
    }
    if (path.ends_with(".js") || path.ends_with(".css") || path.ends_with(".html")) {
      EXPECT_EQ(bytes.find("fetch("), std::string::npos) << path << " would fail from file://";
    }
  }
}

TEST(SiteBuilder, EmbeddedAssetsAreSortedAndWritten) {
  const auto assets = embedded::site_assets();
  ASSERT_GT(assets.size(), 5u);
  for (size_t i = 1; i < assets.size(); ++i) EXPECT_LT(assets[i - 1].path, assets[i].path);
  test::ScratchDir dir;
  const SiteFiles files{{"index.html", "<p>x</p>"}, {"data/deep/a.js", "window.A = 1;\n"}};
  EXPECT_EQ(write_site(files, dir.path()), 2u);
  EXPECT_EQ(read_file(dir / "data/deep/a.js"), "window.A = 1;\n");
  // A directory where a file must go is an error naming it, not a crash.
  std::filesystem::create_directories(dir / "blocked" / "index.html");
  EXPECT_THROW(write_site(files, dir / "blocked"), Error);
}

}  // namespace
}  // namespace ec::site
