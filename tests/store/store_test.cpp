// The store: rows round-trip field for field, ingest is idempotent by run id, content changes
// update, the schema version is recorded and a newer one refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <random>

#include "core/error.h"
#include "report/measurement_rule.h"
#include "store/store.h"
#include "support/paths.h"

namespace ec::store {
namespace {

RunRow random_row(std::mt19937& rng, int i) {
  std::uniform_real_distribution<double> energy(900.0, 15000.0);
  std::uniform_real_distribution<double> delta(-40.0, 600.0);
  RunRow r;
  r.run_id = "run-" + std::to_string(i);
  r.source_path = "/tmp/x/" + std::to_string(i) + ".json";
  r.source_format = "ecocompute-report";
  r.session = "s" + std::to_string(i % 3);
  r.timestamp_utc = "2026-09-01T10:00:00Z";
  r.replicate = i % 3 + 1;
  r.gpu = "NVIDIA H200";
  r.gpu_arch = "hopper";
  r.model = "Qwen/Qwen2-7B";
  r.params_b = 7.0;
  r.precision = i % 2 ? "INT8" : "NF4";
  r.weight_format = i % 2 ? "int8-wo" : "nf4";
  r.energy_j_per_1k_tok = energy(rng);
  r.fp16_energy_j_per_1k_tok = energy(rng);
  r.vs_fp16_energy_pct = delta(rng);
  r.throughput_tok_s = 240.5;
  r.perplexity = 3.9003;
  r.quality_tokens_evaluated = 14123;
  r.basis = "measured";
  r.versions = {{"torch", "2.5.1+cu121"}, {"engine.kernels.gemv", "v3"}};
  return r;
}

void expect_same(const RunRow& a, const RunRow& b) {
  for (const auto& f : run_fields()) {
    EXPECT_EQ(f.get(a), f.get(b)) << "field " << f.name << " of " << a.run_id;
  }
  EXPECT_EQ(a.versions, b.versions);
}

TEST(Store, RoundTripsEveryField) {
  std::mt19937 rng(7);
  std::vector<RunRow> rows;
  for (int i = 0; i < 20; ++i) rows.push_back(random_row(rng, i));
  Store store = Store::in_memory();
  const IngestStats s = store.ingest(rows);
  EXPECT_EQ(s.inserted, 20u);
  const auto back = store.runs();
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) expect_same(rows[i], back[i]);
  EXPECT_FALSE(back[0].avg_power_w.has_value()) << "absent stays absent, never 0";
}

TEST(Store, IngestIsIdempotentAndUpdatesChangedRuns) {
  test::ScratchDir dir;
  std::mt19937 rng(11);
  std::vector<RunRow> rows;
  for (int i = 0; i < 5; ++i) rows.push_back(random_row(rng, i));
  {
    Store store = Store::open(dir / "sub" / "results.sqlite");
    EXPECT_EQ(store.ingest(rows).inserted, 5u);
  }
  Store store = Store::open(dir / "sub" / "results.sqlite");  // reopened from disk
  rows[1].source_path = "/elsewhere/copy.json";               // the same run found at another path
  rows[3].vs_fp16_energy_pct = 12.5;                          // a corrected report
  const IngestStats again = store.ingest(rows);
  EXPECT_EQ(again.inserted, 0u);
  EXPECT_EQ(again.unchanged, 4u);
  EXPECT_EQ(again.updated, 1u);
  EXPECT_EQ(store.count(), 5u);
  EXPECT_DOUBLE_EQ(*store.runs()[3].vs_fp16_energy_pct, 12.5);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
}

TEST(Store, RefusesNewerSchemaAndBadPaths) {
  test::ScratchDir dir;
  { Store::open(dir / "r.sqlite"); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "r.sqlite").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    Store::open(dir / "r.sqlite");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("schema version 99 is newer"));
  }
  std::filesystem::create_directories(dir / "isdir.sqlite");
  EXPECT_THROW(Store::open(dir / "isdir.sqlite"), Error);
}

TEST(Store, RowWithoutIdIsRejectedAndNothingIsHalfWritten) {
  std::mt19937 rng(3);
  std::vector<RunRow> rows{random_row(rng, 0), random_row(rng, 1)};
  rows[1].run_id.clear();
  Store store = Store::in_memory();
  EXPECT_THROW(store.ingest(rows), Error);
  EXPECT_EQ(store.count(), 0u) << "the transaction must roll back";
}

TEST(Store, RunsAskTheOneMeasurementRule) {
  RunRow row;
  row.basis = "measured";
  row.measurement_source = "direct-nvml";
  EXPECT_TRUE(row.is_measured());
  row.measurement_source = "ILLUSTRATIVE (synthetic)";
  EXPECT_FALSE(row.is_measured());
  EXPECT_EQ(row.why_not_measured(),
            report::why_not_a_measurement(row.basis, row.measurement_source));
}

}  // namespace
}  // namespace ec::store
