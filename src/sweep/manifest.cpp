// Manifest JSON: reading it back strictly (a sweep resumes from it), writing it atomically.
#include "sweep/manifest.h"

#include <array>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_depth.h"
#include "report/run_record.h"

namespace ec::sweep {
namespace {

constexpr std::array<std::string_view, 4> kStateNames = {"pending", "running", "done", "failed"};

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> opt(const nlohmann::json& j, const char* name) {
  if (!j.contains(name) || j.at(name).is_null()) return std::nullopt;
  return j.at(name).get<T>();
}

std::string text(const nlohmann::json& j, const char* name) {
  if (!j.contains(name) || j.at(name).is_null()) return {};
  return j.at(name).get<std::string>();
}

}  // namespace

std::string_view state_name(CellState s) {
  return kStateNames[static_cast<size_t>(s)];
}

CellState parse_state(std::string_view t) {
  for (size_t i = 0; i < kStateNames.size(); ++i) {
    if (kStateNames[i] == t) return static_cast<CellState>(i);
  }
  fail("cell state '{}': expected pending, running, done or failed", t);
}

Cell* Manifest::find(std::string_view id) {
  for (auto& c : cells) {
    if (c.config.id == id) return &c;
  }
  return nullptr;
}

size_t Manifest::count(CellState s) const {
  size_t n = 0;
  for (const auto& c : cells) n += c.state == s ? 1 : 0;
  return n;
}

std::filesystem::path manifest_path(const std::filesystem::path& dir) {
  return dir / "manifest.json";
}

Manifest new_manifest(const SweepSpec& spec, std::string session) {
  Manifest m;
  m.spec = spec;
  m.session = std::move(session);
  m.created_utc = report::utc_timestamp_now();
  for (auto& config : expand_cells(spec)) {
    Cell c;
    c.config = std::move(config);
    m.cells.push_back(std::move(c));
  }
  return m;
}

nlohmann::json to_json(const Cell& c) {
  return {{"id", c.config.id},
          {"model", c.config.model},
          {"precision", c.config.precision},
          {"new_tokens", c.config.new_tokens},
          {"replicate", c.config.replicate},
          {"state", state_name(c.state)},
          {"attempts", c.attempts},
          {"gpu", or_null(c.gpu)},
          {"host", c.host},
          {"started_utc", c.started_utc},
          {"finished_utc", c.finished_utc},
          {"seconds", or_null(c.seconds)},
          {"exit_status", or_null(c.exit_status)},
          {"signal", or_null(c.signal)},
          {"error", c.error},
          {"run_id", c.run_id},
          {"slurm_job", c.slurm_job},
          {"report", c.report().string()},
          {"log", c.log().string()}};
}

nlohmann::json to_json(const Manifest& m) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : m.cells) cells.push_back(to_json(c));
  return {{"format", kManifestFormat},
          {"version", kManifestVersion},
          {"session", m.session},
          {"created_utc", m.created_utc},
          {"updated_utc", m.updated_utc},
          {"spec", to_json(m.spec)},
          {"cells", cells}};
}

void cell_result_from_json(const nlohmann::json& j, Cell& c, const std::string& where) {
  try {
    c.state = parse_state(j.at("state").get<std::string>());
    c.attempts = j.value("attempts", 0);
    c.gpu = opt<int>(j, "gpu");
    c.host = text(j, "host");
    c.started_utc = text(j, "started_utc");
    c.finished_utc = text(j, "finished_utc");
    c.seconds = opt<double>(j, "seconds");
    c.exit_status = opt<int>(j, "exit_status");
    c.signal = opt<int>(j, "signal");
    c.error = text(j, "error");
    c.run_id = text(j, "run_id");
    c.slurm_job = text(j, "slurm_job");
  } catch (const nlohmann::json::exception& e) {
    fail("{}: cell '{}': {}", where, c.config.id, e.what());
  } catch (const Error& e) {
    fail("{}: cell '{}': {}", where, c.config.id, e.what());
  }
}

Manifest manifest_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
      j["format"].get<std::string>() != kManifestFormat) {
    fail("{}: not an ecocompute sweep manifest (field 'format' is not '{}')", where,
         kManifestFormat);
  }
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int64_t>() != kManifestVersion) {
    fail("{}: field 'version' is {}, expected {}", where,
         j.contains("version") ? j["version"].dump().substr(0, 40) : "absent", kManifestVersion);
  }
  for (const char* key : {"session", "created_utc", "updated_utc"}) {
    if (j.contains(key) && !j[key].is_string()) fail("{}: field '{}' must be a string", where, key);
  }
  Manifest m;
  m.spec = spec_from_json(j.value("spec", nlohmann::json()), where);
  m.session = j.value("session", "");
  m.created_utc = j.value("created_utc", "");
  m.updated_utc = j.value("updated_utc", "");
  // The cells must be exactly the spec's: ids are derived, never trusted from the file.
  std::vector<CellConfig> expected;
  try {
    expected = expand_cells(m.spec);
  } catch (const Error& e) {  // the spec's limits are the command line's; name the file here
    fail("{}: field 'spec': {}", where, e.what());
  }
  const auto& cells = j.value("cells", nlohmann::json::array());
  if (!cells.is_array() || cells.size() != expected.size()) {
    fail("{}: 'cells' has {} entries, the spec expands to {}", where,
         cells.is_array() ? cells.size() : 0, expected.size());
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    Cell c;
    c.config = expected[i];
    if (!cells[i].is_object()) fail("{}: cells[{}] is not an object", where, i);
    if (!cells[i].contains("id") || !cells[i]["id"].is_string()) {
      fail("{}: cells[{}] has no 'id' string", where, i);
    }
    if (cells[i].value("id", "") != c.config.id) {
      fail("{}: cells[{}] has id '{}', the spec expects '{}'", where, i, cells[i].value("id", ""),
           c.config.id);
    }
    cell_result_from_json(cells[i], c, where);
    m.cells.push_back(std::move(c));
  }
  return m;
}

std::optional<Manifest> load_manifest(const std::filesystem::path& dir) {
  const auto path = manifest_path(dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  nlohmann::json j;
  try {
    // A manifest of 100,000 cells is ~60 MiB.
    j = parse_json_nested_at_most(read_file_at_most(path, 256u << 20, "sweep manifest"),
                                  path.string());
  } catch (const nlohmann::json::exception& e) {  // bad syntax, or a number beyond double
    fail("{}: not valid JSON: {}", path.string(), e.what());
  }
  return manifest_from_json(j, path.string());
}

void save_manifest(const std::filesystem::path& dir, Manifest& m) {
  m.updated_utc = report::utc_timestamp_now();
  try {
    write_file_atomic(manifest_path(dir), to_json(m).dump(2) + "\n");
  } catch (const Error& e) {
    // The inner message names the temp file; the user needs to know which file could not be saved.
    fail("{}: cannot save the sweep manifest (the previous one is intact): {}",
         manifest_path(dir).string(), e.what());
  }
}

}  // namespace ec::sweep
