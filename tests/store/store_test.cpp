// The store: rows round-trip field for field, ingest is idempotent by run id, content changes
// update, the schema version is recorded, an older one migrated in place and a newer one refused.
#include <fmt/format.h>
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
  if (i % 4 != 0) {  // every fourth run without them: absent must round-trip as absent
    r.mean_kl_vs_fp16 = 0.0125 * i;
    r.top1_agreement_vs_fp16 = 1.0 - 0.01 * i;
  }
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

// The layout of schema version 1, as that version of ecocompute created it.
constexpr const char* kSchemaV1 = R"(
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY NOT NULL, timestamp_utc TEXT, replicate INTEGER, gpu TEXT, gpu_arch TEXT,
  model TEXT, params_b REAL, precision TEXT, quantization_backend TEXT, batch_size INTEGER,
  context_length INTEGER, generated_tokens_per_iter INTEGER, decode_iterations INTEGER,
  warmup INTEGER, sampling_rate_hz INTEGER, energy_j_per_1k_tok REAL,
  fp16_energy_j_per_1k_tok REAL, vs_fp16_energy_pct REAL, throughput_tok_s REAL,
  avg_power_w REAL, total_energy_j REAL, perplexity REAL, fp16_perplexity REAL,
  delta_perplexity_pct REAL, quality_tokens_evaluated INTEGER, quality_seq_len INTEGER,
  quality_corpus_sha256 TEXT, basis TEXT, measurement_source TEXT, n_trials INTEGER,
  session TEXT, source_path TEXT, source_format TEXT, weight_format TEXT,
  versions TEXT NOT NULL, row_hash TEXT NOT NULL
);
CREATE INDEX runs_configuration ON runs(gpu, model, params_b, precision, weight_format, session);
PRAGMA user_version=1;
)";

// A version-1 file holding `row` (hashed as version 1 hashed it: the same as row_hash() for a row
// without the fields version 2 added).
void write_v1_store(const std::filesystem::path& path, const RunRow& row) {
  ASSERT_FALSE(row.mean_kl_vs_fp16 || row.top1_agreement_vs_fp16);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, kSchemaV1, nullptr, nullptr, nullptr), SQLITE_OK);
  const std::string insert = fmt::format(
      "INSERT INTO runs (run_id, gpu, model, params_b, precision, energy_j_per_1k_tok, "
      "vs_fp16_energy_pct, perplexity, basis, session, versions, row_hash) VALUES ('{}', '{}', "
      "'{}', {}, '{}', {}, {}, {}, '{}', '{}', '{{}}', '{}')",
      row.run_id, row.gpu, row.model, *row.params_b, row.precision, *row.energy_j_per_1k_tok,
      *row.vs_fp16_energy_pct, *row.perplexity, row.basis, row.session, row_hash(row));
  ASSERT_EQ(sqlite3_exec(db, insert.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

RunRow v1_row() {
  RunRow r;
  r.run_id = "old-run";
  r.gpu = "NVIDIA H200";
  r.model = "Qwen/Qwen2-7B";
  r.params_b = 7.0;
  r.precision = "NF4";
  r.energy_j_per_1k_tok = 1350.7;
  r.vs_fp16_energy_pct = -46.1;
  r.perplexity = 3.5;
  r.basis = "measured";
  r.session = "2026-09-01";
  return r;
}

TEST(Store, MigratesVersionOneInPlaceKeepingItsRuns) {
  test::ScratchDir dir;
  const auto path = dir / "v1.sqlite";
  const RunRow old = v1_row();
  write_v1_store(path, old);
  {
    Store store = Store::open(path);
    EXPECT_EQ(store.schema_version(), 2);
    const auto back = store.runs();
    ASSERT_EQ(back.size(), 1u);
    expect_same(old, back[0]);
    EXPECT_FALSE(back[0].mean_kl_vs_fp16.has_value()) << "a migrated run has NULL, never 0";
    EXPECT_FALSE(back[0].top1_agreement_vs_fp16.has_value());
    // The same run re-ingested without the new fields is unchanged; with them it is updated.
    EXPECT_EQ(store.ingest(std::vector{old}).unchanged, 1u);
    RunRow with_quality = old;
    with_quality.mean_kl_vs_fp16 = 3.19;
    with_quality.top1_agreement_vs_fp16 = 0.232;
    const IngestStats s = store.ingest(std::vector{with_quality});
    EXPECT_EQ(s.updated, 1u);
    EXPECT_EQ(s.inserted, 0u);
  }
  // Reopened, the version-2 file is used as it is; the new values persisted.
  Store store = Store::open(path);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  const auto back = store.runs();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_DOUBLE_EQ(*back[0].mean_kl_vs_fp16, 3.19);
  EXPECT_DOUBLE_EQ(*back[0].top1_agreement_vs_fp16, 0.232);
  EXPECT_DOUBLE_EQ(*back[0].energy_j_per_1k_tok, 1350.7);
}

TEST(Store, MigrationThatFailsLeavesVersionOneIntact) {
  test::ScratchDir dir;
  const auto path = dir / "v1.sqlite";
  write_v1_store(path, v1_row());
  // A column of the new name already there (a hand-edited file): the ALTER fails, and the
  // transaction leaves the file at version 1 with its run.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE runs ADD COLUMN top1_agreement_vs_fp16 TEXT", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  try {
    Store::open(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("duplicate column"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("upgrading the store from schema version 1 to 2"));
  }
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT (SELECT COUNT(*) FROM runs), "
                               "(SELECT COUNT(*) FROM pragma_table_info('runs') WHERE "
                               "name = 'mean_kl_vs_fp16'), (SELECT user_version FROM "
                               "pragma_user_version)",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 1) << "the run is still there";
  EXPECT_EQ(sqlite3_column_int(st, 1), 0) << "the first ALTER was rolled back";
  EXPECT_EQ(sqlite3_column_int(st, 2), 1) << "still version 1";
  sqlite3_finalize(st);
  sqlite3_close(db);
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
