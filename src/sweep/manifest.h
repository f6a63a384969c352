// The sweep manifest (DIR/manifest.json): the spec and every cell's state, rewritten atomically
// after each change so a killed sweep leaves an exact record of what finished.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/sweep_spec.h"

namespace ec::sweep {

enum class CellState { pending, running, done, failed };
std::string_view state_name(CellState s);
// Throws ec::Error naming the text and the accepted values.
CellState parse_state(std::string_view text);

struct Cell {
  CellConfig config;
  CellState state = CellState::pending;
  int attempts = 0;                       // times a child was started for this cell
  std::optional<int> gpu;                 // GPU index (the sweep's numbering) of the last attempt
  std::string host;                       // where the last attempt ran
  std::string started_utc, finished_utc;  // of the last attempt
  std::optional<double> seconds;          // wall time of the last attempt
  std::optional<int> exit_status;         // the child's exit status, when it exited
  std::optional<int> signal;              // the signal that ended it, when one did
  std::string error;                      // why it failed, one line
  std::string run_id;                     // the report's run id (store key), when done
  std::string slurm_job;                  // "JOB_TASK" when a Slurm array task ran it

  // Relative to the sweep directory, so the directory can move (shared storage, copies).
  std::filesystem::path dir() const { return std::filesystem::path("cells") / config.id; }
  std::filesystem::path report() const { return dir() / "energy.json"; }
  std::filesystem::path log() const { return dir() / "run.log"; }
  std::filesystem::path status() const { return dir() / "status.json"; }
};

struct Manifest {
  SweepSpec spec;
  std::string session;  // the store session every run of this sweep is ingested under
  std::string created_utc;
  std::string updated_utc;
  std::vector<Cell> cells;

  Cell* find(std::string_view id);
  size_t count(CellState s) const;
};

inline constexpr std::string_view kManifestFormat = "ecocompute-sweep-manifest";
inline constexpr int kManifestVersion = 1;

std::filesystem::path manifest_path(const std::filesystem::path& dir);

// A new manifest with every cell of `spec` pending.
Manifest new_manifest(const SweepSpec& spec, std::string session);

nlohmann::json to_json(const Manifest& m);
nlohmann::json to_json(const Cell& c);
// Throws ec::Error naming `where` and the field.
Manifest manifest_from_json(const nlohmann::json& j, const std::string& where);
void cell_result_from_json(const nlohmann::json& j, Cell& c, const std::string& where);

// nullopt when DIR has no manifest; throws ec::Error for an unreadable or malformed one.
std::optional<Manifest> load_manifest(const std::filesystem::path& dir);
// write_file_atomic; stamps updated_utc.
void save_manifest(const std::filesystem::path& dir, Manifest& m);

}  // namespace ec::sweep
