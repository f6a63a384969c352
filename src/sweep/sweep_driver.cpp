// Lock, manifest, run or emit or collect, store.
#include "sweep/sweep_driver.h"

#include <sys/statvfs.h>

#include <fmt/format.h>

#include "analysis/import.h"
#include "core/error.h"
#include "core/file_io.h"
#include "report/run_record.h"
#include "store/store.h"
#include "sweep/dir_lock.h"
#include "sweep/resume.h"

namespace ec::sweep {

namespace {

// SQLite reports a full file system as "disk I/O error" when its WAL cannot grow; say what it is.
std::string space_hint(const std::filesystem::path& file) {
  const auto dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return {};
  const unsigned long long free_bytes =
      static_cast<unsigned long long>(st.f_bavail) * static_cast<unsigned long long>(st.f_frsize);
  if (free_bytes >= (1ull << 20)) return {};
  return fmt::format(" ({} has only {} bytes free: the disk is full)", dir.string(), free_bytes);
}

store::Store open_store(const std::filesystem::path& db) {
  try {
    return store::Store::open(db);
  } catch (const Error& e) {
    fail("{}{}", e.what(), space_hint(db));
  }
}

void ingest(store::Store& store, std::span<const store::RunRow> rows) {
  try {
    store.ingest(rows);
  } catch (const Error& e) {
    fail("{}{}", e.what(), space_hint(store.path()));
  }
}

}  // namespace

Manifest open_manifest(const std::filesystem::path& dir, const SweepSpec& spec,
                       const std::string& session) {
  std::optional<Manifest> existing = load_manifest(dir);
  if (!existing) {
    Manifest m = new_manifest(spec, session);
    if (m.session.empty()) m.session = "sweep-" + m.created_utc.substr(0, 19) + "Z";
    return m;
  }
  const auto differences = spec_differences(existing->spec, spec);
  if (!differences.empty()) {
    std::string list;
    for (const auto& d : differences) list += "\n  " + d;
    fail_usage(
        "{}: this command line describes a different sweep than the one there:{}\n"
        "Repeat the original command to resume it, or choose another --out for a new sweep.",
        manifest_path(dir).string(), list);
  }
  if (!session.empty() && session != existing->session) {
    fail_usage("{}: --session {} differs from the sweep's session '{}'",
               manifest_path(dir).string(), session, existing->session);
  }
  return std::move(*existing);
}

std::filesystem::path sweep_db_path(const std::filesystem::path& dir,
                                    const std::filesystem::path& db) {
  return db.empty() ? dir / "store.sqlite" : db;
}

CollectedRuns read_done_reports(Manifest& m, const std::filesystem::path& dir) {
  CollectedRuns out;
  for (auto& c : m.cells) {
    if (c.state != CellState::done) continue;
    const auto path = dir / c.report();
    try {
      store::RunRow row = analysis::import_report(read_file(path), path);
      row.session = m.session;
      c.run_id = row.run_id;
      out.rows.push_back(std::move(row));
    } catch (const Error& e) {
      out.problems.push_back(
          fmt::format("{}: {}; the cell is pending again", c.config.id, e.what()));
      c.state = CellState::pending;
    }
  }
  return out;
}

SweepRun run_sweep(const RunRequest& request) {
  DirLock lock(request.dir);
  SweepRun out;
  out.manifest = open_manifest(request.dir, request.spec, request.session);
  out.notes = prepare_resume(out.manifest, request.dir, {.retry_failed = request.retry_failed});
  save_manifest(request.dir, out.manifest);  // a read-only or full disk stops here, before any run
  out.db = sweep_db_path(request.dir, request.db);
  store::Store store = open_store(out.db);
  LocalRunOptions local = request.local;
  local.dir = request.dir;
  local.on_report = [&](const store::RunRow& row) {
    ingest(store, std::span<const store::RunRow>(&row, 1));
  };
  out.run = run_local(out.manifest, local);
  out.collected = read_done_reports(out.manifest, request.dir);
  save_manifest(request.dir, out.manifest);
  ingest(store, out.collected.rows);
  return out;
}

EmitResult emit_slurm(const std::filesystem::path& dir, const SweepSpec& spec,
                      const std::string& session, const SlurmOptions& options) {
  DirLock lock(dir);
  EmitResult out;
  out.manifest = open_manifest(dir, spec, session);
  out.notes = fold_cell_status(out.manifest, dir);
  for (auto& c : out.manifest.cells) {
    if (c.state == CellState::running) out.running.push_back(c.config.id);
  }
  out.cells = unfinished_cells(out.manifest);
  const std::string script = slurm_script(out.manifest, out.cells, dir, options);
  std::error_code ec;
  std::filesystem::create_directories(dir / "slurm", ec);
  if (ec) fail("{}: cannot create: {}", (dir / "slurm").string(), ec.message());
  save_manifest(dir, out.manifest);
  out.script = dir / "sweep.sbatch";
  write_file_atomic(out.script, script);
  std::filesystem::permissions(out.script, std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add, ec);
  return out;
}

SweepRun collect(const std::filesystem::path& dir, const std::filesystem::path& db) {
  DirLock lock(dir);
  SweepRun out;
  std::optional<Manifest> m = load_manifest(dir);
  if (!m) fail("{}: no sweep manifest here (manifest.json)", dir.string());
  out.manifest = std::move(*m);
  out.notes = fold_cell_status(out.manifest, dir);
  out.collected = read_done_reports(out.manifest, dir);
  save_manifest(dir, out.manifest);
  out.db = sweep_db_path(dir, db);
  store::Store store = open_store(out.db);
  ingest(store, out.collected.rows);
  return out;
}

}  // namespace ec::sweep
