// RAPL through /sys/class/powercap: zone discovery, energy_uj reads and wraparound.
#include "meter/rapl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace ec::meter {
namespace {

std::optional<std::string> read_line(const std::filesystem::path& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = fmt::format("{}: {}", path.string(), std::strerror(errno));
    return std::nullopt;
  }
  std::string line;
  std::getline(in, line);
  if (in.bad()) {
    if (error) *error = fmt::format("{}: read error", path.string());
    return std::nullopt;
  }
  return line;
}

std::optional<unsigned long long> read_u64(const std::filesystem::path& path, std::string* error) {
  auto line = read_line(path, error);
  if (!line) return std::nullopt;
  try {
    size_t used = 0;
    unsigned long long v = std::stoull(*line, &used);
    return v;
  } catch (const std::exception&) {
    if (error) *error = fmt::format("{}: '{}' is not a number", path.string(), *line);
    return std::nullopt;
  }
}

}  // namespace

double rapl_delta_j(unsigned long long before_uj, unsigned long long after_uj,
                    unsigned long long max_range_uj) {
  unsigned long long delta =
      after_uj >= before_uj ? after_uj - before_uj : max_range_uj - before_uj + after_uj;
  return static_cast<double>(delta) * 1e-6;
}

RaplReader::RaplReader(std::filesystem::path root) : root_(std::move(root)) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root_, ec)) {
    reason_ =
        fmt::format("{} does not exist: no powercap interface on this machine", root_.string());
    return;
  }
  std::vector<std::filesystem::path> packages;
  for (const auto& entry : std::filesystem::directory_iterator(root_, ec)) {
    std::string name = entry.path().filename().string();
    // Top-level "intel-rapl:N" is a package; "intel-rapl:N:M" are its subzones.
    if (name.rfind("intel-rapl:", 0) == 0 && std::count(name.begin(), name.end(), ':') == 1) {
      packages.push_back(entry.path());
    }
  }
  std::sort(packages.begin(), packages.end());
  if (packages.empty()) {
    reason_ = fmt::format("no intel-rapl:* zones under {}: RAPL is not exposed on this machine",
                          root_.string());
    return;
  }
  std::string error;
  for (const auto& dir : packages) {
    auto add = [&](const std::filesystem::path& zone_dir, const std::string& label, bool dram) {
      RaplZone zone{label, zone_dir, 0, dram};
      auto range = read_u64(zone_dir / "max_energy_range_uj", &error);
      auto energy = read_u64(zone_dir / "energy_uj", &error);
      if (!range || !energy) return false;
      zone.max_range_uj = *range;
      zones_.push_back(zone);
      return true;
    };
    std::string pkg_name = read_line(dir / "name", nullptr).value_or(dir.filename().string());
    if (!add(dir, pkg_name, false)) {
      reason_ = fmt::format("RAPL energy unreadable ({}); reading it usually needs root", error);
      zones_.clear();
      return;
    }
    for (const auto& sub : std::filesystem::directory_iterator(dir, ec)) {
      std::string sub_name = sub.path().filename().string();
      if (sub_name.rfind(dir.filename().string() + ":", 0) != 0) continue;
      if (read_line(sub.path() / "name", nullptr).value_or("") != "dram") continue;
      add(sub.path(), pkg_name + "/dram", true);  // an unreadable dram zone is just left out
    }
  }
}

std::vector<std::optional<unsigned long long>> RaplReader::read() const {
  std::vector<std::optional<unsigned long long>> out;
  out.reserve(zones_.size());
  for (const auto& zone : zones_) out.push_back(read_u64(zone.dir / "energy_uj", nullptr));
  return out;
}

nlohmann::json RaplReader::energy_between(
    const std::vector<std::optional<unsigned long long>>& before,
    const std::vector<std::optional<unsigned long long>>& after) const {
  nlohmann::json out = {{"source", "rapl_powercap"}};
  if (!available()) {
    out["available"] = false;
    out["reason"] = reason_;
    return out;
  }
  double package = 0.0, dram = 0.0;
  bool any_package = false, any_dram = false;
  nlohmann::json zones = nlohmann::json::object();
  nlohmann::json unreadable = nlohmann::json::array();
  for (size_t i = 0; i < zones_.size(); ++i) {
    if (i >= before.size() || i >= after.size() || !before[i] || !after[i]) {
      unreadable.push_back(zones_[i].name);
      continue;
    }
    double j = rapl_delta_j(*before[i], *after[i], zones_[i].max_range_uj);
    zones[zones_[i].name] = j;
    (zones_[i].dram ? dram : package) += j;
    (zones_[i].dram ? any_dram : any_package) = true;
  }
  out["available"] = true;
  if (any_package) out["package_j"] = package;
  if (any_dram) out["dram_j"] = dram;
  out["zones"] = zones;
  if (!unreadable.empty()) out["unreadable"] = unreadable;
  return out;
}

nlohmann::json RaplReader::describe() const {
  nlohmann::json out = {{"root", root_.string()}, {"available", available()}};
  if (!available()) {
    out["reason"] = reason_;
    return out;
  }
  nlohmann::json zones = nlohmann::json::array();
  for (const auto& z : zones_) {
    zones.push_back({{"name", z.name}, {"max_energy_range_uj", z.max_range_uj}});
  }
  out["zones"] = zones;
  return out;
}

}  // namespace ec::meter
