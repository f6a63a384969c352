// CPU package and DRAM energy from Linux powercap (intel-rapl), with counter wraparound.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ec::meter {

// One RAPL zone we count: a package ("package-0") or its "dram" subzone (core/uncore are inside
// the package and never added to it).
struct RaplZone {
  std::string name;           // "package-0", "package-0/dram"
  std::filesystem::path dir;  // .../intel-rapl:0 or .../intel-rapl:0:2
  unsigned long long max_range_uj = 0;
  bool dram = false;
};

// Energy since `before`, in joules, for a counter that wraps to zero past max_range_uj.
double rapl_delta_j(unsigned long long before_uj, unsigned long long after_uj,
                    unsigned long long max_range_uj);

class RaplReader {
 public:
  // Scans root for intel-rapl:* zones; never throws. root is /sys/class/powercap normally.
  explicit RaplReader(std::filesystem::path root = "/sys/class/powercap");

  bool available() const { return reason_.empty(); }
  // Why not: no zones, or energy_uj unreadable (root-only on most kernels since 5.10).
  const std::string& reason() const { return reason_; }
  const std::vector<RaplZone>& zones() const { return zones_; }

  // energy_uj of every zone now, same order as zones(); nullopt entries where a read failed.
  std::vector<std::optional<unsigned long long>> read() const;
  // Joules per zone between two reads: {"package_j": ..., "dram_j": ..., "zones": {...}}; a zone
  // whose either read failed is left out and named under "unreadable".
  nlohmann::json energy_between(const std::vector<std::optional<unsigned long long>>& before,
                                const std::vector<std::optional<unsigned long long>>& after) const;
  nlohmann::json describe() const;

 private:
  std::filesystem::path root_;
  std::vector<RaplZone> zones_;
  std::string reason_;
};

}  // namespace ec::meter
