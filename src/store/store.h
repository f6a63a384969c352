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

inline constexpr int kSchemaVersion = 1;

// $XDG_DATA_HOME/ecocompute/results.sqlite, else ~/.local/share/ecocompute/results.sqlite.
std::filesystem::path default_db_path();

struct IngestStats {
  size_t inserted = 0;
  size_t updated = 0;    // same run id, different content: the newer row replaces the old one
  size_t unchanged = 0;  // same run id, same content
};

class Store {
 public:
  // Opens (creating the file, its directory and the schema when needed). Refuses a database written
  // by a newer schema. The path ":memory:" gives a private in-memory store.
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

  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

// The content hash ingest compares: every field but source_path (the same report copied elsewhere
// is the same run).
std::string row_hash(const RunRow& row);

}  // namespace ec::store
