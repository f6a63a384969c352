// SQLite-backed store of RunRows; one column per RunRow field plus the version stack as JSON.
#include "store/store.h"

#include <unistd.h>

#include <openssl/evp.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/sha256.h"
#include "store/json_doc.h"

namespace ec::store {
namespace {

// Statement handle that finalizes itself; errors name the database file and the SQLite reason.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::filesystem::path& path) {
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
  // `lifetime` SQLITE_STATIC when the caller keeps `v` alive until the statement is reset.
  void bind(int index, const Value& v, sqlite3_destructor_type lifetime = SQLITE_TRANSIENT) const {
    if (auto* s = std::get_if<std::string>(&v)) {
      sqlite3_bind_text64(stmt_, index, s->data(), s->size(), lifetime, SQLITE_UTF8);
    } else if (auto* d = std::get_if<double>(&v)) {
      sqlite3_bind_double(stmt_, index, *d);
    } else if (auto* i = std::get_if<int64_t>(&v)) {
      sqlite3_bind_int64(stmt_, index, *i);
    } else {
      sqlite3_bind_null(stmt_, index);
    }
  }
  void bind_text(int index, const std::string& s) const {
    sqlite3_bind_text64(stmt_, index, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  }

 private:
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

// Text nlohmann's dump() writes unchanged between quotes: printable ASCII but '"' and '\\'.
bool plain_ascii(std::string_view s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') return false;
  }
  return true;
}

// The version stack as compact JSON, byte for byte what nlohmann's dump() writes (row_hash and the
// stored column depend on it): written directly for plain ASCII, through nlohmann otherwise.
std::string versions_json(const RunRow& row) {
  bool plain = true;
  size_t size = 2;
  for (const auto& [k, v] : row.versions) {
    plain = plain && plain_ascii(k) && plain_ascii(v);
    size += k.size() + v.size() + 6;
  }
  if (!plain) {
    // Importers give UTF-8; text that is not (a hand-built row) is replaced rather than thrown on.
    return nlohmann::json(row.versions)
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string out;
  out.reserve(size);
  out += '{';
  for (const auto& [k, v] : row.versions) {
    if (out.size() > 1) out += ',';
    out += '"';
    out += k;
    out += "\":\"";
    out += v;
    out += '"';
  }
  out += '}';
  return out;
}

// The stored version stack back into the map; false when it is not an object of strings.
bool read_versions(std::string_view text, std::map<std::string, std::string>& out) {
  try {
    const JsonDoc doc = JsonDoc::parse(text);
    if (doc.type(doc.root()) != JsonDoc::Type::object) return false;
    for (const auto& [key, value] : doc.members(doc.root())) {
      if (doc.type(value) != JsonDoc::Type::string) return false;
      out.emplace(key, doc.string(value));
    }
    return true;
  } catch (const std::exception&) {  // JsonSyntaxError, or a number out of range
    return false;
  }
}

// SHA-256 in lower-case hex, with the digest fetched once: the implicit fetch inside
// EVP_Digest(EVP_sha256()) costs more than hashing a row.
std::string fast_sha256_hex(std::string_view bytes) {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (md == nullptr) return sha256_hex(bytes);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, md, nullptr) != 1) {
    return sha256_hex(bytes);  // reports OpenSSL's failure as ec::Error
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

// row_hash with the version stack's JSON already made (ingest binds the same text).
std::string row_hash_with(const RunRow& row, std::string_view versions) {
  std::string s;
  s.reserve(1024);
  for (const auto& f : run_fields()) {
    if (f.name == "source_path") continue;
    const Value v = f.get(row);
    if (f.since_schema > 1 && std::holds_alternative<std::monostate>(v)) continue;
    s += f.name;
    s += '=';
    if (auto* t = std::get_if<std::string>(&v)) {
      s += *t;
    } else if (auto* d = std::get_if<double>(&v)) {
      fmt::format_to(std::back_inserter(s), "{}", *d);
    } else if (auto* i = std::get_if<int64_t>(&v)) {
      s += std::to_string(*i);
    }
    s += '\x1f';
  }
  s += versions;
  return fast_sha256_hex(s);
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
  return row_hash_with(row, versions_json(row));
}

Store Store::open(const std::filesystem::path& path) {
  const bool memory = path == ":memory:";
  if (!memory && path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) fail("{}: cannot create the store's directory: {}", path.string(), ec.message());
  }
  // SQLite keeps its journal beside the file: a store in a directory it cannot write fails on
  // the first read with a bare "unable to open database file"; say what is wrong instead.
  if (!memory) {
    const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    if (::access(dir.c_str(), W_OK) != 0) {
      fail("{}: the store's directory {} is not writable (SQLite writes its journal there)",
           path.string(), dir.string());
    }
    if (std::filesystem::exists(path) && ::access(path.c_str(), W_OK) != 0) {
      fail("{}: the results store is not writable", path.string());
    }
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
    // Up to 64 MiB of page cache (allocated as used; the default is 2 MiB): an ingest of 100,000
    // runs touches ~100 MB of table and index pages, and a small cache writes them out repeatedly.
    store.exec("PRAGMA cache_size=-65536");
  }
  if (version < kSchemaVersion) store.upgrade();
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

void Store::upgrade() {
  exec("BEGIN IMMEDIATE");
  int version = 0;
  try {
    // Read again under the write lock: another process may have upgraded the file meanwhile.
    version = schema_version();
    if (version > kSchemaVersion) {
      fail("{}: store schema version {} is newer than this ecocompute understands ({}); upgrade",
           path_.string(), version, kSchemaVersion);
    }
    if (version == 0) {
      exec(create_sql().c_str());  // a new file gets the current layout at once
    } else if (version < kSchemaVersion) {
      // Each later schema only adds nullable columns: existing runs keep every value.
      for (const auto* f : stored_fields()) {
        if (f->since_schema > version) {
          exec(
              fmt::format("ALTER TABLE runs ADD COLUMN {} {}", f->name, sql_type(f->kind)).c_str());
        }
      }
    }
    if (version < kSchemaVersion) {
      exec(fmt::format("PRAGMA user_version={}", kSchemaVersion).c_str());
    }
    exec("COMMIT");
  } catch (const Error& e) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    if (version == 0 || version > kSchemaVersion) throw;
    fail("{} (upgrading the store from schema version {} to {}; the file is unchanged)", e.what(),
         version, kSchemaVersion);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
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
  if (sqlite3_step(st.get()) != SQLITE_ROW) {
    fail("{}: cannot read the results store: {}", path_.string(), sqlite3_errmsg(db_));
  }
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
    std::vector<Value> cells(fields.size());  // alive until the next reset: bound SQLITE_STATIC
    for (const auto& row : rows) {
      if (row.run_id.empty()) fail("{}: a run without a run id cannot be stored", row.source_path);
      upsert.reset();
      int index = 1;
      for (size_t i = 0; i < fields.size(); ++i) {
        cells[i] = fields[i]->get(row);
        upsert.bind(index++, cells[i], SQLITE_STATIC);
      }
      const std::string versions = versions_json(row);
      upsert.bind_text(index++, versions);
      upsert.bind_text(index, row_hash_with(row, versions));
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
  out.reserve(count());  // a RunRow is ~1 KB: regrowth would move every one
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
        case SQLITE_TEXT: {
          // By length, not up to the first NUL: a JSON string may hold "\u0000".
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), col));
          v = std::string(text, static_cast<size_t>(sqlite3_column_bytes(st.get(), col)));
          break;
        }
        default:
          break;
      }
      f->set(row, v);
      ++col;
    }
    const auto* versions = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), col));
    if (versions) {
      const std::string_view text(versions,
                                  static_cast<size_t>(sqlite3_column_bytes(st.get(), col)));
      if (!read_versions(text, row.versions)) {
        fail("{}: run '{}': the stored version stack is not a JSON object of strings",
             path_.string(), row.run_id);
      }
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
