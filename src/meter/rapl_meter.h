// The CPU's energy meter: RAPL package (and DRAM, where the machine exposes it) energy over each
// window, for runs on the CPU backend.
#pragma once

#include <filesystem>
#include <memory>

#include "meter/meter.h"

namespace ec::meter {

// A meter over the powercap tree at `root`. It measures energy only when every package zone reads
// (usually root only); otherwise it times windows and says why, like the unavailable meter. A
// window whose reads fail anywhere has no energy, never a partial sum. RAPL counts the whole
// package: other processes on the same CPU add to every window.
std::unique_ptr<Meter> make_rapl_meter(const std::filesystem::path& root = "/sys/class/powercap");

}  // namespace ec::meter
