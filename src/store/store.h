// The results store: an SQLite database of runs keyed by run id. Ingest is idempotent (re-ingesting
// the same run changes nothing), each call is one transaction, the file is in WAL mode and carries
// its schema version in PRAGMA user_version.
#pragma once

#include <filesystem>
#include <span>
#include <vector>

#include "store/run_row.h"

struct sqlite3;

namespace ec::store {

// 1: the first layout; 2: adds mean_kl_vs_fp16 and top1_agreement_vs_fp16 (NULL for older runs).
inline constexpr int kSchemaVersion = 2;

// $XDG_DATA_HOME/ecocompute/results.sqlite, else ~/.local/share/ecocompute/results.sqlite.
std::filesystem::path default_db_path();

struct IngestStats {
  size_t inserted = 0;
  size_t updated = 0;    // same run id, different content: the newer row replaces the old one
  size_t unchanged = 0;  // same run id, same content
};

class Store {
 public:
  // Opens (creating the file, its directory and the schema when needed). An older schema is
  // upgraded in place, in one transaction (its runs keep their data; new columns are NULL); a
  // newer one is refused. The path ":memory:" gives a private in-memory store.
  static Store open(const std::filesystem::path& path);
  static Store in_memory() { return open(":memory:"); }

  Store(Store&& other) noexcept;
  Store& operator=(Store&& other) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  IngestStats ingest(std::span<const RunRow> rows);
  std::vector<RunRow> runs() const;
  size_t count() const;
  int schema_version() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  Store(sqlite3* db, std::filesystem::path path) : db_(db), path_(std::move(path)) {}
  void exec(const char* sql) const;
  void upgrade();  // a new file to the current schema, or an older schema migrated in place

  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

// The content hash ingest compares: every field but source_path (the same report copied elsewhere
// is the same run). A field added by a later schema counts only when present, so a run stored
// before that schema and re-ingested without the field stays unchanged.
std::string row_hash(const RunRow& row);

}  // namespace ec::store
