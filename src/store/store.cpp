// SQLite-backed store of RunRows; one column per RunRow field plus the version stack as JSON.
#include "store/store.h"

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

#include "core/error.h"
#include "core/sha256.h"

namespace ec::store {
namespace {

// Statement handle that finalizes itself; errors name the database file and the SQLite reason.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::filesystem::path& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
      fail("{}: cannot prepare SQL: {}", path.string(), sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }
  void reset() const {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  void bind(int index, const Value& v) const {
    if (auto* s = std::get_if<std::string>(&v)) {
      sqlite3_bind_text(stmt_, index, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
    } else if (auto* d = std::get_if<double>(&v)) {
      sqlite3_bind_double(stmt_, index, *d);
    } else if (auto* i = std::get_if<int64_t>(&v)) {
      sqlite3_bind_int64(stmt_, index, *i);
    } else {
      sqlite3_bind_null(stmt_, index);
    }
  }
  void bind_text(int index, const std::string& s) const { bind(index, Value{s}); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// The stored columns: every non-version field of RunRow, then the whole version map as JSON.
std::vector<const RunField*> stored_fields() {
  std::vector<const RunField*> out;
  for (const auto& f : run_fields()) {
    if (!f.version) out.push_back(&f);
  }
  return out;
}

const char* sql_type(FieldKind kind) {
  switch (kind) {
    case FieldKind::real:
      return "REAL";
    case FieldKind::integer:
      return "INTEGER";
    case FieldKind::text:
      break;
  }
  return "TEXT";
}

std::string create_sql() {
  std::string cols;
  for (const auto* f : stored_fields()) {
    cols += fmt::format("  {} {}{},\n", f->name, sql_type(f->kind),
                        f->name == "run_id" ? " PRIMARY KEY NOT NULL" : "");
  }
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS runs (\n{}  versions TEXT NOT NULL,\n  row_hash TEXT NOT "
      "NULL\n);\n"
      "CREATE INDEX IF NOT EXISTS runs_configuration ON runs(gpu, model, params_b, precision, "
      "weight_format, session);",
      cols);
}

std::string versions_json(const RunRow& row) {
  return nlohmann::json(row.versions).dump();
}

}  // namespace

std::filesystem::path default_db_path() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    return std::filesystem::path(xdg) / "ecocompute" / "results.sqlite";
  }
  const char* home = std::getenv("HOME");
  if (!home || !*home) fail("cannot find a default store: HOME is not set (use --db PATH)");
  return std::filesystem::path(home) / ".local" / "share" / "ecocompute" / "results.sqlite";
}

std::string row_hash(const RunRow& row) {
  std::string s;
  for (const auto& f : run_fields()) {
    if (f.name == "source_path") continue;
    const Value v = f.get(row);
    s += f.name;
    s += '=';
    if (auto* t = std::get_if<std::string>(&v)) {
      s += *t;
    } else if (auto* d = std::get_if<double>(&v)) {
      s += fmt::format("{}", *d);
    } else if (auto* i = std::get_if<int64_t>(&v)) {
      s += std::to_string(*i);
    }
    s += '\x1f';
  }
  s += versions_json(row);
  return sha256_hex(s);
}

Store Store::open(const std::filesystem::path& path) {
  const bool memory = path == ":memory:";
  if (!memory && path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) fail("{}: cannot create the store's directory: {}", path.string(), ec.message());
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    fail("{}: cannot open the results store: {}", path.string(), why);
  }
  Store store(db, path);
  sqlite3_busy_timeout(db, 5000);
  const int version = store.schema_version();
  if (version > kSchemaVersion) {
    fail("{}: store schema version {} is newer than this ecocompute understands ({}); upgrade",
         path.string(), version, kSchemaVersion);
  }
  if (!memory) {
    store.exec("PRAGMA journal_mode=WAL");
    store.exec("PRAGMA synchronous=NORMAL");
  }
  if (version < kSchemaVersion) {
    // Version 0 is a new file; later schema versions add their migrations here, in order.
    store.exec("BEGIN IMMEDIATE");
    store.exec(create_sql().c_str());
    store.exec(fmt::format("PRAGMA user_version={}", kSchemaVersion).c_str());
    store.exec("COMMIT");
  }
  return store;
}

Store::Store(Store&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) {
  other.db_ = nullptr;
}

Store& Store::operator=(Store&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = other.db_;
    path_ = std::move(other.path_);
    other.db_ = nullptr;
  }
  return *this;
}

Store::~Store() {
  sqlite3_close(db_);
}

void Store::exec(const char* sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string why = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    fail("{}: {}", path_.string(), why);
  }
}

int Store::schema_version() const {
  Statement st(db_, "PRAGMA user_version", path_);
  if (sqlite3_step(st.get()) != SQLITE_ROW)
    fail("{}: cannot read the schema version", path_.string());
  return sqlite3_column_int(st.get(), 0);
}

IngestStats Store::ingest(std::span<const RunRow> rows) {
  const auto fields = stored_fields();
  std::string names;
  std::string marks;
  for (const auto* f : fields) {
    names += std::string(f->name) + ",";
    marks += "?,";
  }
  // An update keeps the row's place (rowid), so listings stay in first-ingest order; a row whose
  // content hash is unchanged is not written at all (sqlite3_changes() = 0).
  std::string updates;
  for (const auto* f : fields) {
    if (f->name != "run_id") updates += fmt::format("{0}=excluded.{0},", f->name);
  }
  Statement upsert(
      db_,
      fmt::format("INSERT INTO runs ({}versions,row_hash) VALUES ({}?,?) ON "
                  "CONFLICT(run_id) DO UPDATE SET {}versions=excluded.versions,"
                  "row_hash=excluded.row_hash WHERE runs.row_hash <> excluded.row_hash",
                  names, marks, updates),
      path_);
  IngestStats stats;
  exec("BEGIN IMMEDIATE");
  try {
    const size_t before = count();
    size_t written = 0;
    for (const auto& row : rows) {
      if (row.run_id.empty()) fail("{}: a run without a run id cannot be stored", row.source_path);
      upsert.reset();
      int index = 1;
      for (const auto* f : fields) upsert.bind(index++, f->get(row));
      upsert.bind_text(index++, versions_json(row));
      upsert.bind_text(index, row_hash(row));
      if (sqlite3_step(upsert.get()) != SQLITE_DONE) {
        fail("{}: cannot store run '{}': {}", path_.string(), row.run_id, sqlite3_errmsg(db_));
      }
      written += static_cast<size_t>(sqlite3_changes(db_));
    }
    // New rows raise the count; the other writes replaced changed rows.
    stats.inserted = count() - before;
    stats.updated = written - stats.inserted;
    stats.unchanged = rows.size() - written;
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return stats;
}

std::vector<RunRow> Store::runs() const {
  const auto fields = stored_fields();
  std::string names;
  for (const auto* f : fields) names += std::string(f->name) + ",";
  Statement st(db_, fmt::format("SELECT {}versions FROM runs ORDER BY rowid", names), path_);
  std::vector<RunRow> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    RunRow row;
    int col = 0;
    for (const auto* f : fields) {
      Value v;
      switch (sqlite3_column_type(st.get(), col)) {
        case SQLITE_INTEGER:
          v = static_cast<int64_t>(sqlite3_column_int64(st.get(), col));
          break;
        case SQLITE_FLOAT:
          v = sqlite3_column_double(st.get(), col);
          break;
        case SQLITE_TEXT:
          v = std::string(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), col)));
          break;
        default:
          break;
      }
      f->set(row, v);
      ++col;
    }
    const auto* versions = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), col));
    if (versions) {
      row.versions = nlohmann::json::parse(versions).get<std::map<std::string, std::string>>();
    }
    out.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) fail("{}: reading runs failed: {}", path_.string(), sqlite3_errmsg(db_));
  return out;
}

size_t Store::count() const {
  Statement st(db_, "SELECT COUNT(*) FROM runs", path_);
  if (sqlite3_step(st.get()) != SQLITE_ROW) fail("{}: cannot count runs", path_.string());
  return static_cast<size_t>(sqlite3_column_int64(st.get(), 0));
}

}  // namespace ec::store
